import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CALL_HEADER, ModelRateLimitedError, OpenAIModelClient, ProviderPatience, type ModelRequest } from '../../../engine/index.js';
import { ProviderConfigInvalidError, clientsFromConfig, loadProviderConfig } from '../../../harness/index.js';
import { ChatServer, completion, type Responder } from '../../support/chat-server.js';
import { FakeClock } from '../../support/fake-clock.js';
import { scratch, yamlOf } from '../manifest/manifest-fixtures.js';

/** Clients built from the provider file: one patience per provider, its server-wait rule, its call header. */

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

const ENV = { A_KEY: 'key-a-0000', B_KEY: 'key-b-0000' };
let counter = 0;

async function providersFile(providers: Record<string, Record<string, unknown>>) {
  const config = {
    version: 1,
    providers,
    models: Object.fromEntries(Object.keys(providers).flatMap((p) => [[`${p}-one`, { provider: p, family: 'vendor-a' }], [`${p}-two`, { provider: p, family: 'vendor-b' }]])),
  };
  return loadProviderConfig(await tmp.write(`providers-${counter++}.yaml`, yamlOf(config)));
}

async function local(responder: Responder): Promise<string> {
  server = new ChatServer(responder);
  return server.start();
}

const request: ModelRequest = { model: 'm', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, cellId: 'd1-gated-r1', messages: [{ role: 'user', content: 'hi' }] };

describe('clientsFromConfig', () => {
  it('gives each provider one patience of its patience_s (default 600 s)', async () => {
    const loaded = await providersFile({ a: { base_url: 'https://a.example/v1', api_key_env: 'A_KEY', patience_s: 90 }, b: { base_url: 'https://b.example/v1', api_key_env: 'B_KEY' } });
    const clients = clientsFromConfig(loaded, ENV) as Record<string, OpenAIModelClient>;
    expect(Object.keys(clients)).toEqual(['a', 'b']);
    expect(clients.a!.patience).toBeInstanceOf(ProviderPatience);
    expect([clients.a!.patience.patienceMs, clients.b!.patience.patienceMs]).toEqual([90_000, 600_000]);
    expect(clients.a!.patience).not.toBe(clients.b!.patience);
  });

  it('refuses a patience_s that is not a positive number', async () => {
    await expect(providersFile({ a: { base_url: 'https://a.example/v1', api_key_env: 'A_KEY', patience_s: 0 } })).rejects.toBeInstanceOf(ProviderConfigInvalidError);
    await expect(providersFile({ a: { base_url: 'https://a.example/v1', api_key_env: 'A_KEY', patience: 5 } })).rejects.toBeInstanceOf(ProviderConfigInvalidError);
  });

  it('sends the call header to a loopback provider by default, and not when session_header is false', async () => {
    const baseURL = await local(() => ({ body: completion({ content: 'ok' }) }));
    const on = clientsFromConfig(await providersFile({ a: { base_url: baseURL, api_key_env: 'A_KEY' } }), ENV);
    const off = clientsFromConfig(await providersFile({ a: { base_url: baseURL, api_key_env: 'A_KEY', session_header: false } }), ENV);
    await on.a!.complete(request);
    await off.a!.complete(request);
    expect(server!.requests.map((r) => typeof r.headers[CALL_HEADER])).toEqual(['string', 'undefined']);
  });

  it('sleeps through a wait within the patience for a sweep, and ends the call on one above max_server_wait_s for solve', async () => {
    const baseURL = await local(() => (server!.requests.length % 2 === 1 ? { status: 429, headers: { 'retry-after': '120' }, body: { error: { message: 'slow' } } } : { body: completion({ content: 'ok' }) }));
    const loaded = await providersFile({ a: { base_url: baseURL, api_key_env: 'A_KEY', max_server_wait_s: 60 } });
    const sweepClock = new FakeClock();
    expect((await clientsFromConfig(loaded, ENV, { clock: sweepClock }).a!.complete(request)).content).toBe('ok');
    expect(sweepClock.slept).toEqual([120_000]);
    const solveClock = new FakeClock();
    await expect(clientsFromConfig(loaded, ENV, { serverWaits: 'max_server_wait', clock: solveClock }).a!.complete(request)).rejects.toBeInstanceOf(ModelRateLimitedError);
    expect(solveClock.slept).toEqual([]);
  });
});

describe('clientsFromConfig: cache_breakpoints', () => {
  it('sends cache_control breakpoints for a provider that says cache_breakpoints: true, and plain strings otherwise', async () => {
    const baseURL = await local(() => ({ body: completion({ content: 'ok' }) }));
    const marked: ModelRequest = { ...request, messages: [{ role: 'system', content: 'role prompt and spec', cacheBreak: 20 }, { role: 'user', content: 'task' }] };
    const on = clientsFromConfig(await providersFile({ a: { base_url: baseURL, api_key_env: 'A_KEY', cache_breakpoints: true } }), ENV);
    const off = clientsFromConfig(await providersFile({ a: { base_url: baseURL, api_key_env: 'A_KEY' } }), ENV);
    await on.a!.complete(marked);
    await off.a!.complete(marked);
    expect(server!.requests.map((r) => (r.body.messages as Array<{ content: unknown }>)[0]!.content)).toEqual([
      [{ type: 'text', text: 'role prompt and spec', cache_control: { type: 'ephemeral' } }],
      'role prompt and spec',
    ]);
  });
});
