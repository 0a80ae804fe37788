import { afterEach, describe, expect, it } from 'vitest';
import {
  AttemptOutcome,
  ModelUnavailableError,
  OpenAIModelClient,
  ProviderPatience,
  conservativeTokens,
  type ModelRequest,
  type OpenAIModelClientOptions,
} from '../../../engine/index.js';
import { ChatServer, completion, type Responder } from '../../support/chat-server.js';
import { FakeClock } from '../../support/fake-clock.js';

/**
 * What a call is charged when the figures cannot be trusted, over HTTP with the real SDK:
 * usage read leniently (numeric strings), the worst case when it cannot be read, and attempts
 * the server may have completed but whose reply never arrived.
 */

const PROMPT = [{ role: 'user' as const, content: 'p'.repeat(1000) }];
const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'test-model', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, messages: PROMPT, ...extra,
});
/** The prompt counted high, as every unreadable charge counts it. */
const PROMPT_TOKENS = conservativeTokens(JSON.stringify(PROMPT) + JSON.stringify([]));

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function clientFor(responder: Responder, options: Partial<OpenAIModelClientOptions> = {}) {
  await server?.stop();
  server = new ChatServer(responder);
  const outcomes: AttemptOutcome[] = [];
  const client = new OpenAIModelClient({ baseURL: await server.start(), apiKey: 'k', clock: new FakeClock(), random: () => 0.5, onAttempt: (o) => outcomes.push(o), ...options });
  return { client, outcomes };
}

/** A completion whose usage is the raw JSON text given (so 1e400 reaches the client as written). */
const rawUsage = (usage: string) => JSON.stringify({ ...completion({ content: 'x'.repeat(400) }), usage: '@' }).replace('"@"', usage);

describe('usage, read leniently and charged at worst when unreadable', () => {
  it('reads numeric strings as numbers', async () => {
    const { client } = await clientFor(() => ({ body: rawUsage('{"prompt_tokens": "1234", "completion_tokens": "56", "prompt_tokens_details": {"cached_tokens": "1000"}}') }));
    const out = await client.complete(request());
    expect(out.usage).toEqual({ inputTokens: 1234, outputTokens: 56, cachedTokens: 1000 });
    expect(out.usageNote).toBeNull();
    expect(out.usageUnreadable).toBeUndefined();
  });

  it.each(['"12.5"', '"-3"', '"abc"', '1e400', '" 12"', '12.5', '-3'])('does not read completion_tokens %s: charges maxTokens and flags the call', async (figure) => {
    const { client, outcomes } = await clientFor(() => ({ body: rawUsage(`{"prompt_tokens": 100, "completion_tokens": ${figure}}`) }));
    const out = await client.complete(request({ maxTokens: 3000 }));
    expect(out.usage).toEqual({ inputTokens: 100, outputTokens: 3000, cachedTokens: 0 });
    expect(out.usageUnreadable).toBe(true);
    expect(out.usageNote).toBe('malformed usage (outputTokens); charged the most the call could have cost: the prompt counted high plus maxTokens (3000)');
    expect(outcomes).toMatchObject([{ type: 'answered', usageUnreadable: true }]);
  });

  it('charges missing usage the prompt counted high plus maxTokens, else the output bound, else the reply counted high', async () => {
    const { client } = await clientFor(() => ({ body: { ...completion({ content: 'x'.repeat(400) }), usage: undefined } }));
    const withMax = await client.complete(request({ maxTokens: 3000, outputBound: 9000 }));
    expect(withMax.usage).toEqual({ inputTokens: PROMPT_TOKENS, outputTokens: 3000, cachedTokens: 0 });
    expect(withMax.usageNote).toBe('the reply reported no usage; charged the most the call could have cost: the prompt counted high plus maxTokens (3000)');
    const withBound = await client.complete(request({ outputBound: 9000 }));
    expect(withBound.usage.outputTokens).toBe(9000);
    expect(withBound.usageNote).toBe('the reply reported no usage; charged the most the call could have cost: the prompt counted high plus the output bound (9000)');
    const neither = await client.complete(request());
    expect(neither.usage.outputTokens).toBe(conservativeTokens('x'.repeat(400) + '[]'));
    expect([withMax, withBound, neither].map((r) => r.usageUnreadable)).toEqual([true, true, true]);
    // outputBound is the client's to read, never the endpoint's to see.
    expect(server!.requests.map((r) => r.body.max_tokens)).toEqual([3000, undefined, undefined]);
  });
});

describe('attempts the server may have completed but the client never received', () => {
  const stall = { body: completion({ content: 'never finished' }), cut: { after: 40, then: 'stall' as const } };
  const reset = { body: completion({ content: 'half' }), cut: { after: 30, then: 'reset' as const } };
  const whole = { body: completion({ content: 'whole', usage: { prompt_tokens: 700, completion_tokens: 20 } }) };

  it('counts a deadline passed mid-body and a connection dropped mid-body, charges each at worst, and keeps them out of usage', async () => {
    let n = 0;
    const { client, outcomes } = await clientFor(() => [stall, reset, whole][n++]!, { callDeadlineMs: 200 });
    const out = await client.complete(request({ maxTokens: 3000 }));
    expect(out.content).toBe('whole');
    expect(out.usage).toEqual({ inputTokens: 700, outputTokens: 20, cachedTokens: 0 });
    expect(out.unreceived).toEqual({ attempts: 2, usage: { inputTokens: 2 * PROMPT_TOKENS, outputTokens: 6000, cachedTokens: 0 } });
    expect(outcomes.map((o) => (o.type === 'lost' ? `lost:${o.reason}` : o.type))).toEqual(['lost:deadline', 'lost:dropped', 'answered']);
  }, 15_000);

  it('puts the same count on the error when the call finally fails', async () => {
    const { client } = await clientFor(() => stall, { callDeadlineMs: 100, patience: new ProviderPatience(1_000), provider: 'local' });
    const error = await client.complete(request({ outputBound: 500 })).then(() => null, (e: unknown) => e as ModelUnavailableError);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect(error!.unreceived).toEqual({ attempts: 3, usage: { inputTokens: 3 * PROMPT_TOKENS, outputTokens: 1500, cachedTokens: 0 } });
    expect(error!.message).toMatchInlineSnapshot(`"model test-model is unavailable: provider local has been failing for 1 s, which spends its patience of 1 s (attempt 3 of this call); last: no complete reply within 100 ms"`);
  }, 15_000);

  it('counts nothing for attempts the server answered (429, 5xx)', async () => {
    let n = 0;
    const { client } = await clientFor(() => [{ status: 429, body: { error: { message: 'slow' } } }, { status: 502, body: { error: { message: 'bad gateway' } } }, whole][n++]!);
    const out = await client.complete(request({ maxTokens: 3000 }));
    expect(out.unreceived).toBeUndefined();
  });
});
