import type { Clock } from '../../engine/index.js';

/**
 * A discrete-event clock for many concurrent tasks: a sleep resolves when the simulated time
 * reaches its end, in time order, and `runUntil` moves the time from one due sleep to the
 * next once every promise chain has settled. Unlike FakeClock (one sleeper, each sleep jumps
 * at once), concurrent sleepers interleave as they would in real time, so two simulated
 * minutes of a hundred calls in flight run in milliseconds.
 */
export class VirtualClock implements Clock {
  private t: number;
  readonly start: number;
  private seq = 0;
  private readonly timers: Array<{ at: number; seq: number; resolve: () => void }> = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.start = start;
    this.t = start;
  }

  now(): Date {
    return new Date(this.t);
  }

  /** Milliseconds of simulated time since the start. */
  elapsed(): number {
    return this.t - this.start;
  }

  /** Moves the time on at once, waking nothing (for tests that step by hand). */
  advance(ms: number): void {
    this.t += ms;
  }

  sleep(ms: number): Promise<void> {
    const wait = Number.isFinite(ms) && ms > 0 ? ms : 0;
    return new Promise((resolve) => this.timers.push({ at: this.t + wait, seq: this.seq++, resolve }));
  }

  /** Lets every pending promise chain run (a macrotask turn drains the microtasks). */
  static settle(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Runs the simulation until `ms` after the start, or until nothing is left to wake. `onStep` runs at each moment. */
  async runUntil(ms: number, onStep?: (elapsed: number) => void): Promise<void> {
    const end = this.start + ms;
    for (;;) {
      await VirtualClock.settle();
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const due = this.timers[0];
      if (!due || due.at > end) break;
      this.t = Math.max(this.t, due.at);
      // Everything due at this moment wakes together.
      while (this.timers[0] && this.timers[0].at <= this.t) this.timers.shift()!.resolve();
      onStep?.(this.elapsed());
    }
    this.t = Math.max(this.t, end);
    await VirtualClock.settle();
  }
}
