import { systemClock, type Clock } from '../ports/clock.js';
import type { AttemptReport, CallPermit, RateControl, RateControlStatus } from '../ports/rate-control.js';
import { readRateLimitHeaders } from './rate-limit-headers.js';
import { TokenBucket } from './token-bucket.js';

/**
 * The adaptive rate controller of one provider key (see engine/ports/rate-control.ts). It
 * limits calls in flight, serving one FIFO queue per model round-robin so the models behind
 * one key share it fairly, and adapts the limit:
 * - without rate-limit headers, AIMD: slow start doubles the limit after `limit` successes
 *   until the first rate-limit episode, then +1 per 2 x `limit` successes; each episode cuts it to
 *   `decrease` of itself. Only successes of attempts sent while the limit was at least half
 *   used count, so a limit nobody uses does not grow on no evidence.
 * - with them, also a token bucket per quota (requests, and the tokens each acquire
 *   estimates), synced from every reply, so calls go out at the quota's pace and rarely draw a
 *   429 at all; 429s still cut the limit as above.
 * - without them, from the first episode on, also a learned pace (requests a minute): set at
 *   `decrease` of the rate sent just before the episode, cut by `decrease` at each episode and
 *   raised by one request a minute per success while calls wait for it. A limit on calls in
 *   flight cannot pace a provider whose quota allows fewer calls than one latency holds (600 a
 *   minute at 200 ms is 2 in flight: 2 or 3 is 50 % too many); a pace can. One request a
 *   minute per success regrows a cut of a quarter in about 15 s whatever the quota.
 *   A 429 whose words name a token quota (the report's `limitedOn`, read by the client) teaches
 *   a token pace instead, the same way in tokens a minute (each success raises it by its own
 *   tokens), charged each call's estimate and settled to what it used. Calls differ in size by
 *   several times, so a pace in requests under a token quota either lets a run of large calls
 *   through (429s, cuts) or holds back a run of small ones: 0.66 of the quota against 0.9 and
 *   more in tokens (tests/bench/throughput.bench.ts). A 429 that names no quota teaches the
 *   request pace: cutting both on every 429 held a request quota to 0.82 of itself. Each pace
 *   grows only while the other is not the one holding the queue's head.
 * 429s within one cool-down, or from attempts sent before the last cut, are one episode. The
 * cool-down is the controller's own and never the provider's Retry-After: Retry-After only
 * delays the retried call (the client sleeps it), and a horizon pushed forward by every
 * Retry-After freezes the controller after one cut under a steady stream of 429s.
 */
export interface RateControllerOptions {
  /** The provider's name, as the configuration gives it (shown in `status()`). No default. */
  provider: string;
  /** Fewest calls in flight, however many 429s arrive. No default. */
  min: number;
  /** Calls in flight before anything is measured. No default. */
  start: number;
  /** Most calls in flight, however fast the provider answers. No default. `min === start === max` never adapts (`pacing: 'fixed'`). */
  max: number;
  /** Times cool-downs and latencies, and sleeps until a bucket refills. Default: the system clock. */
  clock?: Clock;
  /**
   * A fixed cool-down, in ms. Default: derived, twice the smoothed latency of an attempt, at
   * least 1 s and at most 30 s: an attempt sent just before a cut answers within about one
   * latency, so after two the 429s of the old limit are in and the next one speaks of the new
   * limit; the 1 s floor keeps a stream of fast 429s from cutting to the minimum in a blink.
   */
  coolDownMs?: number;
  /** What a rate-limit episode multiplies the limit by, in (0, 1). Default 0.75. */
  decrease?: number;
  /** Pace from rate-limit headers when a reply carries them. Default true (false in fixed mode: it never adapts). */
  headerPacing?: boolean;
}

interface Waiter {
  model: string;
  tokens: number;
  grant: (permit: CallPermit) => void;
}

/** One permit granted: when, and its tokens (the estimate, then what the call used). */
interface Send {
  at: number;
  tokens: number;
}

/** What a learned pace counts. */
type PaceUnit = 'requests' | 'tokens';

const COOL_DOWN = { floorMs: 1000, ceilingMs: 30_000, latencies: 2 } as const;
/**
 * After the first episode, +1 per this many times `limit` successes. 2, not 1: a provider's
 * burst allowance hides an overshoot until its bucket is empty, and the 429s that then arrive
 * grow with how fast the limit climbed: after the first minute, 9.7 % of attempts were 429s at 1
 * and 4.1 % at 2, against the SIMULATED server's 300 a minute with a 10 % burst, no headers
 * (tests/harness/providers/rate-control-http.test.ts).
 */
const ADDITIVE_EVERY = 2;
/** How far back the rate sent before an episode is measured. */
const SEND_WINDOW_MS = 5000;
/** Weight of the newest latency in the smoothed one. */
const SMOOTHING = 0.2;

export function createRateController(options: RateControllerOptions): RateControl {
  return new RateController(options);
}

/** A controller that never adapts: `n` calls in flight, as a single `--concurrency` number keeps them. */
export function fixedRateControl(n: number, o: { provider?: string; clock?: Clock } = {}): RateControl {
  return new RateController({ provider: o.provider ?? 'fixed', min: n, start: n, max: n, ...(o.clock ? { clock: o.clock } : {}) });
}

class RateController implements RateControl {
  private readonly o: RateControllerOptions;
  private readonly clock: Clock;
  private readonly fixed: boolean;
  private readonly decrease: number;
  private limit: number;
  private successes = 0;
  private episodes = 0;
  private attempts = 0;
  private rateLimited = 0;
  private inFlight = 0;
  private inFlightTokens = 0;
  private waiting = 0;
  private wantedCallMs = 0;
  private wantedAt: number;
  private latencyMs: number | null = null;
  private episodeUntil = -Infinity;
  /** Permits granted so far, and how many had been when the limit was last cut. */
  private granted = 0;
  private grantedAtCut = 0;
  private readonly perModel = new Map<string, number>();
  private readonly queues = new Map<string, Waiter[]>();
  private next = 0;
  private requests: TokenBucket | null = null;
  /** The learned paces (no headers): requests a minute from the first episode on, tokens a minute from the first 429 that names a token quota. */
  private pace: TokenBucket | null = null;
  private tokenPace: TokenBucket | null = null;
  /** Which learned pace holds the head of the queue now, or null when neither does. */
  private heldBy: PaceUnit | null = null;
  /** Recent permits, for the rates sent before an episode. */
  private readonly sends: Send[] = [];
  private tokens: TokenBucket | null = null;
  private wakeAt: number | null = null;

  constructor(o: RateControllerOptions) {
    for (const k of ['min', 'start', 'max'] as const) {
      if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`rate controller ${o.provider}: ${k} must be a positive whole number, got ${o[k]}`);
    }
    if (o.min > o.start || o.start > o.max) throw new RangeError(`rate controller ${o.provider}: needs min <= start <= max, got ${o.min}-${o.start}-${o.max}`);
    if (o.decrease !== undefined && !(o.decrease > 0 && o.decrease < 1)) throw new RangeError(`rate controller ${o.provider}: decrease must be in (0, 1), got ${o.decrease}`);
    if (o.coolDownMs !== undefined && !(Number.isFinite(o.coolDownMs) && o.coolDownMs >= 0)) throw new RangeError(`rate controller ${o.provider}: coolDownMs must be a non-negative number, got ${o.coolDownMs}`);
    this.o = o;
    this.clock = o.clock ?? systemClock;
    this.fixed = o.min === o.max;
    this.decrease = o.decrease ?? 0.75;
    this.limit = o.start;
    this.wantedAt = this.clock.now().getTime();
  }

  /** Integrates the calls wanted up to now, before a count changes. */
  private account(now: number): void {
    if (now > this.wantedAt) this.wantedCallMs += (this.inFlight + this.waiting) * (now - this.wantedAt);
    this.wantedAt = Math.max(this.wantedAt, now);
  }

  acquire(model: string, tokens: number): Promise<CallPermit> {
    const estimate = Number.isFinite(tokens) && tokens > 0 ? tokens : 0;
    return new Promise((grant) => {
      let queue = this.queues.get(model);
      if (!queue) this.queues.set(model, (queue = []));
      this.account(this.clock.now().getTime());
      queue.push({ model, tokens: estimate, grant });
      this.waiting++;
      this.pump();
    });
  }

  status(): RateControlStatus {
    this.account(this.clock.now().getTime());
    return {
      provider: this.o.provider,
      limit: this.limit,
      min: this.o.min,
      max: this.o.max,
      inFlight: this.inFlight,
      waiting: this.waiting,
      pacing: this.fixed ? 'fixed' : this.requests || this.tokens ? 'headers' : 'aimd',
      episodeSeen: this.episodes > 0,
      episodes: this.episodes,
      attempts: this.attempts,
      rateLimited: this.rateLimited,
      wantedCallMs: this.wantedCallMs,
      perModel: Object.fromEntries(this.perModel),
    };
  }

  /** The next waiter in round-robin order over the models, or null. */
  private peek(): { queue: Waiter[]; index: number } | null {
    const models = [...this.queues.keys()];
    for (let i = 0; i < models.length; i++) {
      const index = (this.next + i) % models.length;
      const queue = this.queues.get(models[index]!)!;
      if (queue.length) return { queue, index };
    }
    return null;
  }

  /** Grants permits while the limit and the buckets allow; the head that does not fit waits (no overtaking, so big calls are not starved). */
  private pump(): void {
    while (this.inFlight < this.limit) {
      const found = this.peek();
      if (!found) return;
      const waiter = found.queue[0]!;
      const now = this.clock.now().getTime();
      const [paceWait, tokenPaceWait] = [this.pace?.waitMs(1, now) ?? 0, this.tokenPace?.waitMs(waiter.tokens, now) ?? 0];
      this.heldBy = paceWait > 0 || tokenPaceWait > 0 ? (paceWait >= tokenPaceWait ? 'requests' : 'tokens') : null;
      const wait = Math.max(this.requests?.waitMs(1, now) ?? 0, this.tokens?.waitMs(waiter.tokens, now) ?? 0, paceWait, tokenPaceWait);
      if (wait > 0) return this.wakeIn(wait, now);
      this.account(now);
      found.queue.shift();
      this.waiting--;
      this.next = found.index + 1;
      this.requests?.spend(1, now);
      this.pace?.spend(1, now);
      this.tokenPace?.charge(waiter.tokens, now);
      const send = this.noteSend(now, waiter.tokens);
      this.tokens?.spend(waiter.tokens, now);
      waiter.grant(this.grant(waiter, now, send));
    }
  }

  /** One timer at a time, for the earliest moment a bucket lets the head go. */
  private wakeIn(ms: number, now: number): void {
    const at = now + ms;
    if (this.wakeAt !== null && this.wakeAt <= at) return;
    this.wakeAt = at;
    void this.clock.sleep(ms).then(() => {
      if (this.wakeAt === at) this.wakeAt = null;
      this.pump();
    });
  }

  private grant(waiter: Waiter, acquiredAt: number, send: Send): CallPermit {
    this.inFlight++;
    this.inFlightTokens += waiter.tokens;
    this.perModel.set(waiter.model, (this.perModel.get(waiter.model) ?? 0) + 1);
    // Sent while the limit was at least half used: its success is evidence the limit binds.
    const saturated = this.inFlight * 2 >= this.limit;
    const sent = ++this.granted;
    let released = false;
    return {
      release: (report: AttemptReport) => {
        if (released) return;
        released = true;
        this.release(waiter, { acquiredAt, sent, saturated, send }, report);
      },
    };
  }

  private release(waiter: Waiter, { acquiredAt, sent, saturated, send }: { acquiredAt: number; sent: number; saturated: boolean; send: Send }, report: AttemptReport): void {
    const now = this.clock.now().getTime();
    this.account(now);
    this.inFlight--;
    this.inFlightTokens -= waiter.tokens;
    const left = (this.perModel.get(waiter.model) ?? 1) - 1;
    if (left > 0) this.perModel.set(waiter.model, left);
    else this.perModel.delete(waiter.model);
    this.attempts++;
    if (report.outcome !== 'failed') this.latencyMs = this.latencyMs === null ? now - acquiredAt : this.latencyMs + SMOOTHING * (now - acquiredAt - this.latencyMs);
    const synced = this.sync(report.headers, now);
    const used = report.tokens !== undefined && Number.isFinite(report.tokens) ? Math.max(0, report.tokens) : waiter.tokens;
    if (!synced && this.tokens && report.outcome !== 'answered') this.tokens.refund(waiter.tokens, now);
    else if (!synced && this.tokens) this.tokens.refund(waiter.tokens - used, now);
    // The token pace, and the tokens sent before an episode, count what an answered call used.
    const spent = report.outcome === 'answered' ? used : waiter.tokens;
    this.tokenPace?.settle(waiter.tokens, spent, now);
    send.tokens = spent;
    if (report.outcome === 'answered') this.grow(saturated, used, now);
    if (report.outcome === 'rate_limited') this.cut(sent, report.limitedOn === 'tokens' ? 'tokens' : 'requests', now);
    this.pump();
  }

  /** Syncs the buckets from a reply's rate-limit headers; true when one was. */
  private sync(headers: Headers | undefined, now: number): boolean {
    if (this.fixed || this.o.headerPacing === false) return false;
    const reading = readRateLimitHeaders(headers, now);
    // The provider's own account replaces a pace learned from 429s.
    if (reading.requests || reading.tokens) [this.pace, this.tokenPace] = [null, null];
    if (reading.requests) {
      this.requests ??= new TokenBucket(reading.requests.limit, reading.requests.limit / 60_000, now);
      this.requests.sync(reading.requests.limit, reading.requests.remaining, reading.requests.resetMs, this.inFlight, now);
    }
    if (reading.tokens) {
      this.tokens ??= new TokenBucket(reading.tokens.limit, reading.tokens.limit / 60_000, now);
      this.tokens.sync(reading.tokens.limit, reading.tokens.remaining, reading.tokens.resetMs, this.inFlightTokens, now);
    }
    return reading.tokens !== undefined;
  }

  private grow(saturated: boolean, used: number, now: number): void {
    if (this.fixed) return;
    // One request a minute more per success, and its tokens a minute more, while calls wait and the other pace is not what holds them.
    if (this.pace && this.waiting > 0 && this.heldBy !== 'tokens') this.repace('requests', this.pace.rate + 1 / 60_000, now);
    if (this.tokenPace && this.waiting > 0 && this.heldBy !== 'requests') this.repace('tokens', this.tokenPace.rate + used / 60_000, now);
    if (!saturated) return;
    if (++this.successes < (this.episodes > 0 ? ADDITIVE_EVERY : 1) * this.limit) return;
    this.successes = 0;
    this.limit = Math.min(this.o.max, this.episodes > 0 ? this.limit + 1 : this.limit * 2);
  }

  /** A 429 (of a quota in `unit`, as far as its words say): a new episode cuts the limit once; one within the cool-down, or from an attempt sent before the last cut, is the same episode. */
  private cut(sent: number, unit: PaceUnit, now: number): void {
    this.rateLimited++;
    if (now < this.episodeUntil || sent <= this.grantedAtCut) return;
    this.episodes++;
    this.episodeUntil = now + this.coolDownMs();
    this.grantedAtCut = this.granted;
    this.successes = 0;
    if (this.fixed) return;
    this.limit = Math.max(this.o.min, Math.floor(this.limit * this.decrease));
    if (this.requests || this.tokens || this.o.headerPacing === false) return;
    // No headers: pace at `decrease` of what was being sent, or of the pace already learned, in
    // the quota's unit. A pace below one call per cool-down says nothing a limit of `min` in
    // flight does not (a provider refusing everything, say): it is dropped, and the next
    // episode learns it anew.
    const pace = unit === 'requests' ? this.pace : this.tokenPace;
    const rates = this.sentPerMs(now);
    const rate = (pace ? pace.rate : rates[unit]) * this.decrease;
    const oneCall = unit === 'requests' ? 1 : Math.max(1, rates.tokens / Math.max(rates.requests, 1e-9));
    if (rate * this.coolDownMs() < oneCall) this.dropPace(unit);
    else this.repace(unit, rate, now);
  }

  private noteSend(now: number, tokens: number): Send {
    const send = { at: now, tokens };
    this.sends.push(send);
    while (this.sends.length && this.sends[0]!.at < now - SEND_WINDOW_MS) this.sends.shift();
    return send;
  }

  /** Requests, and tokens, a ms sent over the last few seconds. */
  private sentPerMs(now: number): Record<PaceUnit, number> {
    const recent = this.sends.filter((s) => s.at >= now - SEND_WINDOW_MS);
    const since = Math.min(SEND_WINDOW_MS, Math.max(1, now - (recent[0]?.at ?? now)));
    return { requests: recent.length / since, tokens: recent.reduce((sum, s) => sum + s.tokens, 0) / since };
  }

  /** A pace of `ratePerMs` in `unit`, holding at most a second's worth (at least one unit), so it never bursts far above itself. */
  private repace(unit: PaceUnit, ratePerMs: number, now: number): void {
    const capacity = Math.max(1, ratePerMs * 1000);
    const pace = unit === 'requests' ? this.pace : this.tokenPace;
    if (pace) pace.repace(ratePerMs, capacity, now);
    else if (unit === 'requests') this.pace = new TokenBucket(capacity, ratePerMs, now);
    else this.tokenPace = new TokenBucket(capacity, ratePerMs, now);
  }

  private dropPace(unit: PaceUnit): void {
    if (unit === 'requests') this.pace = null;
    else this.tokenPace = null;
  }

  private coolDownMs(): number {
    if (this.o.coolDownMs !== undefined) return this.o.coolDownMs;
    const derived = (this.latencyMs ?? 0) * COOL_DOWN.latencies;
    return Math.min(COOL_DOWN.ceilingMs, Math.max(COOL_DOWN.floorMs, derived));
  }
}
