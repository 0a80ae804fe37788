import type { Clock } from '../../engine/index.js';

/**
 * Real time run `factor` times faster: `now()` advances `factor` ms per real ms and `sleep(ms)`
 * takes ms / factor of real time. Shared by a real HTTP server (its `now`) and the clients, it
 * lets minutes of per-minute quotas play out over real sockets in seconds.
 */
export class AcceleratedClock implements Clock {
  private readonly t0 = performance.now();
  readonly start = Date.parse('2026-01-01T00:00:00Z');

  constructor(readonly factor: number) {}

  now(): Date {
    return new Date(this.start + this.elapsed());
  }

  /** Accelerated milliseconds since the clock was made. */
  elapsed(): number {
    return (performance.now() - this.t0) * this.factor;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms) / this.factor));
  }
}
