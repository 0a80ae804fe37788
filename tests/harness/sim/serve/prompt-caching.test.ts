import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { CALL_HEADER, encodeCallHeader, priceOf, type CallIdentity, type ModelRequest, type ModelSpec } from '../../../../engine/index.js';
import { FaultPlan, PROBE_CELL, type SimServer } from '../../../../harness/index.js';
import { promptText, promptTokens } from '../../../../harness/testing.js';
import { EXECUTOR, REVIEWER, overHttp, post, serve } from './serve-fixture.js';

const caching = (extra: Record<string, unknown> = {}) => FaultPlan.parse({ version: 2, seed: 1, caching: { min_tokens: 1024, block_tokens: 128 }, ...extra });
const identity = (session: string): CallIdentity => ({ cell: PROBE_CELL, node: 'probe', role: 'worker', attempt: 1, session });
/** About `tokens` tokens of text (4 characters each) that no other call of this file shares, from its first character. */
const text = (tag: string, tokens: number) => `${tag}:`.padEnd(tokens * 4, ` ${tag} the layout contract and the spec`);

/** A probe call through the real openai SDK: a long system prompt, then a short question. */
async function ask(server: SimServer, system: string, question: string, session = question, model = EXECUTOR) {
  const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
  const reply = await sdk.chat.completions.create(
    { model, messages: [{ role: 'system', content: system }, { role: 'user', content: question }], max_tokens: 1 },
    { headers: { [CALL_HEADER]: encodeCallHeader(identity(session)) } },
  );
  return { prompt: reply.usage!.prompt_tokens, cached: reply.usage!.prompt_tokens_details!.cached_tokens! };
}

describe('prompt caching by longest common prefix', () => {
  it('serves an identical 2,000-token prefix from cache the second time: whole 128-token blocks, at least 1,024, never above the prompt', async () => {
    const server = await serve(caching());
    try {
      const system = text('same', 2000);
      const first = await ask(server, system, 'first question');
      const second = await ask(server, system, 'second question');
      expect(first.cached).toBe(0);
      expect(second.cached % 128).toBe(0);
      expect(second.cached).toBeGreaterThanOrEqual(1024);
      expect(second.cached).toBeLessThanOrEqual(second.prompt);
      // The shared prefix is the tools and the system message, so all its whole blocks but the one the question changes.
      expect(second.cached).toBeGreaterThanOrEqual(Math.floor(first.prompt / 128) * 128 - 128);
      expect(server.stats().tokens).toMatchObject({ cached: second.cached, prompt: first.prompt + second.prompt });
    } finally {
      await server.stop();
    }
  });

  it('serves nothing from cache when the first message changes (negative control), below 1,024 tokens, for another model, or without caching', async () => {
    const server = await serve(caching());
    const plain = await serve(FaultPlan.parse({ version: 2, seed: 1 }));
    try {
      await ask(server, text('a', 2000), 'q1');
      expect((await ask(server, text('b', 2000), 'q2')).cached).toBe(0);
      expect((await ask(server, text('a', 2000), 'q3', 'q3', REVIEWER)).cached).toBe(0);
      await ask(server, text('short', 900), 'q4');
      const short = await ask(server, text('short', 900), 'q5');
      expect([short.cached, short.prompt > 900]).toEqual([0, true]);
      await ask(plain, text('a', 2000), 'q1');
      expect((await ask(plain, text('a', 2000), 'q2')).cached).toBe(0);
      expect(plain.stats().tokens.cached).toBe(0);
      // And the positive case on the same server, so the controls above are not vacuous.
      expect((await ask(server, text('a', 2000), 'q6')).cached).toBeGreaterThanOrEqual(1024);
    } finally {
      await Promise.all([server.stop(), plain.stop()]);
    }
  });

  it('caches a prefix only once a request with it was answered: a 429 leaves nothing behind', async () => {
    let now = 0;
    const server = await serve(caching({ limits: { requests_per_minute: 60, burst: 0.01 } }), { now: () => now });
    try {
      await ask(server, text('other', 100), 'q0');
      const refused = await post(server, { model: EXECUTOR, messages: [{ role: 'system', content: text('kept', 2000) }, { role: 'user', content: 'q1' }] }, identity('q1'));
      expect(refused.status).toBe(429);
      now += 1000;
      expect((await ask(server, text('kept', 2000), 'q2')).cached).toBe(0);
      now += 1000;
      expect((await ask(server, text('kept', 2000), 'q3')).cached).toBeGreaterThanOrEqual(1024);
    } finally {
      await server.stop();
    }
  });

  it('keeps at most max_blocks blocks, least recently used dropped first', async () => {
    const server = await serve(caching({ caching: { max_blocks: 20 } }));
    try {
      await ask(server, text('one', 2000), 'q1');
      expect((await ask(server, text('one', 2000), 'q2')).cached).toBeGreaterThan(0);
      // Another 15 blocks push the first prompt's out of a 20-block store.
      await ask(server, text('two', 2000), 'q3');
      expect((await ask(server, text('one', 2000), 'q4')).cached).toBe(0);
    } finally {
      await server.stop();
    }
  });

  it('caches the population\'s own calls too, counting their prompt as the server does, and the engine prices the cached share at the cached rate', async () => {
    const server = await serve(caching());
    try {
      const planner = (session: string): ModelRequest => ({
        cellId: 'cap1-rep1-gated', attempt: 1, model: EXECUTOR, role: 'planner', nodeId: 'root', sessionId: session, json: true,
        messages: [{ role: 'system', content: text('planner', 3000) }, { role: 'user', content: '## Task: Build sqlcsv' }],
      });
      const first = await overHttp(server, planner('root/planner/1'));
      const second = await overHttp(server, planner('root/planner/2'));
      expect(first.usage.inputTokens).toBe(promptTokens(promptText(planner('root/planner/1'))));
      expect([first.usage.cachedTokens, second.usage.cachedTokens >= 2048]).toEqual([0, true]);
      expect(JSON.parse(second.content!).mode).toBe('split');
      const spec: ModelSpec = { name: 'x', model: EXECUTOR, endpoint: 'e', family: 'f', tier: 'medium', prices: { input: 10, output: 0, cachedInput: 1 } };
      const fresh = second.usage.inputTokens - second.usage.cachedTokens;
      expect(priceOf(spec, { ...second.usage, outputTokens: 0 })).toBeCloseTo((fresh * 10 + second.usage.cachedTokens) / 1e6, 12);
    } finally {
      await server.stop();
    }
  });
});

describe('content as text parts with cache_control, as clients that send breakpoints write it', () => {
  it('is answered over HTTP exactly as the same text sent as one string, cached prefix included', async () => {
    const server = await serve(caching());
    try {
      const system = text('parts', 2000);
      const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
      const send = (content: string | Array<Record<string, unknown>>, session: string) =>
        sdk.chat.completions.create(
          { model: EXECUTOR, messages: [{ role: 'system', content: content as never }, { role: 'user', content: 'q' }], max_tokens: 1 },
          { headers: { [CALL_HEADER]: encodeCallHeader(identity(session)) } },
        );
      const asString = await send(system, 's1');
      const asParts = await send([{ type: 'text', text: system.slice(0, 4000), cache_control: { type: 'ephemeral' } }, { type: 'text', text: system.slice(4000) }], 's2');
      expect(asParts.choices[0]!.message.content).toBe('ok');
      expect(asParts.usage!.prompt_tokens).toBe(asString.usage!.prompt_tokens);
      // The whole prompt is the same text, so every whole block of it is cached.
      expect(asParts.usage!.prompt_tokens_details!.cached_tokens).toBe(Math.floor(asString.usage!.prompt_tokens / 128) * 128);
    } finally {
      await server.stop();
    }
  });
});
