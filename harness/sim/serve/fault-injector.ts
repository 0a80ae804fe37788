import type { FaultPlan, FaultWindow } from './fault-plan.js';
import { latencyMs, uniform, type TryIdentity } from './fault-draws.js';
import { RateBuckets } from './rate-buckets.js';

/** What the server does with one well-formed request, once the fault plan has had its say. */
export type FaultDecision =
  | { kind: 'answer'; latencyMs: number; reservedTokens: number }
  | { kind: 'http_error'; status: number; latencyMs: number }
  | { kind: 'rate_limited'; why: 'drawn' | 'requests_per_minute' | 'tokens_per_minute'; retryAfterS: number; latencyMs: number };

/** A window of the plan with when it actually started, once it has. */
interface WindowState {
  readonly window: FaultWindow;
  readonly index: number;
  /** Requests received before the window's first; null until it started. */
  startedAfter: number | null;
  startedAtMs: number | null;
}

/**
 * The fault plan applied request by request: which window is open, whether a per-minute limit
 * bucket is empty (rate-buckets.ts), and the seeded draws (see fault-draws.ts). It keeps the plan's clock and counts but
 * owns no socket: the server asks it what to do and carries it out, outages included.
 */
export class FaultInjector {
  private readonly windows: WindowState[];
  /** The per-minute limits, whose state also gives the x-ratelimit-* headers. */
  private readonly buckets: RateBuckets;

  constructor(
    private readonly plan: FaultPlan | undefined,
    private readonly startedAtMs: number,
  ) {
    this.windows = (plan?.windows ?? []).map((window, index) => ({ window, index, startedAfter: null, startedAtMs: null }));
    this.buckets = new RateBuckets(plan, startedAtMs);
  }

  /** Outage windows started by time, with their delay from the server's start: the server sets a timer for each. */
  timedOutages(): Array<{ index: number; afterMs: number; forMs: number }> {
    return this.windows.filter((w) => w.window.fault === 'outage' && w.window.after_s !== undefined).map((w) => ({ index: w.index, afterMs: w.window.after_s! * 1000, forMs: w.window.for_s! * 1000 }));
  }

  /**
   * Called once per chat request as it arrives, with its number (1-based) and the time: starts
   * the windows whose moment has come, and returns the outage windows that start once this
   * request is in (it is still answered; the next one is refused).
   */
  received(n: number, nowMs: number): Array<{ index: number; forMs: number }> {
    const starting: Array<{ index: number; forMs: number }> = [];
    for (const w of this.windows) {
      if (w.startedAfter !== null) continue;
      const byCount = w.window.after_requests !== undefined && n >= w.window.after_requests;
      const byTime = w.window.after_s !== undefined && nowMs - this.startedAtMs >= w.window.after_s * 1000;
      if (w.window.fault === 'outage') {
        // Requests already in count toward the trigger; this one is answered before the port closes.
        if (byCount) {
          w.startedAfter = n;
          w.startedAtMs = nowMs;
          starting.push({ index: w.index, forMs: w.window.for_s! * 1000 });
        }
        continue;
      }
      // A burst starting after N requests covers request N + 1 on, timed from it; one started by time
      // covers the first request that came after its moment on, timed from the moment itself.
      if (byCount && n > w.window.after_requests!) [w.startedAfter, w.startedAtMs] = [w.window.after_requests!, nowMs];
      else if (byTime) [w.startedAfter, w.startedAtMs] = [n - 1, this.startedAtMs + w.window.after_s! * 1000];
    }
    return starting;
  }

  /** The 5xx status of an open http_error window for request `n`, or null. */
  private burstStatus(n: number, nowMs: number): number | null {
    for (const w of this.windows) {
      if (w.window.fault !== 'http_error' || w.startedAfter === null || n <= w.startedAfter) continue;
      const open = w.window.for_requests !== undefined ? n <= w.startedAfter + w.window.for_requests : nowMs < w.startedAtMs! + w.window.for_s! * 1000;
      if (open) return w.window.status!;
    }
    return null;
  }

  /**
   * What to do with request `n`, a try of a call the server has seen `t.seen` times before,
   * whose prompt the server estimates at `estimate` tokens. An answer has been admitted by the
   * limits and holds its reservation: report what it used with noteAnswered.
   */
  decide(n: number, t: TryIdentity, nowMs: number, estimate: number): FaultDecision {
    const seed = this.plan?.seed ?? 0;
    const delay = latencyMs(this.plan?.latency, seed, t);
    const status = this.burstStatus(n, nowMs);
    if (status !== null) return { kind: 'http_error', status, latencyMs: delay };
    // A drawn 429 comes first: a busy provider refuses whatever the client's own rate, and the refusal takes nothing from its buckets.
    const rate = this.plan?.rate_limit;
    if (rate && uniform(seed, 'rate_limit', t) < rate.share) return { kind: 'rate_limited', why: 'drawn', retryAfterS: retryAfterS(rate.retry_after_s, seed, t), latencyMs: delay };
    const full = this.buckets.admit(estimate, nowMs);
    if (full) return { kind: 'rate_limited', ...full, latencyMs: delay };
    return { kind: 'answer', latencyMs: delay, reservedTokens: estimate };
  }

  /** An answered request: its reservation is replaced by the tokens it used, prompt plus completion. */
  noteAnswered(decision: { reservedTokens: number }, tokens: number, nowMs: number): void {
    this.buckets.settle(decision.reservedTokens, tokens, nowMs);
  }

  /** The x-ratelimit-* headers every chat reply carries (none when the plan has no limits or turns them off). */
  rateHeaders(nowMs: number): Record<string, string> {
    return this.buckets.headers(nowMs);
  }
}

/** The wait a drawn 429 asks for: the plan's number, or a seeded draw from its `[min, max]` range (a function of the try alone), to the millisecond. */
export function retryAfterS(plan: number | readonly [number, number], seed: number, t: TryIdentity): number {
  if (typeof plan === 'number') return plan;
  const [min, max] = plan;
  return Math.round((min + (max - min) * uniform(seed, 'retry_after', t)) * 1000) / 1000;
}
