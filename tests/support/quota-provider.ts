import type { AttemptReport, RateControl } from '../../engine/index.js';
import type { VirtualClock } from './virtual-clock.js';

/**
 * A provider's quotas on a simulated clock, for the rate controller's tests: requests and
 * tokens per minute as token buckets (a full minute's burst, refilled steadily), a request
 * that finds a bucket short answered 429 with the Retry-After of `retryAfterS`, and the
 * OpenAI-style `x-ratelimit-*` headers on every reply when `headers` is on.
 */
export interface QuotaProviderOptions {
  rpm?: number;
  tpm?: number;
  /** Send x-ratelimit-* headers. Default true. */
  headers?: boolean;
  /** What every 429 asks for, in seconds. Default: when the bucket has room again. */
  retryAfterS?: number;
  /** What a full bucket holds, as a share of the minute's allowance. Default 1 (a whole minute). */
  burst?: number;
  /** 429 everything until this many ms after the start, whatever the quotas. Default never. */
  refuseUntilMs?: number;
  /** A 429's words name the quota it hit (as OpenAI's and Anthropic's do), reported as `limitedOn`. Default false: words that name nothing. */
  namesQuota?: boolean;
}

class Bucket {
  level: number;
  private at: number;
  readonly capacity: number;
  constructor(readonly perMinute: number, burst: number, now: number) {
    this.capacity = Math.max(1, Math.floor(perMinute * burst));
    this.level = this.capacity;
    this.at = now;
  }
  refill(now: number): void {
    this.level = Math.min(this.capacity, this.level + ((now - this.at) * this.perMinute) / 60_000);
    this.at = now;
  }
  msUntil(n: number): number {
    return Math.max(0, Math.ceil(((Math.min(n, this.capacity) - this.level) * 60_000) / this.perMinute));
  }
  resetMs(): number {
    return Math.ceil(((this.capacity - this.level) * 60_000) / this.perMinute);
  }
}

export class QuotaProvider {
  private requests: Bucket | null;
  private tokens: Bucket | null;
  answered = 0;
  rateLimited = 0;
  tokensAnswered = 0;

  constructor(private readonly clock: VirtualClock, private readonly o: QuotaProviderOptions) {
    const now = clock.elapsed();
    this.requests = o.rpm ? new Bucket(o.rpm, o.burst ?? 1, now) : null;
    this.tokens = o.tpm ? new Bucket(o.tpm, o.burst ?? 1, now) : null;
  }

  /** Decides a request of `tokens` arriving now. */
  decide(tokens: number): { ok: boolean; headers: Headers; retryAfterMs: number; limitedOn?: 'requests' | 'tokens' } {
    const now = this.clock.elapsed();
    this.requests?.refill(now);
    this.tokens?.refill(now);
    const [requestShort, tokenShort] = [this.requests?.msUntil(1) ?? 0, this.tokens?.msUntil(tokens) ?? 0];
    const short = Math.max(requestShort, tokenShort);
    const refused = short > 0 || (this.o.refuseUntilMs !== undefined && now < this.o.refuseUntilMs);
    if (!refused) {
      if (this.requests) this.requests.level -= 1;
      if (this.tokens) this.tokens.level -= tokens;
    }
    const headers = new Headers();
    if (this.o.headers !== false) {
      for (const [name, b] of [['requests', this.requests], ['tokens', this.tokens]] as const) {
        if (!b) continue;
        headers.set(`x-ratelimit-limit-${name}`, String(b.perMinute));
        headers.set(`x-ratelimit-remaining-${name}`, String(Math.max(0, Math.floor(b.level))));
        headers.set(`x-ratelimit-reset-${name}`, `${b.resetMs()}ms`);
      }
    }
    const retryAfterMs = this.o.retryAfterS !== undefined ? this.o.retryAfterS * 1000 : Math.max(short, 1);
    if (refused) headers.set('retry-after-ms', String(retryAfterMs));
    if (refused) this.rateLimited++;
    else [this.answered, this.tokensAnswered] = [this.answered + 1, this.tokensAnswered + tokens];
    const named = this.o.namesQuota && short > 0 ? { limitedOn: requestShort > 0 ? ('requests' as const) : ('tokens' as const) } : {};
    return { ok: !refused, headers, retryAfterMs, ...named };
  }
}

export interface CallerOptions {
  clock: VirtualClock;
  control: RateControl;
  provider: QuotaProvider;
  model?: string;
  /** Tokens of one call (prompt + completion, known in advance here), or a draw per call. Default 100. */
  tokens?: number | (() => number);
  /** Latency of one attempt, in ms. */
  latencyMs: () => number;
}

/** One call as the client makes it: permit, attempt, release, and on a 429 the Retry-After slept outside the permit. */
export async function call(o: CallerOptions, log?: (report: AttemptReport) => void): Promise<number> {
  const tokens = typeof o.tokens === 'function' ? o.tokens() : (o.tokens ?? 100);
  for (let attempt = 1; ; attempt++) {
    const permit = await o.control.acquire(o.model ?? 'm', tokens);
    const decision = o.provider.decide(tokens);
    await o.clock.sleep(o.latencyMs());
    const limitedOn = decision.limitedOn ? { limitedOn: decision.limitedOn } : {};
    const report: AttemptReport = { outcome: decision.ok ? 'answered' : 'rate_limited', headers: decision.headers, tokens, ...limitedOn };
    permit.release(report);
    log?.(report);
    if (decision.ok) return attempt;
    await o.clock.sleep(decision.retryAfterMs);
  }
}

/** `workers` sessions calling one after another until `untilMs` of simulated time. */
export function closedLoop(o: CallerOptions, workers: number, untilMs: number): Promise<void> {
  const one = async () => {
    while (o.clock.elapsed() < untilMs) await call(o);
  };
  return Promise.all(Array.from({ length: workers }, one)).then(() => undefined);
}

/** A seeded uniform draw in [lo, hi), for latencies that vary but repeat. */
export function uniformMs(lo: number, hi: number, seed = 1): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + ((s / 2 ** 32) * (hi - lo));
  };
}
