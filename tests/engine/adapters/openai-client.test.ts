import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ModelConfigurationError,
  ModelQuotaExhaustedError,
  ModelRateLimitedError,
  ModelResponseInvalidError,
  ModelUnavailableError,
  OpenAIModelClient,
  type ModelRequest,
  type OpenAIModelClientOptions,
} from '../../../engine/index.js';
import { ChatServer, completion, type Responder } from '../../support/chat-server.js';
import { FakeClock } from '../../support/fake-clock.js';

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'test-model', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, messages: [{ role: 'user', content: 'hi' }], ...extra,
});

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function clientFor(responder: Responder, options: Partial<OpenAIModelClientOptions> = {}) {
  await server?.stop();
  server = new ChatServer(responder);
  const baseURL = await server.start();
  // A fake clock: backoff sleeps take no real time.
  return new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', maxRetries: 2, clock: new FakeClock(), random: () => 0.5, ...options });
}

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error('expected the call to fail'); }, (e: unknown) => e as Error);

describe('OpenAIModelClient against a local chat-completions server', () => {
  it('sends tools and reads tool calls, usage and cached tokens', async () => {
    const client = await clientFor(() => ({
      body: completion({
        toolCalls: [{ id: 'c1', name: 'write_file', arguments: '{"path":"a.py","content":"x"}' }],
        usage: { prompt_tokens: 1200, completion_tokens: 30, cached_tokens: 1024 },
        model: 'test-model-2026-01-01',
      }),
    }));
    const out = await client.complete(
      request({
        tools: [{ name: 'write_file', description: 'write', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, toolCalls: [{ id: 'c0', name: 'list_files', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c0', content: 'a.py' },
        ],
        maxTokens: 500,
      }),
    );
    expect(out).toEqual({
      content: null,
      toolCalls: [{ id: 'c1', name: 'write_file', arguments: '{"path":"a.py","content":"x"}' }],
      usage: { inputTokens: 1200, outputTokens: 30, cachedTokens: 1024 },
      usageNote: null,
      model: 'test-model-2026-01-01',
      finishReason: 'tool_calls',
    });
    const sent = server!.requests[0]!.body;
    expect(sent.max_tokens).toBe(500);
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'write_file', description: 'write', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]);
    expect(sent.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'list_files', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c0', content: 'a.py' },
    ]);
  });

  it('honours a short Retry-After on a 429 and then succeeds', async () => {
    let n = 0;
    const clock = new FakeClock();
    const client = await clientFor(() => (++n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down', type: 'rate_limit' } } } : { body: completion({ content: 'ok' }) }), { clock });
    const out = await client.complete(request());
    expect(out.content).toBe('ok');
    expect(server!.requests).toHaveLength(2);
    expect(clock.slept).toEqual([1000]);
  });

  it('raises a rate-limit error carrying Retry-After once retries run out', async () => {
    const client = await clientFor(() => ({ status: 429, headers: { 'retry-after-ms': '20' }, body: { error: { message: 'slow down' } } }), { maxRetries: 1 });
    const error = await failureOf(client.complete(request()));
    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect((error as ModelRateLimitedError).retryAfterMs).toBe(20);
    expect(server!.requests).toHaveLength(2);
  });

  it('does not sleep through a Retry-After longer than its cap: it ends the call at once, carrying the wait', async () => {
    const slept: number[] = [];
    const clock = { now: () => new Date(), sleep: async (ms: number) => void slept.push(ms) };
    const client = await clientFor(() => ({ status: 429, headers: { 'retry-after': '3600' }, body: { error: { message: 'come back in an hour' } } }), { serverWaits: { maxMs: 60_000 }, clock });
    const error = await failureOf(client.complete(request()));
    expect(slept).toEqual([]);
    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect((error as ModelRateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(server!.requests).toHaveLength(1);
  });

  it('tells exhausted quota apart from a rate limit', async () => {
    const client = await clientFor(() => ({ status: 429, body: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } } }), { maxRetries: 0 });
    await expect(client.complete(request())).rejects.toBeInstanceOf(ModelQuotaExhaustedError);
  });

  it('retries a 500 and reports the model unavailable when it persists', async () => {
    let n = 0;
    const flaky = await clientFor(() => (++n === 1 ? { status: 500, body: { error: { message: 'boom' } } } : { body: completion({ content: 'recovered' }) }));
    expect((await flaky.complete(request())).content).toBe('recovered');
    const dead = await clientFor(() => ({ status: 503, headers: { 'retry-after-ms': '1' }, body: { error: { message: 'down' } } }), { maxRetries: 1 });
    await expect(dead.complete(request())).rejects.toBeInstanceOf(ModelUnavailableError);
  });

  it('turns a malformed body into a clear error instead of a crash later', async () => {
    const notJson = await clientFor(() => ({ body: '{"choices": [' }));
    await expect(notJson.complete(request())).rejects.toBeInstanceOf(ModelResponseInvalidError);
    const noChoices = await clientFor(() => ({ body: { id: 'x', object: 'chat.completion', model: 'm' } }));
    await expect(noChoices.complete(request())).rejects.toThrowErrorMatchingInlineSnapshot(`[ModelResponseInvalidError: model test-model sent a malformed response: no choices[0].message in the body]`);
  });

  it('names the configuration when the key is refused, printing the status once', async () => {
    const client = await clientFor(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }));
    const error = await failureOf(client.complete(request()));
    expect(error).toBeInstanceOf(ModelConfigurationError);
    expect(error.message).toMatchInlineSnapshot(`"model test-model refused the request: HTTP 401 (invalid_request_error/invalid_api_key): Incorrect API key provided. Check the base URL, the API key variable and the model id."`);
    expect(server!.requests).toHaveLength(1);
  });

  it('asks for a JSON object when a structured reply is wanted', async () => {
    const client = await clientFor(() => ({ body: completion({ content: '{"a":1}' }) }));
    await client.complete(request({ json: true }));
    expect(server!.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });
});

describe('OpenAIModelClient against a server that misbehaves', () => {
  it('cuts off a server that sends headers and half a body, at the deadline, and closes the socket', async () => {
    const client = await clientFor(() => ({ body: completion({ content: 'never finished' }), cut: { after: 40, then: 'stall' } }), { callDeadlineMs: 300, maxRetries: 0 });
    const started = Date.now();
    const error = await failureOf(client.complete(request()));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toBe('model test-model is unavailable: no complete reply within 300 ms');
    await server!.socketsClosed();
  }, 15_000);

  it('retries a connection reset mid-body as a network failure, not a malformed reply', async () => {
    let n = 0;
    const client = await clientFor(() => (++n === 1 ? { body: completion({ content: 'half' }), cut: { after: 30, then: 'reset' } } : { body: completion({ content: 'whole' }) }));
    expect((await client.complete(request())).content).toBe('whole');
    expect(server!.requests).toHaveLength(2);
    const broken = await clientFor(() => ({ body: completion({ content: 'half' }), cut: { after: 30, then: 'reset' } }), { maxRetries: 0 });
    const error = await failureOf(broken.complete(request()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toMatch(/connection failed or dropped mid-reply/);
  });

  it('surfaces an error object in a 200 with its class, and retries a server_error', async () => {
    let n = 0;
    const client = await clientFor(() =>
      ++n === 1 ? { body: { error: { message: 'upstream overloaded', type: 'server_error', code: 502 } } } : { body: completion({ content: 'second time lucky' }) },
    );
    expect((await client.complete(request())).content).toBe('second time lucky');
    const always = await clientFor(() => ({ body: { error: { message: 'provider returned error', type: 'server_error' } } }), { maxRetries: 1 });
    const error = await failureOf(always.complete(request()));
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error.message).toBe('model test-model is unavailable: a 200 reply carrying an error (server_error): provider returned error');
    expect(server!.requests).toHaveLength(2);
  });

  it('parses a JSON body served as text/plain and books its usage', async () => {
    const client = await clientFor(() => ({ headers: { 'content-type': 'text/plain' }, body: completion({ content: 'plain', usage: { prompt_tokens: 77, completion_tokens: 7 } }) }));
    const out = await client.complete(request());
    expect([out.content, out.usage.inputTokens, out.usage.outputTokens, out.usageNote]).toEqual(['plain', 77, 7, null]);
  });

  it('normalises tool-call arguments sent as an object, and passes other shapes on as text for the model to hear about', async () => {
    const client = await clientFor(() => ({
      body: {
        ...completion({ content: null }),
        choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [
          { id: 'a', type: 'function', function: { name: 'write_file', arguments: { path: 'x.py', content: 'y' } } },
          { id: 'b', type: 'function', function: { name: 'list_files', arguments: 42 } },
          { type: 'function', function: { name: 'list_files' } },
        ] } }],
      },
    }));
    const out = await client.complete(request());
    expect(out.toolCalls).toEqual([
      { id: 'a', name: 'write_file', arguments: '{"path":"x.py","content":"y"}' },
      { id: 'b', name: 'list_files', arguments: '42' },
      { id: 'call_2', name: 'list_files', arguments: '' },
    ]);
  });

  it('decodes tool-call arguments encoded twice, once, and leaves every other string as it came', async () => {
    const twice = JSON.stringify(JSON.stringify({ path: 'a.py' }));
    const cases = [twice, '"{\\"path\\": \\"a.py\\"}"', '{"path":"a.py"}', '"just a string"', JSON.stringify(JSON.stringify([1, 2])), JSON.stringify(JSON.stringify(JSON.stringify({ a: 1 }))), 'not json'];
    const client = await clientFor(() => ({
      body: {
        ...completion({ content: null }),
        choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: cases.map((a, i) => ({ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: a } })) } }],
      },
    }));
    const out = await client.complete(request());
    expect(out.toolCalls.map((c) => c.arguments)).toEqual([
      '{"path":"a.py"}',
      '{"path": "a.py"}',
      '{"path":"a.py"}',
      '"just a string"',
      JSON.stringify(JSON.stringify([1, 2])),
      JSON.stringify(JSON.stringify(JSON.stringify({ a: 1 }))),
      'not json',
    ]);
  });

  it('treats usage as data: missing is estimated, malformed is estimated, cached above input is clamped, each flagged', async () => {
    const reply = (usage: unknown) => async () => ({ body: { ...completion({ content: 'x'.repeat(400) }), usage } });
    const missing = await (await clientFor(reply(undefined))).complete(request({ messages: [{ role: 'user', content: 'y'.repeat(1000) }] }));
    expect(missing.usage.inputTokens).toBeGreaterThanOrEqual(500);
    expect(missing.usage.outputTokens).toBeGreaterThanOrEqual(200);
    expect(missing.usageNote).toBe('the reply reported no usage; charged the most the call could have cost: the prompt counted high plus the reply received counted high');
    expect(missing.usageUnreadable).toBe(true);
    const negative = await (await clientFor(reply({ prompt_tokens: -5, completion_tokens: 'many' }))).complete(request());
    expect(negative.usage.inputTokens).toBeGreaterThan(0);
    expect(negative.usage.outputTokens).toBeGreaterThanOrEqual(200);
    expect(negative.usageNote).toBe('malformed usage (inputTokens, outputTokens); charged the most the call could have cost: the prompt counted high plus the reply received counted high');
    expect(negative.usageUnreadable).toBe(true);
    const cached = await (await clientFor(reply({ prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 900 } }))).complete(request());
    expect(cached.usage).toEqual({ inputTokens: 100, outputTokens: 5, cachedTokens: 100 });
    expect(cached.usageNote).toBe('cached tokens (900) above input (100); clamped');
    expect(cached.usageUnreadable).toBeUndefined();
  });

  it('knows a reply cut off by the length limit as cut off', async () => {
    const client = await clientFor(() => ({ body: completion({ content: '{"checks": [', finishReason: 'length' }) }));
    expect((await client.complete(request())).finishReason).toBe('length');
  });

  it('never lets the key out: not in the message, the cause or the stack, even when the server echoes it', async () => {
    const key = `sk-proj-${'Zq9'.repeat(16)}`;
    server = new ChatServer(({ headers }) => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${String(headers.authorization).replace('Bearer ', '')}. Also tried ${key.slice(0, 12)}****${key.slice(-4)}.` } },
    }));
    const client = new OpenAIModelClient({ baseURL: await server.start(), apiKey: key });
    const error = await failureOf(client.complete(request()));
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    const everything = inspect(error, { depth: 20, showHidden: true }) + String(error.stack) + JSON.stringify(error);
    expect(everything).not.toContain(key.slice(8, 20));
    expect(error.message).toContain('[REDACTED');
  });

  it('redacts a configured key that has no vendor shape, by its value', async () => {
    const key = `gw_${'k3Yq'.repeat(10)}`;
    server = new ChatServer(() => ({ status: 403, body: { error: { message: `key ${key} may not use this model` } } }));
    const client = new OpenAIModelClient({ baseURL: await server.start(), apiKey: key });
    const error = await failureOf(client.complete(request()));
    expect(error.message).toBe('model test-model refused the request: HTTP 403: key [REDACTED known_value] may not use this model. Check the base URL, the API key variable and the model id.');
    expect(inspect(error, { depth: 20, showHidden: true })).not.toContain(key.slice(3, 15));
  });
});
