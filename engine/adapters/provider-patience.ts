/**
 * How long a provider may keep failing before its calls give up, SHARED by every call to it.
 *
 * An outage starts at the first retryable failure (refused or dropped connection, passed
 * deadline, 5xx, 429) and ends at the first answer. Every call made during it draws on the same
 * patience: a call that starts ten minutes into an outage does not get ten fresh minutes, so a
 * sweep stalls for at most the patience when a provider goes down, however many calls wait.
 * It holds no clock: callers pass their clock's time, so a fake clock drives it in tests.
 */
export class ProviderPatience {
  private outageSince: number | null = null;

  /** @param patienceMs How long an outage is borne, from its first failure. */
  constructor(readonly patienceMs: number) {
    if (!(patienceMs > 0) || !Number.isFinite(patienceMs)) throw new RangeError(`patience must be a positive number of milliseconds, not ${patienceMs}`);
  }

  /** A retryable failure at `now` (ms since the epoch): opens an outage unless one is open. */
  failed(now: number): void {
    this.outageSince ??= now;
  }

  /** An answer: the outage, if any, is over, and the next failure starts a new one. */
  answered(): void {
    this.outageSince = null;
  }

  /** How long the current outage has lasted at `now`; 0 when there is none. */
  failingForMs(now: number): number {
    return this.outageSince === null ? 0 : Math.max(0, now - this.outageSince);
  }

  /** What is left of the patience at `now`: the whole of it when there is no outage. */
  leftMs(now: number): number {
    return Math.max(0, this.patienceMs - this.failingForMs(now));
  }
}
