import { afterEach, describe, expect, it } from 'vitest';
import { createRateController, OpenAIModelClient, type AttemptReport, type CallPermit, type Clock, type ModelRequest, type RateControl } from '../../../engine/index.js';
import { ChatServer, completion, type ScriptedHttpReply } from '../../support/chat-server.js';

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'test-model', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, messages: [{ role: 'user', content: 'hi' }], maxTokens: 50, ...extra,
});

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** A RateControl that records what the client asked and reported, around a real controller. */
function recording(inner: RateControl) {
  const log: Array<{ acquired: { model: string; tokens: number } } | { released: AttemptReport }> = [];
  const control: RateControl = {
    status: () => inner.status(),
    async acquire(model, tokens) {
      log.push({ acquired: { model, tokens } });
      const permit = await inner.acquire(model, tokens);
      return { release: (report) => (log.push({ released: report }), permit.release(report)) } satisfies CallPermit;
    },
  };
  return { control, log };
}

describe('OpenAIModelClient under a rate controller', () => {
  it('takes a permit before every attempt and returns it, with outcome and headers, before sleeping the Retry-After', async () => {
    let n = 0;
    server = new ChatServer((): ScriptedHttpReply =>
      ++n === 1
        ? { status: 429, headers: { 'retry-after': '7', 'x-ratelimit-limit-requests': '600', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '100ms' }, body: { error: { message: 'slow down', type: 'rate_limit_exceeded' } } }
        : { headers: { 'x-ratelimit-limit-requests': '600', 'x-ratelimit-remaining-requests': '598', 'x-ratelimit-reset-requests': '200ms' }, body: completion({ content: 'ok', usage: { prompt_tokens: 12, completion_tokens: 3 } }) },
    );
    const baseURL = await server.start();
    const inner = createRateController({ provider: 'p', min: 1, start: 4, max: 8 });
    const { control, log } = recording(inner);
    const inFlightWhileSleeping: number[] = [];
    const clock: Clock = { now: () => new Date(), sleep: async (ms) => void inFlightWhileSleeping.push(ms, inner.status().inFlight) };
    const client = new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', maxRetries: 2, clock, rateControl: control });
    const out = await client.complete(request());
    expect(out.content).toBe('ok');
    // Slept the server's 7 s with no permit held.
    expect(inFlightWhileSleeping).toEqual([7000, 0]);
    expect(log.map((e) => ('acquired' in e ? 'acquire' : e.released.outcome))).toEqual(['acquire', 'rate_limited', 'acquire', 'answered']);
    const [first, , , last] = log as [{ acquired: { model: string; tokens: number } }, { released: AttemptReport }, unknown, { released: AttemptReport }];
    // Estimated at the prompt counted high plus maxTokens (below the first guess of 1,024); the answer reports what it used.
    expect(first.acquired.model).toBe('test-model');
    expect(first.acquired.tokens).toBeGreaterThan(50);
    expect(last.released.tokens).toBe(15);
    expect((log[1] as { released: AttemptReport }).released.headers?.get('retry-after')).toBe('7');
    expect(inner.status()).toMatchObject({ attempts: 2, rateLimited: 1, episodes: 1, pacing: 'headers', inFlight: 0 });
  });

  it('expects a permit to use the output its calls have been producing, not the whole bound (which would starve a token bucket)', async () => {
    server = new ChatServer(() => ({ body: completion({ content: 'ok', usage: { prompt_tokens: 12, completion_tokens: 30 } }) }));
    const baseURL = await server.start();
    const { control, log } = recording(createRateController({ provider: 'p', min: 1, start: 4, max: 8 }));
    const client = new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', rateControl: control });
    const big = request({ maxTokens: 200_000 });
    for (let i = 0; i < 3; i++) await client.complete(big);
    const asked = log.flatMap((e) => ('acquired' in e ? [e.acquired.tokens] : []));
    // Before any answer: the prompt counted high plus 1,024; after: the prompt plus the 30 the calls produced, never 200,000.
    expect(asked[0]).toBeGreaterThan(1024);
    expect(asked[0]).toBeLessThan(1100);
    expect(asked[2]).toBeLessThan(asked[0]! - 900);
    expect(Math.max(...asked)).toBeLessThan(200_000);
    // A bound below what calls produce still caps the expectation.
    const small = recording(createRateController({ provider: 'p', min: 1, start: 4, max: 8 }));
    await new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', rateControl: small.control }).complete(request({ maxTokens: 5 }));
    expect((small.log[0] as { acquired: { tokens: number } }).acquired.tokens).toBeLessThan(40);
  });

  it('returns the permit as failed when the attempt fails otherwise, so no slot leaks', async () => {
    server = new ChatServer(() => ({ status: 400, body: { error: { message: 'bad', type: 'invalid_request_error' } } }));
    const baseURL = await server.start();
    const inner = createRateController({ provider: 'p', min: 1, start: 1, max: 1 });
    const client = new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', maxRetries: 0, rateControl: inner });
    for (let i = 0; i < 3; i++) await expect(client.complete(request())).rejects.toThrow();
    expect(inner.status()).toMatchObject({ attempts: 3, inFlight: 0, rateLimited: 0 });
  });

  it("reports which quota a 429's words name, so the controller learns its pace in that unit", async () => {
    const words = ['Rate limit reached on tokens per min (TPM): Limit 30000', 'Rate limit reached on requests per min (RPM): Limit 500', 'slow down'];
    let n = 0;
    server = new ChatServer((): ScriptedHttpReply =>
      n < words.length ? { status: 429, headers: { 'retry-after-ms': '1' }, body: { error: { message: words[n++], type: 'rate_limit_exceeded' } } } : { body: completion({ content: 'ok', usage: { prompt_tokens: 12, completion_tokens: 3 } }) },
    );
    const baseURL = await server.start();
    const { control, log } = recording(createRateController({ provider: 'p', min: 1, start: 4, max: 8, coolDownMs: 0 }));
    const client = new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', maxRetries: 3, clock: { now: () => new Date(), sleep: async () => undefined }, rateControl: control });
    expect((await client.complete(request())).content).toBe('ok');
    const released = log.flatMap((e) => ('released' in e ? [e.released] : []));
    expect(released.map((r) => [r.outcome, r.limitedOn])).toEqual([['rate_limited', 'tokens'], ['rate_limited', 'requests'], ['rate_limited', undefined], ['answered', undefined]]);
  });
});
