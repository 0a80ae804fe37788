import type { Clock } from '../../engine/index.js';

/**
 * A clock whose sleeps take no real time: each advances the fake time at once and is recorded,
 * so a ten-minute outage runs in milliseconds. `at(ms, fn)` runs `fn` the first time a sleep
 * carries the fake time to `ms` after the start (a server that comes back, say).
 */
export class FakeClock implements Clock {
  readonly start: number;
  readonly slept: number[] = [];
  private t: number;
  private readonly pending: Array<{ at: number; fn: () => unknown }> = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.start = start;
    this.t = start;
  }

  now(): Date {
    return new Date(this.t);
  }

  /** Milliseconds of fake time since the start. */
  elapsed(): number {
    return this.t - this.start;
  }

  async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.t += ms;
    for (const due of this.pending.filter((p) => p.at <= this.t - this.start)) {
      this.pending.splice(this.pending.indexOf(due), 1);
      await due.fn();
    }
  }

  /** Moves the fake time on without a sleep being recorded. */
  advance(ms: number): void {
    this.t += ms;
  }

  at(ms: number, fn: () => unknown): void {
    this.pending.push({ at: ms, fn });
  }
}
