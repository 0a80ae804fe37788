import type { StatsCounter } from './server-stats.js';
import type { SwitchableListener } from './switchable-listener.js';

/**
 * When the SIMULATED provider is down: outages begun by a window (for a time) or by hand (until
 * ended by hand), each closing the listening socket and reopening it on the same port. Steps
 * run one at a time, in order, so a window and a hand never interleave a close and a listen;
 * an outage begun while one is on only ever lengthens it.
 */
export class OutageControl {
  private chain: Promise<void> = Promise.resolve();
  private ending: NodeJS.Timeout | null = null;
  private endsAtMs = 0;
  private readonly starts = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly listener: SwitchableListener,
    private readonly counter: StatsCounter,
    private readonly log: (line: string) => void,
    private readonly now: () => number,
  ) {}

  /** Begins an outage lasting `forMs`, or until `leave()` when null; resolves once connects are refused. */
  enter(forMs: number | null, why: string): Promise<void> {
    return this.serialised(async () => {
      if (this.stopped) return;
      if (!this.listener.refusing) {
        this.counter.outageEntered();
        await this.listener.refuse();
        this.log(`harness sim serve: outage (${why}): connections to port ${this.listener.port} refused${forMs === null ? ' until ended by hand' : ` for ${forMs / 1000} s`}`);
      }
      if (forMs === null) this.clearEnding();
      else if (this.ending === null || this.now() + forMs > this.endsAtMs) {
        this.clearEnding();
        this.endsAtMs = this.now() + forMs;
        this.ending = setTimeout(() => ((this.ending = null), void this.leave()), forMs);
      }
    });
  }

  /** Ends the outage: listens again on the same port; resolves once connects are answered. */
  leave(): Promise<void> {
    return this.serialised(async () => {
      this.clearEnding();
      if (!this.listener.refusing || this.stopped) return;
      await this.listener.resume().catch((error: Error) => this.log(`harness sim serve: ${error.message}`));
      this.log(`harness sim serve: outage over, listening again on port ${this.listener.port}`);
    });
  }

  /** Schedules an outage to begin `afterMs` from now (a window started by time). */
  schedule(afterMs: number, forMs: number, why: string): void {
    const timer = setTimeout(() => (this.starts.delete(timer), void this.enter(forMs, why)), afterMs);
    this.starts.add(timer);
  }

  /** No outage begins or ends after this; resolves once a step in progress is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearEnding();
    for (const timer of this.starts) clearTimeout(timer);
    this.starts.clear();
    await this.chain;
  }

  private clearEnding(): void {
    if (this.ending) clearTimeout(this.ending);
    this.ending = null;
  }

  private serialised(step: () => Promise<void>): Promise<void> {
    return (this.chain = this.chain.then(step, step));
  }
}
