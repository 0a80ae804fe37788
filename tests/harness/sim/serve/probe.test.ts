import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { CALL_HEADER, encodeCallHeader, type CallIdentity } from '../../../../engine/index.js';
import { FaultPlan, PROBE_CELL, type SimServer } from '../../../../harness/index.js';
import { promptText, promptTokens, requestFromWire, ChatCompletionBody } from '../../../../harness/testing.js';
import { EXECUTOR, post, serve } from './serve-fixture.js';

const probeIdentity: CallIdentity = { cell: PROBE_CELL, node: 'probe', role: 'worker', attempt: 1, session: 'probe/sim-executor' };
const tools = [
  { type: 'function' as const, function: { name: 'ping', description: 'answers pong', parameters: { type: 'object', properties: {} } } },
  { type: 'function' as const, function: { name: 'other', parameters: { type: 'object', properties: {} } } },
];
const messages = [{ role: 'user' as const, content: 'Reply with the single word: ok' }];

/** One probe call through the real openai SDK, as harness models sends it. */
function probe(server: SimServer, body: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming>) {
  const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
  return sdk.chat.completions.create({ model: EXECUTOR, messages, max_tokens: 1, ...body }, { headers: { [CALL_HEADER]: encodeCallHeader(probeIdentity) } });
}

describe('the probe answerer (cell probe, for harness models)', () => {
  it('calls the first tool offered with {}, writes {"ok": true} when asked for JSON, else "ok"; one token out, the prompt counted as the server counts it', async () => {
    const server = await serve();
    try {
      const withTools = await probe(server, { tools });
      expect(withTools.choices[0]!.finish_reason).toBe('tool_calls');
      expect(withTools.choices[0]!.message.tool_calls!.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : null))).toEqual([['ping', '{}']]);
      const json = await probe(server, { response_format: { type: 'json_object' } });
      expect(JSON.parse(json.choices[0]!.message.content!)).toEqual({ ok: true });
      const plain = await probe(server, {});
      expect(plain.choices[0]!.message.content).toBe('ok');
      const expected = promptTokens(promptText(requestFromWire(ChatCompletionBody.parse({ model: EXECUTOR, messages }), probeIdentity)));
      expect(plain.usage).toMatchObject({ prompt_tokens: expected, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0 } });
      expect(expected).toBeGreaterThan(5);
      // The probe builds no world and is counted like any call.
      expect(server.stats().answered).toBe(3);
    } finally {
      await server.stop();
    }
  });

  it('refuses tools with 400 when capabilities.tools is false, and JSON mode when capabilities.json_mode is false, as servers without them do', async () => {
    const server = await serve(FaultPlan.parse({ version: 2, seed: 1, capabilities: { tools: false, json_mode: false } }));
    try {
      const noTools = await probe(server, { tools }).catch((e: unknown) => e);
      expect(noTools).toBeInstanceOf(OpenAI.BadRequestError);
      expect((noTools as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'tools', code: 'unsupported_parameter', message: expect.stringMatching(/does not support tools/) });
      const noJson = await probe(server, { response_format: { type: 'json_object' } }).catch((e: unknown) => e);
      expect((noJson as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'response_format' });
      expect((await probe(server, {})).choices[0]!.message.content).toBe('ok');
      expect(server.stats()).toMatchObject({ answered: 1, badRequests: 2 });
    } finally {
      await server.stop();
    }
  });

  it('switches each capability off on its own', async () => {
    const server = await serve(FaultPlan.parse({ version: 2, seed: 1, capabilities: { json_mode: false } }));
    try {
      expect((await probe(server, { tools })).choices[0]!.message.tool_calls).toHaveLength(1);
      expect((await post(server, { model: EXECUTOR, messages, response_format: { type: 'json_object' } }, probeIdentity)).status).toBe(400);
    } finally {
      await server.stop();
    }
  });
});
