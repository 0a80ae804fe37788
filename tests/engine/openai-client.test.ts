import { afterEach, describe, expect, it } from 'vitest';
import {
  ModelConfigurationError,
  ModelQuotaExhaustedError,
  ModelRateLimitedError,
  ModelResponseInvalidError,
  ModelUnavailableError,
  OpenAIModelClient,
  type ModelRequest,
} from '../../engine/index.js';
import { ChatServer, completion } from '../support/chat-server.js';

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'test-model', role: 'worker', sessionId: 's', nodeId: 'root', messages: [{ role: 'user', content: 'hi' }], ...extra,
});

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function clientFor(responder: ConstructorParameters<typeof ChatServer>[0], maxRetries = 2) {
  server = new ChatServer(responder);
  const baseURL = await server.start();
  return new OpenAIModelClient({ baseURL, apiKey: 'test-key', maxRetries });
}

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
      }),
    );
    expect(out).toEqual({
      content: null,
      toolCalls: [{ id: 'c1', name: 'write_file', arguments: '{"path":"a.py","content":"x"}' }],
      usage: { inputTokens: 1200, outputTokens: 30, cachedTokens: 1024 },
      model: 'test-model-2026-01-01',
      finishReason: 'tool_calls',
    });
    const sent = server!.requests[0]!.body;
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'write_file', description: 'write', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]);
    expect(sent.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'list_files', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c0', content: 'a.py' },
    ]);
  });

  it('honours Retry-After on a 429 and then succeeds', async () => {
    let n = 0;
    const client = await clientFor(() => (++n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down', type: 'rate_limit' } } } : { body: completion({ content: 'ok' }) }));
    const out = await client.complete(request());
    expect(out.content).toBe('ok');
    const [first, second] = server!.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('raises a rate-limit error carrying Retry-After once retries run out', async () => {
    const client = await clientFor(() => ({ status: 429, headers: { 'retry-after-ms': '20' }, body: { error: { message: 'slow down' } } }), 1);
    const error = await client.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect((error as ModelRateLimitedError).retryAfterMs).toBe(20);
    expect(server!.requests).toHaveLength(2);
  });

  it('tells exhausted quota apart from a rate limit', async () => {
    const client = await clientFor(() => ({ status: 429, body: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } } }), 0);
    await expect(client.complete(request())).rejects.toBeInstanceOf(ModelQuotaExhaustedError);
  });

  it('retries a 500 and reports the model unavailable when it persists', async () => {
    let n = 0;
    const flaky = await clientFor(() => (++n === 1 ? { status: 500, body: { error: { message: 'boom' } } } : { body: completion({ content: 'recovered' }) }));
    expect((await flaky.complete(request())).content).toBe('recovered');
    await server!.stop();
    const dead = await clientFor(() => ({ status: 503, headers: { 'retry-after-ms': '1' }, body: { error: { message: 'down' } } }), 1);
    await expect(dead.complete(request())).rejects.toBeInstanceOf(ModelUnavailableError);
  });

  it('turns a malformed body into a clear error instead of a crash later', async () => {
    const notJson = await clientFor(() => ({ body: '{"choices": [' }));
    await expect(notJson.complete(request())).rejects.toBeInstanceOf(ModelResponseInvalidError);
    await server!.stop();
    const noChoices = await clientFor(() => ({ body: { id: 'x', object: 'chat.completion', model: 'm' } }));
    await expect(noChoices.complete(request())).rejects.toThrowErrorMatchingInlineSnapshot(`[ModelResponseInvalidError: model test-model sent a malformed response: no choices[0].message in the body]`);
  });

  it('names the configuration when the key is refused', async () => {
    const client = await clientFor(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided' } } }));
    await expect(client.complete(request())).rejects.toBeInstanceOf(ModelConfigurationError);
  });

  it('asks for a JSON object when a structured reply is wanted', async () => {
    const client = await clientFor(() => ({ body: completion({ content: '{"a":1}' }) }));
    await client.complete(request({ json: true }));
    expect(server!.requests[0]!.body.response_format).toEqual({ type: 'json_object' });
  });
});
