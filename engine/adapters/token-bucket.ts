/**
 * A token bucket synced from a provider's rate-limit headers: `capacity` is the quota's limit,
 * it refills at `ratePerMs`, and every reply that reports the quota resets its level to what
 * the provider says is left (less what is still in flight, which the provider may not have
 * counted yet). Between replies it spends and refills on its own, so calls go out at the pace
 * the quota allows instead of at whatever pace draws a 429.
 */
export class TokenBucket {
  private level: number;
  private at: number;

  constructor(
    private capacity: number,
    private ratePerMs: number,
    now: number,
  ) {
    this.level = capacity;
    this.at = now;
  }

  private refill(now: number): void {
    if (now > this.at) this.level = Math.min(this.capacity, this.level + (now - this.at) * this.ratePerMs);
    this.at = Math.max(this.at, now);
  }

  /** What a request of `n` needs: never more than the whole capacity, so a huge one still goes once the bucket is full. */
  private need(n: number): number {
    return Math.min(Math.max(0, n), this.capacity);
  }

  /** Milliseconds until `n` may be spent (0: now). */
  waitMs(n: number, now: number): number {
    this.refill(now);
    const short = this.need(n) - this.level;
    return short <= 0 ? 0 : Math.ceil(short / this.ratePerMs);
  }

  spend(n: number, now: number): void {
    this.refill(now);
    this.level -= this.need(n);
  }

  /** Gives back what a call did not use of its estimate. */
  refund(n: number, now: number): void {
    this.refill(now);
    if (n > 0) this.level = Math.min(this.capacity, this.level + n);
  }

  /** The provider's own account: `remaining` left of `limit`, full again in `resetMs`; `unseen` is still in flight. */
  sync(limit: number, remaining: number, resetMs: number | null, unseen: number, now: number): void {
    this.capacity = limit;
    // Both dialects document per-minute quotas; a reset that says it refills faster is believed.
    const perMinute = limit / 60_000;
    const toFull = resetMs !== null && resetMs > 0 && limit > remaining ? (limit - remaining) / resetMs : 0;
    this.ratePerMs = Math.max(perMinute, toFull);
    this.level = Math.max(0, remaining - unseen);
    this.at = now;
  }
}
