/**
 * When the watched site rebuilds: `debounceMs` after the last change (a sweep writes in bursts,
 * and a build per line would never catch up), never two builds at once (they would swap the same
 * output folder), and a change that lands during a build schedules exactly one more after it, so
 * the last change is always built and a burst during a long build costs one build, not one each.
 * A sweep that writes without pause (transcripts grow every second) would hold a pure debounce
 * off forever, so a build also starts once `maxWaitMs` have passed since the first change waiting.
 */

export interface RebuildQueueOptions {
  /** Quiet time after the last change before a build starts. Default 2000 ms. */
  debounceMs?: number;
  /** Longest a change waits for its build while changes keep coming. Default 10000 ms. */
  maxWaitMs?: number;
}

export class RebuildQueue {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A change arrived while a build ran: build again once it ends. */
  private again = false;
  private closed = false;
  /** When the oldest change not yet built arrived (ms since the epoch). */
  private waitingSince: number | undefined;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly build: () => Promise<void>,
    options: RebuildQueueOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 2000;
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
  }

  /** Something changed: (re)start the quiet period. */
  changed(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const now = Date.now();
    this.waitingSince ??= now;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.start(), Math.max(0, Math.min(this.debounceMs, this.waitingSince + this.maxWaitMs - now)));
  }

  /** Whether a build runs now (for messages and tests). */
  get busy(): boolean {
    return this.running !== undefined;
  }

  private start(): void {
    this.timer = undefined;
    this.waitingSince = undefined;
    if (this.closed) return;
    // build() reports its own failures; one that throws anyway must not stop the queue.
    this.running = this.build()
      .catch(() => undefined)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.changed();
        }
      });
  }

  /** No further builds; resolves once the one running (if any) has ended. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
