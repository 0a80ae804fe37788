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

  /**
   * Spends all of `n`, even past the capacity (the level may go below zero): a learned token
   * pace charges a call what it is estimated at, so one call larger than the bucket still
   * waits for the tokens it takes instead of passing as if it were the capacity.
   */
  charge(n: number, now: number): void {
    this.refill(now);
    this.level -= Math.max(0, n);
  }

  /** Replaces a charge of `estimated` by what the call `used`: gives back the rest, or takes the excess. */
  settle(estimated: number, used: number, now: number): void {
    this.refill(now);
    this.level = Math.min(this.capacity, this.level + estimated - used);
  }

  /** Gives back what a call did not use of its estimate. */
  refund(n: number, now: number): void {
    this.refill(now);
    if (n > 0) this.level = Math.min(this.capacity, this.level + n);
  }

  /** A new pace (a learned one, not the provider's account): the level is kept, within the new capacity. */
  repace(ratePerMs: number, capacity: number, now: number): void {
    this.refill(now);
    this.ratePerMs = ratePerMs;
    this.capacity = capacity;
    this.level = Math.min(this.level, capacity);
  }

  get rate(): number {
    return this.ratePerMs;
  }

  /** The provider's own account: `remaining` left of `limit`, full again in `resetMs`; `unseen` is still in flight. */
  sync(limit: number, remaining: number, resetMs: number | null, unseen: number, now: number): void {
    // Both dialects document per-minute quotas, replenished continuously: `limit` a minute. What
    // a full bucket holds (the burst) may be less than a minute's worth: the reset says when it
    // is full, so it holds what is left plus what refills by then.
    this.ratePerMs = limit / 60_000;
    this.capacity = resetMs === null ? limit : Math.max(1, Math.min(limit, remaining + resetMs * this.ratePerMs));
    this.level = Math.max(0, remaining - unseen);
    this.at = now;
  }
}
