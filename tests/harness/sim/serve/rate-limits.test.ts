import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { CALL_HEADER, encodeCallHeader } from '../../../../engine/index.js';
import { FaultPlan, type SimServer } from '../../../../harness/index.js';
import { goDuration } from '../../../../harness/testing.js';
import { plannerCall, post, serve } from './serve-fixture.js';

const plan = (limits: Record<string, unknown>) => FaultPlan.parse({ version: 2, seed: 5, limits });
const judge = (session: string) => plannerCall(session, { role: 'drift_judge' });
const send = (server: SimServer, session: string) => post(server, judge(session).body, judge(session).identity);
const rateHeaders = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => name.startsWith('x-ratelimit-')));

describe('per-minute limits as token buckets with a burst allowance', () => {
  it('admits a burst of burst x the minute at once, then paces at the per-minute rate', async () => {
    let now = 0;
    const server = await serve(plan({ requests_per_minute: 600, burst: 0.1 }), { now: () => now });
    try {
      // A full bucket holds 60 requests: all answered at the same instant, the 61st refused.
      const burst = [];
      for (let i = 0; i < 61; i++) burst.push((await send(server, `b${i}`)).status);
      expect(burst.filter((s) => s === 200)).toHaveLength(60);
      expect(burst[60]).toBe(429);
      const refused = await send(server, 'wait');
      expect([refused.status, refused.headers.get('retry-after-ms')]).toEqual([429, '100']);
      // Then 10 a second: over 5 simulated seconds, tried every 20 ms, 50 are answered.
      let paced = 0;
      for (let t = 20; t <= 5000; t += 20) {
        now = t;
        if ((await send(server, `p${t}`)).status === 200) paced++;
      }
      expect(paced).toBe(50);
      expect(server.stats().rateLimited.requestsPerMinute).toBe(2 + 250 - 50);
    } finally {
      await server.stop();
    }
  });

  it('sends the x-ratelimit trio for requests and for tokens on every reply, 429s included: remaining falls, reset is the time to refill', async () => {
    let now = 0;
    const server = await serve(plan({ requests_per_minute: 60, tokens_per_minute: 100_000, burst: 0.05 }), { now: () => now });
    try {
      // Through the real openai SDK, as the engine reads them.
      const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
      const call = judge('sdk');
      const { data, response } = await sdk.chat.completions.create(call.body as never, { headers: { [CALL_HEADER]: encodeCallHeader(call.identity) } }).withResponse();
      const used = (data as OpenAI.Chat.Completions.ChatCompletion).usage!.total_tokens;
      // Capacity 3 requests (5% of 60) and 5,000 tokens; one of each refills in 1 s and 0.6 ms.
      expect(rateHeaders(response.headers)).toEqual({
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-remaining-requests': '2',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-limit-tokens': '100000',
        'x-ratelimit-remaining-tokens': String(5000 - used),
        'x-ratelimit-reset-tokens': goDuration(Math.ceil((used * 60_000) / 100_000)),
      });
      const second = await send(server, 's2');
      const third = await send(server, 's3');
      const fourth = await send(server, 's4');
      expect([second, third, fourth].map((r) => r.headers.get('x-ratelimit-remaining-requests'))).toEqual(['1', '0', '0']);
      expect([second, third, fourth].map((r) => r.headers.get('x-ratelimit-reset-requests'))).toEqual(['2s', '3s', '3s']);
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('1');
      expect(Number(third.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(Number(second.headers.get('x-ratelimit-remaining-tokens')));
      now = 1500;
      const later = await send(server, 's5');
      expect([later.status, later.headers.get('x-ratelimit-remaining-requests'), later.headers.get('x-ratelimit-reset-requests')]).toEqual([200, '0', '2.5s']);
    } finally {
      await server.stop();
    }
  });

  it('sends no x-ratelimit header with limits.headers false, and still Retry-After on a 429', async () => {
    const server = await serve(plan({ requests_per_minute: 60, tokens_per_minute: 100_000, burst: 0.02, headers: false }), { now: () => 0 });
    try {
      const [first, second] = [await send(server, 'h1'), await send(server, 'h2')];
      expect([first.status, second.status]).toEqual([200, 429]);
      expect([rateHeaders(first.headers), rateHeaders(second.headers)]).toEqual([{}, {}]);
      expect(second.headers.get('retry-after')).toBe('1');
    } finally {
      await server.stop();
    }
  });

  it('sends no x-ratelimit header without limits, the default server as before', async () => {
    const server = await serve(FaultPlan.parse({ version: 2, seed: 1 }));
    try {
      expect(rateHeaders((await send(server, 'n')).headers)).toEqual({});
    } finally {
      await server.stop();
    }
  });

  it('writes durations as OpenAI does (Go durations)', () => {
    expect([0, 120, 999, 1000, 1500, 20_002, 60_000, 360_000, 3_723_000].map(goDuration)).toEqual(['0s', '120ms', '999ms', '1s', '1.5s', '20.002s', '1m0s', '6m0s', '1h2m3s']);
  });
});
