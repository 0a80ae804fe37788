import { afterEach, describe, expect, it } from 'vitest';
import {
  AttemptOutcome,
  ModelConfigurationError,
  ModelQuotaExhaustedError,
  ModelRateLimitedError,
  ModelUnavailableError,
  OpenAIModelClient,
  ProviderPatience,
  type ModelRequest,
  type OpenAIModelClientOptions,
} from '../../../engine/index.js';
import { ChatServer, completion, type Responder } from '../../support/chat-server.js';
import { FakeClock } from '../../support/fake-clock.js';

/**
 * The provider's patience, over HTTP with the real SDK and a fake clock: outages of minutes run
 * in milliseconds, and every sleep the client takes is on the record.
 */

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'test-model', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, messages: [{ role: 'user', content: 'hi' }], ...extra,
});

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** A client of a local server, on a fake clock without jitter, recording every attempt's outcome. */
async function setup(responder: Responder, options: Partial<OpenAIModelClientOptions> = {}) {
  server = new ChatServer(responder);
  const baseURL = await server.start();
  const clock = new FakeClock();
  const outcomes: AttemptOutcome[] = [];
  const client = new OpenAIModelClient({
    baseURL, apiKey: 'test-key-000000', provider: 'local', clock, random: () => 0.5,
    onAttempt: (o) => outcomes.push(AttemptOutcome.parse(o)), ...options,
  });
  return { client, clock, outcomes, server };
}

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error('expected the call to fail'); }, (e: unknown) => e as Error);
/** The message with the server's port, which changes from run to run, made stable. */
const portless = (message: string) => message.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');
const types = (outcomes: AttemptOutcome[]) => outcomes.map((o) => o.type);

// A client that never gives up would loop on the fake clock: fail in seconds, not at the suite's timeout.
describe('patience per provider: connection failures and 5xx are retried for as long as the provider may fail', { timeout: 10_000 }, () => {
  it('rides out a refused connection that comes back within the patience, and reports every attempt', async () => {
    const { client, clock, outcomes, server: s } = await setup(() => ({ body: completion({ content: 'back' }) }));
    await s.stop();
    clock.at(120_000, () => s.start(s.port));
    const out = await client.complete(request());
    expect(out.content).toBe('back');
    // Capped exponential backoff: 0.5 s doubling, at most 30 s (no jitter with random 0.5).
    expect(clock.slept).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(types(outcomes)).toEqual([...Array(9).fill('unavailable'), 'answered']);
    expect(outcomes[0]).toEqual({ type: 'unavailable', model: 'test-model', attempt: 1, at: '2026-01-01T00:00:00.000Z', status: null, retryAfterMs: null, waitMs: 500 });
    expect(outcomes.at(-1)).toEqual({ type: 'answered', model: 'test-model', attempt: 10, at: '2026-01-01T00:02:01.500Z', status: 200, usageUnreadable: false });
    // A refused connection never reached the server: nothing is owed for it.
    expect(out.unreceived).toBeUndefined();
    // The answer ended the outage.
    expect(client.patience.failingForMs(clock.now().getTime())).toBe(0);
  });

  it('gives up when the outage outlasts the patience, naming the provider, the model and how long', async () => {
    const { client, clock, outcomes, server: s } = await setup(() => ({ body: completion({ content: 'never' }) }));
    await s.stop();
    const error = await failureOf(client.complete(request()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(portless(error.message)).toMatchInlineSnapshot(`"model test-model is unavailable: provider local has been failing for 600 s, which spends its patience of 600 s (attempt 26 of this call); last: the connection failed or dropped mid-reply (connect ECONNREFUSED 127.0.0.1:PORT)"`);
    // The last sleep is cut to what was left, so the call ends at the patience, not past it.
    expect(clock.elapsed()).toBe(600_000);
    expect(outcomes).toHaveLength(26);
    expect(outcomes.at(-1)).toMatchObject({ type: 'unavailable', attempt: 26, waitMs: null });
  });

  it('shares the patience: a call made during the same outage gets what is left, not a fresh 600 s', async () => {
    const { client, clock, outcomes, server: s } = await setup(() => ({ body: completion({ content: 'never' }) }), { maxRetries: 3 });
    await s.stop();
    await failureOf(client.complete(request()));
    expect(clock.elapsed()).toBe(3_500);
    clock.advance(300_000);
    const second = new OpenAIModelClient({ baseURL: `http://127.0.0.1:${s.port}/v1`, apiKey: 'k', provider: 'local', clock, random: () => 0.5, patience: client.patience });
    const startedAt = clock.elapsed();
    const error = await failureOf(second.complete(request()));
    // The outage opened at 0 s; the second call, started at 303.5 s, ends when it reaches 600 s.
    expect(clock.elapsed()).toBe(600_000);
    expect(clock.elapsed() - startedAt).toBeLessThan(300_000);
    expect(error.message).toContain('provider local has been failing for 600 s, which spends its patience of 600 s');
    // Once spent, each later call makes one attempt (which could end the outage) and no more.
    const before = outcomes.length;
    await failureOf(client.complete(request()));
    expect(outcomes.length - before).toBe(1);
    // A success ends the outage: the next one gets the whole patience again.
    await s.start(s.port);
    await client.complete(request());
    expect(client.patience.leftMs(clock.now().getTime())).toBe(600_000);
  });

  it('retries a 5xx within the patience and reports each with its status', async () => {
    let n = 0;
    const { client, clock, outcomes } = await setup(() => (++n <= 3 ? { status: 503, body: { error: { message: 'overloaded' } } } : { body: completion({ content: 'ok' }) }));
    expect((await client.complete(request())).content).toBe('ok');
    expect(clock.slept).toEqual([500, 1000, 2000]);
    expect(outcomes.map((o) => [o.type, 'status' in o ? o.status : null])).toEqual([['unavailable', 503], ['unavailable', 503], ['unavailable', 503], ['answered', 200]]);
  });

  it('jitters the backoff by at most a quarter either way', async () => {
    const { client, clock, server: s } = await setup(() => ({ body: completion({ content: 'x' }) }), { random: Math.random, maxRetries: 12 });
    await s.stop();
    await failureOf(client.complete(request()));
    const base = [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000];
    clock.slept.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(base[i]! * 0.75);
      expect(ms).toBeLessThanOrEqual(base[i]! * 1.25);
    });
  });
});

describe('server-requested waits', { timeout: 10_000 }, () => {
  const limited = (seconds: number) => ({ status: 429, headers: { 'retry-after': String(seconds) }, body: { error: { message: 'slow down', type: 'rate_limit' } } });

  it('sleeps through a Retry-After that fits in the patience left, and reports the 429 with its wait', async () => {
    let n = 0;
    const { client, clock, outcomes } = await setup(() => (++n <= 2 ? limited(120) : { body: completion({ content: 'ok' }) }));
    expect((await client.complete(request())).content).toBe('ok');
    expect(clock.slept).toEqual([120_000, 120_000]);
    expect(outcomes[0]).toEqual({ type: 'rate_limited', model: 'test-model', attempt: 1, at: '2026-01-01T00:00:00.000Z', status: 429, retryAfterMs: 120_000, waitMs: 120_000 });
    expect(types(outcomes)).toEqual(['rate_limited', 'rate_limited', 'answered']);
  });

  it('ends the call at once, as rate limited, on a Retry-After beyond the patience left', async () => {
    let n = 0;
    const { client, clock, outcomes } = await setup(() => (++n === 1 ? limited(400) : limited(400)));
    const error = await failureOf(client.complete(request()));
    // 400 s fit in the first 600 s; the second 400 s did not fit in the 200 s left.
    expect(clock.slept).toEqual([400_000]);
    expect(server!.requests).toHaveLength(2);
    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect((error as ModelRateLimitedError).retryAfterMs).toBe(400_000);
    expect(error.message).toMatchInlineSnapshot(`"model test-model is rate limited (retry after 400000 ms): the server asked for a wait of 400 s, more than the 200 s left of the patience (provider local has been failing for 400 s of 600 s); HTTP 429 (rate_limit): slow down"`);
    expect(outcomes.at(-1)).toMatchObject({ type: 'rate_limited', retryAfterMs: 400_000, waitMs: null });
  });

  it('in { maxMs } mode (solve), ends the call at once on a wait longer than maxMs, although the patience would cover it', async () => {
    const { client, clock } = await setup(() => limited(120), { serverWaits: { maxMs: 60_000 } });
    const error = await failureOf(client.complete(request()));
    expect(clock.slept).toEqual([]);
    expect(server!.requests).toHaveLength(1);
    expect(error.message).toMatchInlineSnapshot(`"model test-model is rate limited (retry after 120000 ms): the server asked for a wait longer than the 60000 ms this client sleeps; HTTP 429 (rate_limit): slow down"`);
    const { client: patient, clock: patientClock } = await setup(() => (server!.requests.length === 1 ? limited(30) : { body: completion({ content: 'ok' }) }), { serverWaits: { maxMs: 60_000 } });
    expect((await patient.complete(request())).content).toBe('ok');
    expect(patientClock.slept).toEqual([30_000]);
  });
});

describe('refusals are never retried', { timeout: 10_000 }, () => {
  it.each([
    [401, { message: 'Incorrect API key provided', code: 'invalid_api_key' }, ModelConfigurationError, 'model_configuration'],
    [402, { message: 'You exceeded your current quota', code: 'insufficient_quota' }, ModelQuotaExhaustedError, 'model_quota_exhausted'],
    [404, { message: 'The model does not exist' }, ModelConfigurationError, 'model_configuration'],
    [429, { message: 'You exceeded your current quota', code: 'insufficient_quota' }, ModelQuotaExhaustedError, 'model_quota_exhausted'],
  ])('HTTP %i: exactly one request, fatal at once', async (status, error, kind, code) => {
    const { client, clock, outcomes } = await setup(() => ({ status, body: { error } }));
    await expect(client.complete(request())).rejects.toBeInstanceOf(kind);
    expect(server!.requests).toHaveLength(1);
    expect(clock.slept).toEqual([]);
    expect(outcomes).toEqual([{ type: 'refused', model: 'test-model', attempt: 1, at: '2026-01-01T00:00:00.000Z', status, code }]);
    // A refusal is not an outage: it spends none of the patience.
    expect(client.patience.failingForMs(clock.now().getTime())).toBe(0);
  });
});

describe('patience errors keep secrets out', { timeout: 10_000 }, () => {
  it('redacts a key the failing server echoes, in the patience message too', async () => {
    const key = `gw_${'k3Yq'.repeat(10)}`;
    const { client } = await setup(() => ({ status: 503, body: { error: { message: `upstream rejected ${key}` } } }), { apiKey: key, patience: new ProviderPatience(2_000) });
    const error = await failureOf(client.complete(request()));
    expect(error.message).toMatchInlineSnapshot(`"model test-model is unavailable: provider local has been failing for 2 s, which spends its patience of 2 s (attempt 4 of this call); last: HTTP 503: upstream rejected [REDACTED known_value]"`);
    expect(JSON.stringify(error) + String(error.stack)).not.toContain(key.slice(3, 15));
  });
});
