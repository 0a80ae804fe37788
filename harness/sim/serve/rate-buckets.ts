import type { FaultPlan } from './fault-plan.js';

/**
 * The per-minute limits of a fault plan as hosted providers enforce them: a token bucket per
 * quantity (requests, tokens), refilled continuously at the per-minute rate up to a capacity of
 * `burst` x the minute's allowance (at least one request). A full bucket admits that burst at
 * once, then the rate paces; this is the documented behaviour of OpenAI's limits ("replenished
 * continuously", quantized over shorter periods), unlike a fixed or sliding minute.
 *
 * Tokens are counted in two steps, because a provider must decide before it knows the
 * completion. On admission the request reserves its prompt as the server estimates it
 * (characters / 4 of what it sends; OpenAI also reserves max_tokens, which we do not: the
 * engine sends generous max_tokens and a reservation of it would make the token limit bind on
 * tokens nobody used, the measurement a client's pacing is judged on). Once answered, the
 * reservation is replaced by what the reply reports (prompt + completion tokens). The bucket may
 * go below zero that way (a debt the refill pays back before the next admission), and a request
 * larger than the whole bucket is admitted when the bucket is full, so no request waits forever.
 * Cached prompt tokens count in full, as OpenAI counts them against its token limit.
 */

const MINUTE_MS = 60_000;

/**
 * One bucket: `perMinute` refilled continuously, holding at most `capacity`. The level is kept
 * in sixty-thousandths of a token (a rate of R a minute adds R of them each millisecond), so
 * with a whole-millisecond clock every refill and wait is exact integer arithmetic: a
 * Retry-After of 16 s is 16 s, not 16.001 s from a sum of floating-point refills.
 */
class TokenBucket {
  /** The level x MINUTE_MS. */
  private scaled: number;
  private atMs: number;

  constructor(
    readonly perMinute: number,
    readonly capacity: number,
    nowMs: number,
  ) {
    this.scaled = capacity * MINUTE_MS;
    this.atMs = nowMs;
  }

  private refill(nowMs: number): number {
    if (nowMs > this.atMs) {
      this.scaled = Math.min(this.capacity * MINUTE_MS, this.scaled + this.perMinute * (nowMs - this.atMs));
      this.atMs = nowMs;
    }
    return this.scaled;
  }

  /** The level now, after the refill since the last look. */
  current(nowMs: number): number {
    return this.refill(nowMs) / MINUTE_MS;
  }

  /** Milliseconds until the bucket holds `amount` (capped at a full bucket); 0 when it does now. */
  waitMs(amount: number, nowMs: number): number {
    const need = Math.min(amount, this.capacity) * MINUTE_MS - this.refill(nowMs);
    return need <= 0 ? 0 : Math.ceil(need / this.perMinute);
  }

  /** Milliseconds until the bucket is full again: what x-ratelimit-reset-* reports. */
  resetMs(nowMs: number): number {
    return Math.ceil((this.capacity * MINUTE_MS - this.refill(nowMs)) / this.perMinute);
  }

  /** Takes `amount` (negative gives back); the level may go below zero, never above capacity. */
  take(amount: number, nowMs: number): void {
    this.scaled = Math.min(this.capacity * MINUTE_MS, this.refill(nowMs) - amount * MINUTE_MS);
  }
}

/** A full bucket: the reason, and the wait until it admits the request. */
export interface BucketRefusal {
  why: 'requests_per_minute' | 'tokens_per_minute';
  retryAfterS: number;
}

/** The request and token buckets of one server, and the x-ratelimit-* headers they imply. */
export class RateBuckets {
  private readonly requests: TokenBucket | null;
  private readonly tokens: TokenBucket | null;
  /** Whether replies carry x-ratelimit-* headers: the plan's `limits.headers`, by default true in version 2 and false in version 1. */
  readonly sendsHeaders: boolean;

  constructor(plan: FaultPlan | undefined, nowMs: number) {
    const limits = plan?.limits;
    const burst = limits?.burst ?? 1;
    const rpm = limits?.requests_per_minute;
    const tpm = limits?.tokens_per_minute;
    this.requests = rpm === undefined ? null : new TokenBucket(rpm, Math.max(1, Math.floor(rpm * burst)), nowMs);
    this.tokens = tpm === undefined ? null : new TokenBucket(tpm, Math.max(1, Math.floor(tpm * burst)), nowMs);
    this.sendsHeaders = limits?.headers ?? plan?.version === 2;
  }

  /**
   * Admits a request reserving `estimate` tokens, or says which bucket is short and for how
   * long. An admitted request has taken one request and its reservation; settle it once answered.
   */
  admit(estimate: number, nowMs: number): BucketRefusal | null {
    const requestWait = this.requests?.waitMs(1, nowMs) ?? 0;
    if (requestWait > 0) return { why: 'requests_per_minute', retryAfterS: requestWait / 1000 };
    const tokenWait = this.tokens?.waitMs(estimate, nowMs) ?? 0;
    if (tokenWait > 0) return { why: 'tokens_per_minute', retryAfterS: tokenWait / 1000 };
    this.requests?.take(1, nowMs);
    this.tokens?.take(estimate, nowMs);
    return null;
  }

  /** Replaces an admitted request's reservation by the tokens its reply reports. */
  settle(reserved: number, used: number, nowMs: number): void {
    this.tokens?.take(used - reserved, nowMs);
  }

  /** The OpenAI-style headers, for the limits the plan sets; none when headers are off. */
  headers(nowMs: number): Record<string, string> {
    if (!this.sendsHeaders) return {};
    const out: Record<string, string> = {};
    for (const [name, bucket] of [['requests', this.requests], ['tokens', this.tokens]] as const) {
      if (!bucket) continue;
      out[`x-ratelimit-limit-${name}`] = String(bucket.perMinute);
      out[`x-ratelimit-remaining-${name}`] = String(Math.max(0, Math.floor(bucket.current(nowMs))));
      out[`x-ratelimit-reset-${name}`] = goDuration(bucket.resetMs(nowMs));
    }
    return out;
  }
}

/**
 * A duration as OpenAI writes it in x-ratelimit-reset-* (Go's time.Duration format): "120ms"
 * under a second, else hours, minutes and seconds with the larger units only once reached
 * ("1s", "1.5s", "6m0s", "1h2m3s"), seconds to the millisecond.
 */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole === 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = `${Number(((whole % 60_000) / 1000).toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}
