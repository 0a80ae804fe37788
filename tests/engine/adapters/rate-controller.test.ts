import { describe, expect, it } from 'vitest';
import { createRateController, fixedRateControl, type CallPermit, type RateControl } from '../../../engine/index.js';
import { call, closedLoop, QuotaProvider, uniformMs } from '../../support/quota-provider.js';
import { VirtualClock } from '../../support/virtual-clock.js';

const answered = { outcome: 'answered' } as const;
const limited = { outcome: 'rate_limited' } as const;

/** The limits a controller went through, each change once. */
function limitTrace(control: RateControl): { seen: number[]; step: () => void } {
  const seen = [control.status().limit];
  return { seen, step: () => (control.status().limit !== seen.at(-1) ? void seen.push(control.status().limit) : undefined) };
}

/** `n` permits granted now (the controller lets them go at once when the limit allows). */
async function take(control: RateControl, n: number, model = 'm'): Promise<CallPermit[]> {
  return Promise.all(Array.from({ length: n }, () => control.acquire(model, 10)));
}

describe('the adaptive rate controller (AIMD, no headers)', () => {
  it('slow start doubles the limit after `limit` successes, up to max, and never beyond', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 2, start: 4, max: 40, clock });
    const provider = new QuotaProvider(clock, {});
    const trace = limitTrace(control);
    await Promise.all([closedLoop({ clock, control, provider, latencyMs: () => 100 }, 60, 20_000), clock.runUntil(30_000, trace.step)]);
    expect(trace.seen).toEqual([4, 8, 16, 32, 40]);
    expect(control.status()).toMatchObject({ limit: 40, episodeSeen: false, episodes: 0, pacing: 'aimd', inFlight: 0, waiting: 0 });
  });

  it('does not grow a limit nobody uses: successes of attempts sent below half the limit are no evidence', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 1, start: 8, max: 64, clock });
    // Three sessions, one call each at a time: never half of 8 in flight.
    await Promise.all([closedLoop({ clock, control, provider: new QuotaProvider(clock, {}), latencyMs: () => 100 }, 3, 30_000), clock.runUntil(40_000)]);
    expect(control.status().limit).toBe(8);
  });

  it('cuts once per episode: many 429s at once are one cut to 0.75 of the limit', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 2, start: 20, max: 100, clock });
    const permits = await take(control, 20);
    for (const p of permits) p.release(limited);
    expect(control.status()).toMatchObject({ limit: 15, episodes: 1, episodeSeen: true, rateLimited: 20, attempts: 20 });
    // A 429 of an attempt sent after the cut, but within the cool-down, is the same episode.
    const [late] = await take(control, 1);
    clock.advance(500);
    late!.release(limited);
    expect(control.status()).toMatchObject({ limit: 15, episodes: 1 });
    // After the cool-down (1 s at least), a new 429 is a new episode.
    const [later] = await take(control, 1);
    clock.advance(1000);
    later!.release(limited);
    expect(control.status()).toMatchObject({ limit: 11, episodes: 2 });
  });

  it('a 429 of an attempt sent before the last cut is the same episode, however late it comes', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 2, start: 20, max: 100, clock, coolDownMs: 100 });
    const [early, ...rest] = await take(control, 20);
    rest[0]!.release(limited);
    clock.advance(5000);
    early!.release(limited);
    expect(control.status()).toMatchObject({ limit: 15, episodes: 1, rateLimited: 2 });
  });

  it('after the first episode, adds one per 2 x `limit` successes', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 2, start: 8, max: 100, clock });
    for (const p of await take(control, 8)) p.release(limited);
    expect(control.status().limit).toBe(6);
    const trace = limitTrace(control);
    await Promise.all([closedLoop({ clock, control, provider: new QuotaProvider(clock, {}), latencyMs: () => 100 }, 30, 3000), clock.runUntil(10_000, trace.step)]);
    // 12 successes to 7, 14 to 8, ...: one at a time, never doubled again.
    expect(trace.seen.length).toBeGreaterThan(4);
    expect(trace.seen).toEqual(trace.seen.map((_, i) => 6 + i));
  });

  it('never goes below min nor above max', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 3, start: 10, max: 12, clock, coolDownMs: 0 });
    for (let i = 0; i < 30; i++) {
      const [p] = await take(control, 1);
      clock.advance(10);
      p!.release(limited);
    }
    expect(control.status()).toMatchObject({ limit: 3, min: 3, max: 12 });
    for (let i = 0; i < 200; i++) {
      const ps = await take(control, control.status().limit);
      for (const p of ps) p.release(answered);
    }
    expect(control.status().limit).toBe(12);
  });

  it('limits calls in flight: the next waits for a release', async () => {
    const control = createRateController({ provider: 'p', min: 1, start: 2, max: 2, clock: new VirtualClock() });
    const [a] = await take(control, 2);
    let third = false;
    const pending = control.acquire('m', 1).then((p) => ((third = true), p));
    await VirtualClock.settle();
    expect(third).toBe(false);
    expect(control.status()).toMatchObject({ inFlight: 2, waiting: 1 });
    a!.release(answered);
    a!.release(answered); // a second release is ignored
    (await pending).release(answered);
    expect(third).toBe(true);
    expect(control.status()).toMatchObject({ inFlight: 1, waiting: 0, attempts: 2 });
  });

  it('serves the models behind one key round-robin, each model first come first served', async () => {
    const control = createRateController({ provider: 'p', min: 1, start: 1, max: 2, clock: new VirtualClock() });
    const order: string[] = [];
    const granted: CallPermit[] = [];
    const [first] = await take(control, 1, 'a');
    for (const [model, id] of [['a', 'a1'], ['a', 'a2'], ['a', 'a3'], ['a', 'a4'], ['b', 'b1'], ['b', 'b2']] as const) {
      void control.acquire(model, 1).then((p) => (order.push(id), granted.push(p)));
    }
    await VirtualClock.settle();
    expect(control.status()).toMatchObject({ perModel: { a: 1 }, waiting: 6 });
    first!.release({ outcome: 'failed' });
    for (let i = 0; i < 6; i++) {
      await VirtualClock.settle();
      granted[i]!.release({ outcome: 'failed' });
    }
    expect(order).toEqual(['b1', 'a1', 'b2', 'a2', 'a3', 'a4']);
  });

  it('a fixed controller never adapts', async () => {
    const control = fixedRateControl(3, { provider: 'p' });
    for (const p of await take(control, 3)) p.release(limited);
    for (let i = 0; i < 20; i++) for (const p of await take(control, 3)) p.release(answered);
    expect(control.status()).toMatchObject({ limit: 3, pacing: 'fixed', episodes: 1, rateLimited: 3 });
  });

  it('refuses bounds out of order', () => {
    expect(() => createRateController({ provider: 'p', min: 5, start: 4, max: 10 })).toThrow(/min <= start <= max/);
    expect(() => createRateController({ provider: 'p', min: 0, start: 4, max: 10 })).toThrow(/positive whole number/);
  });
});

describe('Retry-After is the retried call\'s wait, never the controller\'s cool-down', () => {
  it('under a 429 with Retry-After 60 s on every call for two simulated minutes, walks down to min within its own cool-downs and recovers afterwards', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 4, start: 20, max: 100, clock });
    const provider = new QuotaProvider(clock, { retryAfterS: 60, refuseUntilMs: 120_000 });
    const calls: Promise<number>[] = [];
    let atMin: number | null = null;
    let aboveMinInStorm = false;
    let highestAfter = 0;
    const arrivals = (async () => {
      // A steady stream of new calls, 20 a second, each answered in 1 s (20 in flight wanted), each retried after the 60 s it is asked to wait.
      while (clock.elapsed() < 240_000) {
        calls.push(call({ clock, control, provider, latencyMs: () => 1000 }));
        await clock.sleep(50);
      }
    })();
    await Promise.all([
      arrivals,
      clock.runUntil(600_000, (t) => {
        const { limit } = control.status();
        if (limit === 4 && atMin === null) atMin = t;
        if (atMin !== null && t < 120_000 && limit > 4) aboveMinInStorm = true;
        if (t > 120_000) highestAfter = Math.max(highestAfter, limit);
      }),
    ]);
    await Promise.all(calls);
    // 20 -> 15 -> 11 -> 8 -> 6 -> 4: five cuts, one per cool-down (twice the 1 s latency), the first at the first reply.
    expect(atMin).not.toBeNull();
    expect(atMin!).toBeLessThanOrEqual(1000 + 4 * 2000 + 1000);
    expect(aboveMinInStorm).toBe(false);
    // It keeps treating the storm as episodes, at most one per cool-down (60 in the storm's 120 s), rather than freezing after one cut.
    expect(control.status().episodes).toBeGreaterThanOrEqual(30);
    expect(control.status().episodes).toBeLessThanOrEqual(61);
    // Once the 429s stop, additive increase brings it back past where it started, as the backlog asks.
    expect(highestAfter).toBeGreaterThan(20);
    expect(provider.answered).toBe(calls.length);
  });
});

describe('pacing from rate-limit headers', () => {
  const latencyMs = uniformMs(100, 300);

  it('a request quota (600 a minute): near the quota, few 429s, every call answered', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 4, start: 20, max: 100, clock });
    const provider = new QuotaProvider(clock, { rpm: 600 });
    await Promise.all([closedLoop({ clock, control, provider, latencyMs }, 80, 300_000), clock.runUntil(400_000)]);
    // The first minute spends the burst; the steady rate after it is the quota's.
    const perMinute = (provider.answered - 600) / 5;
    expect(perMinute / 600).toBeGreaterThan(0.85);
    expect(provider.rateLimited / (provider.answered + provider.rateLimited)).toBeLessThan(0.05);
    expect(control.status().pacing).toBe('headers');
  });

  it('the same quota without headers draws more 429s (AIMD only finds it by hitting it)', async () => {
    const run = async (headers: boolean) => {
      const clock = new VirtualClock();
      const control = createRateController({ provider: 'p', min: 4, start: 20, max: 100, clock });
      const provider = new QuotaProvider(clock, { rpm: 600, headers });
      await Promise.all([closedLoop({ clock, control, provider, latencyMs }, 80, 300_000), clock.runUntil(400_000)]);
      return { share: provider.rateLimited / (provider.answered + provider.rateLimited), pacing: control.status().pacing };
    };
    const [paced, aimd] = [await run(true), await run(false)];
    expect(aimd.pacing).toBe('aimd');
    expect(paced.share * 3).toBeLessThan(aimd.share);
  });

  it('without headers, a quota of fewer calls than one latency holds (600 a minute at 100-300 ms, 2 in flight) is paced from the 429s: near it, few 429s', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 4, start: 20, max: 100, clock });
    const provider = new QuotaProvider(clock, { rpm: 600, headers: false, burst: 0.1 });
    let warm = { answered: 0, rateLimited: 0 };
    await Promise.all([
      closedLoop({ clock, control, provider, latencyMs: uniformMs(100, 300) }, 40, 600_000),
      clock.runUntil(700_000, (t) => void (t >= 120_000 && warm.answered === 0 && (warm = { answered: provider.answered, rateLimited: provider.rateLimited }))),
    ]);
    const [answered, refused] = [provider.answered - warm.answered, provider.rateLimited - warm.rateLimited];
    // Steady state, after two minutes: 8 minutes of the quota.
    expect(answered / 8 / 600).toBeGreaterThan(0.85);
    expect(refused / (answered + refused)).toBeLessThan(0.05);
    expect(control.status().pacing).toBe('aimd');
  });

  it('a token quota that binds before the request quota: tokens a minute near it', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 4, start: 20, max: 100, clock });
    const provider = new QuotaProvider(clock, { rpm: 10_000, tpm: 100_000 });
    await Promise.all([closedLoop({ clock, control, provider, latencyMs, tokens: 2000 }, 80, 300_000), clock.runUntil(400_000)]);
    const perMinute = (provider.tokensAnswered - 100_000) / 5;
    expect(perMinute / 100_000).toBeGreaterThan(0.85);
    expect(provider.rateLimited / (provider.answered + provider.rateLimited)).toBeLessThan(0.05);
  });

  it('without headers, a token quota over calls of very different sizes is paced in tokens once its 429s name it: near it, few 429s', async () => {
    // A sweep's calls come in runs of one size (planners, then leaves with growing transcripts): here 20 s of calls of
    // 1,000 tokens, then 20 s of 4,000 (mean 2,500), against 2.4M tokens a minute, about 960 calls a minute, under a
    // request quota twice that. A pace in requests holds back a run of small calls and lets a run of large ones through.
    const run = async (namesQuota: boolean) => {
      const clock = new VirtualClock();
      const size = () => (Math.floor(clock.elapsed() / 20_000) % 2 === 0 ? 1000 : 4000);
      const control = createRateController({ provider: 'p', min: 1, start: 8, max: 128, clock });
      const provider = new QuotaProvider(clock, { rpm: 1920, tpm: 2_400_000, headers: false, burst: 0.1, namesQuota });
      let warm = { tokens: 0, answered: 0, rateLimited: 0 };
      await Promise.all([
        closedLoop({ clock, control, provider, latencyMs: uniformMs(100, 300), tokens: size }, 40, 480_000),
        clock.runUntil(560_000, (t) => void (t >= 120_000 && warm.answered === 0 && (warm = { tokens: provider.tokensAnswered, answered: provider.answered, rateLimited: provider.rateLimited }))),
      ]);
      const refused = provider.rateLimited - warm.rateLimited;
      // Steady state, after two minutes: 6 minutes of the quota.
      return { share: (provider.tokensAnswered - warm.tokens) / 6 / 2_400_000, limited: refused / (provider.answered - warm.answered + refused) };
    };
    const [named, unnamed] = [await run(true), await run(false)];
    expect(named.share).toBeGreaterThan(0.85);
    expect(named.limited).toBeLessThan(0.05);
    // Words that name nothing leave the pace in requests: it still works, further from the quota.
    expect(unnamed.share).toBeLessThan(named.share);
  });

  it('without headers, two quotas that bind in turn (requests over small calls, tokens over large): each pace grows only while it is not the other that holds, so neither runs away', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 1, start: 8, max: 128, clock });
    // 1,000-token calls: the request quota binds (1,200 a minute, where tokens allow 2,400); 4,000-token calls: the
    // token quota binds (600 a minute).
    const provider = new QuotaProvider(clock, { rpm: 1200, tpm: 2_400_000, headers: false, burst: 0.1, namesQuota: true });
    // Two minutes of each size: long enough for a pace that grew while the other held to run far above its quota.
    const PHASE = 120_000;
    const size = () => (Math.floor(clock.elapsed() / PHASE) % 2 === 0 ? 1000 : 4000);
    let warm = { answered: 0, rateLimited: 0 };
    await Promise.all([
      closedLoop({ clock, control, provider, latencyMs: uniformMs(100, 300), tokens: size }, 40, 480_000),
      clock.runUntil(560_000, (t) => void (t >= 120_000 && warm.answered === 0 && (warm = { answered: provider.answered, rateLimited: provider.rateLimited }))),
    ]);
    const [answered, refused] = [provider.answered - warm.answered, provider.rateLimited - warm.rateLimited];
    // Half the time 1,200 a minute, half 600: 900 a minute if both quotas are met.
    expect(answered / 6 / 900).toBeGreaterThan(0.85);
    // 0.9 % here; 2.4 % when each pace grows whichever holds (the request pace climbs through every token phase and
    // meets its quota far too high).
    expect(refused / (answered + refused)).toBeLessThan(0.015);
  });

  it('garbage headers are ignored: it stays on AIMD and its figures stay numbers', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 1, start: 2, max: 4, clock });
    const headers = new Headers({ 'x-ratelimit-limit-requests': 'NaN', 'x-ratelimit-remaining-requests': '-3', 'x-ratelimit-limit-tokens': '1e400', 'x-ratelimit-remaining-tokens': 'lots' });
    for (const p of await take(control, 2)) p.release({ outcome: 'answered', headers, tokens: Number.NaN });
    const status = control.status();
    expect(status.pacing).toBe('aimd');
    expect(Object.values(status).every((v) => typeof v !== 'number' || Number.isFinite(v))).toBe(true);
  });
});
