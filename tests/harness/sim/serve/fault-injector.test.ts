import { describe, expect, it } from 'vitest';
import { FaultPlan, type SimServer } from '../../../../harness/index.js';
import { callKey, latencyMs } from '../../../../harness/testing.js';
import { plannerCall, post, serve } from './serve-fixture.js';

const plan = (fields: Record<string, unknown>) => FaultPlan.parse({ version: 1, seed: 5, ...fields });

/**
 * Sends every call, `width` at a time, in the order given; returns the status each call got.
 * Drift-judge calls, whose SIMULATED answer is a constant: the cheapest reply, for bulk.
 */
async function sendAll(server: SimServer, sessions: string[], width: number): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  for (let i = 0; i < sessions.length; i += width) {
    await Promise.all(
      sessions.slice(i, i + width).map(async (session) => {
        const { body, identity } = plannerCall(session, { role: 'drift_judge' });
        statuses.set(session, (await post(server, body, identity)).status);
      }),
    );
  }
  return statuses;
}

const sessions = Array.from({ length: 500 }, (_, i) => `s${i}/planner/1`);
const limited = (statuses: Map<string, number>) => [...statuses].filter(([, status]) => status === 429).map(([session]) => session).sort();

describe('the fault plan over HTTP', () => {
  it('answers a seeded share of tries 429, the same calls whatever order and concurrency they arrive in', async () => {
    const faults = plan({ rate_limit: { share: 0.2, retry_after_s: 0.25 } });
    const forward = await serve(faults);
    const backward = await serve(faults);
    const reseeded = await serve({ ...faults, seed: 6 });
    try {
      const a = limited(await sendAll(forward, sessions, 25));
      const b = limited(await sendAll(backward, [...sessions].reverse(), 7));
      expect(a.length / sessions.length).toBeGreaterThan(0.14);
      expect(a.length / sessions.length).toBeLessThan(0.26);
      expect(b).toEqual(a);
      // Another seed, other calls refused (a hundred calls show it).
      expect(limited(await sendAll(reseeded, sessions.slice(0, 100), 25))).not.toEqual(a.filter((session) => sessions.indexOf(session) < 100));
      expect(forward.stats().rateLimited.drawn).toBe(a.length);
    } finally {
      await Promise.all([forward.stop(), backward.stop(), reseeded.stop()]);
    }
  });

  it('sends Retry-After (fractional seconds), retry-after-ms and a rate_limit_error body; a retry draws anew, and no call is answered twice', async () => {
    const server = await serve(plan({ rate_limit: { share: 0.5, retry_after_s: 0.25 } }));
    try {
      const refused = limited(await sendAll(server, sessions.slice(0, 40), 10));
      expect(refused.length).toBeGreaterThan(5);
      const { body, identity } = plannerCall(refused[0]!, { role: 'drift_judge' });
      let reply = await post(server, body, identity);
      for (let tries = 2; reply.status === 429 && tries < 30; tries++) {
        expect([reply.headers.get('retry-after'), reply.headers.get('retry-after-ms')]).toEqual(['0.25', '250']);
        expect(reply.json.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
        reply = await post(server, body, identity);
      }
      expect(reply.status).toBe(200);
      // Every refused call retried until answered: each is answered exactly once however often it was seen.
      for (const session of refused.slice(1)) {
        const call = plannerCall(session, { role: 'drift_judge' });
        while ((await post(server, call.body, call.identity)).status === 429);
      }
      const calls = Object.values(server.stats().calls);
      expect(calls).toHaveLength(40);
      expect(calls.every((c) => c.answered === 1)).toBe(true);
      expect(calls.some((c) => c.seen > 1)).toBe(true);
      expect(server.stats().calls[callKey('cap1-rep1-gated', refused[0]!, 2)]!.seen).toBeGreaterThan(1);
    } finally {
      await server.stop();
    }
  });

  it('draws each refusal\'s Retry-After from a [min, max] range, seeded by the try: varied, within the range, the same on another server with the seed', async () => {
    const faults = plan({ rate_limit: { share: 0.5, retry_after_s: [1, 3] } });
    const waits = async (server: SimServer) => {
      const out: string[] = [];
      for (const session of sessions.slice(0, 40)) {
        const { body, identity } = plannerCall(session, { role: 'drift_judge' });
        const reply = await post(server, body, identity);
        if (reply.status !== 429) continue;
        const [s, ms] = [Number(reply.headers.get('retry-after')), Number(reply.headers.get('retry-after-ms'))];
        expect(ms).toBe(Math.round(s * 1000));
        out.push(`${session} ${s}`);
      }
      return out;
    };
    const [a, b] = [await serve(faults), await serve(faults)];
    try {
      const first = await waits(a);
      expect(first.length).toBeGreaterThan(5);
      const seconds = first.map((w) => Number(w.split(' ')[1]));
      expect(seconds.every((x) => x >= 1 && x <= 3)).toBe(true);
      expect(new Set(seconds).size).toBeGreaterThan(first.length / 2);
      expect(await waits(b)).toEqual(first);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('reads a version-1 requests_per_minute as a bucket holding the whole minute, refilled continuously, with the wait until it holds one more', async () => {
    let now = 1_000_000;
    const server = await serve(plan({ limits: { requests_per_minute: 3 } }), { now: () => now });
    try {
      const replies = [];
      for (const session of sessions.slice(0, 5)) {
        replies.push(await post(server, plannerCall(session).body, plannerCall(session).identity));
        now += 1000;
      }
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      // Three taken by 1 002 000, refilled at one per 20 s: 0.2 by the fifth try at 1 004 000, one whole request 16 s later.
      expect(replies[4]!.headers.get('retry-after')).toBe('16');
      // Version 1 never sent rate-limit headers; it still does not.
      expect([...replies[4]!.headers.keys()].filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      now += 16_000 - 1000 - 1;
      expect((await post(server, plannerCall('early').body, plannerCall('early').identity)).status).toBe(429);
      now += 1;
      expect((await post(server, plannerCall('late').body, plannerCall('late').identity)).status).toBe(200);
      expect(server.stats().rateLimited.requestsPerMinute).toBe(3);
    } finally {
      await server.stop();
    }
  });

  it('charges an answered request the tokens its reply reports, and refuses the next until the refill pays the debt back', async () => {
    let now = 5_000_000;
    const server = await serve(plan({ limits: { tokens_per_minute: 1000 } }), { now: () => now });
    try {
      const first = await post(server, plannerCall('a').body, plannerCall('a').identity);
      const used = (first.json.usage as { total_tokens: number }).total_tokens;
      expect(used).toBeGreaterThan(1000);
      const second = await post(server, plannerCall('b').body, plannerCall('b').identity);
      expect([first.status, second.status]).toEqual([200, 429]);
      // The bucket is used - 1000 tokens in debt, plus the next prompt's reservation, refilled at 1000 a minute.
      const waitMs = Number(second.headers.get('retry-after-ms'));
      expect(waitMs).toBeGreaterThan(((used - 1000) * 60_000) / 1000);
      now += waitMs - 1;
      expect((await post(server, plannerCall('b').body, plannerCall('b').identity)).status).toBe(429);
      now += 1;
      expect((await post(server, plannerCall('b').body, plannerCall('b').identity)).status).toBe(200);
      expect(server.stats().rateLimited.tokensPerMinute).toBe(2);
    } finally {
      await server.stop();
    }
  });

  it('answers a 5xx burst for its window, by request count or by time', async () => {
    let now = 0;
    const server = await serve(plan({ windows: [{ fault: 'http_error', status: 503, after_requests: 2, for_requests: 3 }, { fault: 'http_error', status: 502, after_s: 100, for_s: 10 }] }), { now: () => now });
    try {
      const statuses = [];
      for (const session of sessions.slice(0, 6)) statuses.push((await post(server, plannerCall(session).body, plannerCall(session).identity)).status);
      expect(statuses).toEqual([200, 200, 503, 503, 503, 200]);
      const at = async (t: number) => ((now = t * 1000), (await post(server, plannerCall(`t${t}`).body, plannerCall(`t${t}`).identity)).status);
      // The timed burst runs from 100 s to 110 s after the start, whenever its first request came.
      expect([await at(99), await at(103), await at(109), await at(110)]).toEqual([200, 502, 502, 200]);
      expect(server.stats().serverErrors).toBe(5);
    } finally {
      await server.stop();
    }
  });

  it('refuses connections once an outage window opens after N requests, then listens again on the same port', async () => {
    const server = await serve(plan({ windows: [{ fault: 'outage', after_requests: 2, for_s: 0.3 }] }));
    try {
      const call = plannerCall('o');
      expect((await post(server, call.body, call.identity)).status).toBe(200);
      expect((await post(server, call.body, call.identity)).status).toBe(200);
      const refused = (await post(server, call.body, call.identity).catch((e: Error & { cause?: { code?: string } }) => e.cause?.code)) as unknown;
      expect(refused).toBe('ECONNREFUSED');
      // The window lasts 0.3 s: poll until the port answers again (a bound on waiting, not a measurement).
      let back = 0;
      for (let i = 0; i < 200 && !back; i++) {
        back = await post(server, call.body, call.identity).then((r) => r.status, () => 0);
        if (!back) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(back).toBe(200);
      expect(server.stats()).toMatchObject({ outagesEntered: 1, answered: 3 });
      expect(server.logged.join('\n')).toMatch(/outage \(window 1, after_requests\): connections to port \d+ refused for 0.3 s[\s\S]*outage over/);
    } finally {
      await server.stop();
    }
  });

  it('adds the planned latency before answering', async () => {
    const server = await serve(plan({ latency: { distribution: 'fixed', ms: 1000 } }));
    try {
      // The first call builds the cell's world, which can itself take a while on a busy machine; time the second.
      expect((await post(server, plannerCall('warm').body, plannerCall('warm').identity)).status).toBe(200);
      const started = Date.now();
      expect((await post(server, plannerCall('slow').body, plannerCall('slow').identity)).status).toBe(200);
      // A lower bound only: the delay must be there; how fast the rest is depends on the machine.
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    } finally {
      await server.stop();
    }
  });
});

describe('latency draws', () => {
  const t = (i: number, seen = 0) => ({ call: `cap1-rep1-gated/s${i}#2`, seen });
  it('draws each delay from its distribution, as a function of the try alone', () => {
    const uniform = FaultPlan.parse({ version: 1, seed: 1, latency: { distribution: 'uniform', min_ms: 10, max_ms: 50 } }).latency;
    const delays = Array.from({ length: 2000 }, (_, i) => latencyMs(uniform, 1, t(i)));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...delays)).toBeLessThanOrEqual(50);
    expect(latencyMs(uniform, 1, t(7))).toBe(delays[7]);
    expect(latencyMs(uniform, 1, t(7, 1))).not.toBe(delays[7]);
    const lognormal = FaultPlan.parse({ version: 1, seed: 1, latency: { distribution: 'lognormal', median_ms: 300, sigma: 0.5 } }).latency;
    const sorted = Array.from({ length: 2000 }, (_, i) => latencyMs(lognormal, 1, t(i))).sort((a, b) => a - b);
    expect(sorted[1000]! / 300).toBeGreaterThan(0.9);
    expect(sorted[1000]! / 300).toBeLessThan(1.1);
    expect(latencyMs(FaultPlan.parse({ version: 1, seed: 1, latency: { distribution: 'fixed', ms: 20 } }).latency, 1, t(0))).toBe(20);
  });
});
