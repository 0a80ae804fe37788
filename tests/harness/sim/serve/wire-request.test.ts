import { describe, expect, it } from 'vitest';
import { WORK_TOOLS, type ModelRequest, type ModelResponse } from '../../../../engine/index.js';
import { ChatCompletionBody, completionBody, requestFromWire } from '../../../../harness/testing.js';
import { EXECUTOR, engineBody, identityOf } from './serve-fixture.js';

const base = { model: EXECUTOR, role: 'worker', nodeId: 'root.2', sessionId: 'root.2/worker/1', attempt: 2, cellId: 'cap2-rep1-ungated' } as const;

/** What the engine's adapter sends, read back: it must be the request the engine made. */
async function roundTrip(request: ModelRequest): Promise<ModelRequest> {
  return requestFromWire(ChatCompletionBody.parse(await engineBody(request)), identityOf(request));
}

describe('the wire format read back (the inverse of the OpenAI adapter)', () => {
  it('gives back the ModelRequest the engine made: messages, tool calls, tool results, tools, max_tokens, json, identity', async () => {
    const requests: ModelRequest[] = [
      {
        ...base,
        arm: 'ungated',
        tools: WORK_TOOLS.map((t) => t.spec),
        maxTokens: 1234,
        messages: [
          { role: 'system', content: 'You build.' },
          { role: 'user', content: '## Task: root.2 — ünïcode too' },
          { role: 'assistant', content: null, toolCalls: [{ id: 'sim_0_0', name: 'write_file', arguments: '{"path":"a.py","content":"x"}' }, { id: 'sim_0_1', name: 'run_command', arguments: '{"command":"pytest"}' }] },
          { role: 'tool', toolCallId: 'sim_0_0', content: 'ok' },
          { role: 'tool', toolCallId: 'sim_0_1', content: 'exit 0\n1 passed' },
          { role: 'assistant', content: 'thinking aloud', toolCalls: [{ id: 'sim_1_0', name: 'finish', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'sim_1_0', content: 'done' },
          { role: 'assistant', content: 'no calls' },
        ],
      },
      { ...base, role: 'planner', nodeId: 'root', sessionId: 'root/planner/1', attempt: 1, json: true, temperature: 0, messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }] },
    ];
    for (const request of requests) expect(await roundTrip(request)).toEqual({ temperature: 0, ...request });
  });

  it('loses only what the adapter does not send: json beside tools (no response_format then), and an empty tool-call list', async () => {
    const request: ModelRequest = { ...base, json: true, tools: WORK_TOOLS.map((t) => t.spec).slice(0, 1), messages: [{ role: 'user', content: 'u' }, { role: 'assistant', content: null, toolCalls: [] }] };
    const back = await roundTrip(request);
    expect(back.json).toBeUndefined();
    expect(back.messages[1]).toEqual({ role: 'assistant', content: null });
  });

  it('reads content sent as text parts with cache breakpoints as the string they were cut from, and refuses other parts', async () => {
    const request: ModelRequest = { ...base, messages: [{ role: 'system', content: 'You build. The layout contract.' }, { role: 'user', content: '## Task: root.2' }, { role: 'assistant', content: 'done' }, { role: 'tool', toolCallId: 't', content: 'ok' }] };
    const wire = (await engineBody(request)) as { messages: Array<Record<string, unknown>> };
    const cut = (text: string, at: number) => [{ type: 'text', text: text.slice(0, at), cache_control: { type: 'ephemeral' } }, { type: 'text', text: text.slice(at) }];
    const parts = { ...wire, messages: wire.messages.map((m) => ({ ...m, content: cut(String(m.content), 3) })) };
    expect(requestFromWire(ChatCompletionBody.parse(parts), identityOf(request))).toEqual(requestFromWire(ChatCompletionBody.parse(wire), identityOf(request)));
    const image = { ...wire, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] };
    expect(ChatCompletionBody.safeParse(image).success).toBe(false);
    expect(ChatCompletionBody.safeParse({ ...wire, messages: [{ role: 'user', content: [] }] }).success).toBe(false);
  });

  it('writes a reply as a chat completion with usage always present', () => {
    const response: ModelResponse = { content: null, toolCalls: [{ id: 'c', name: 'finish', arguments: '{}' }], usage: { inputTokens: 10, outputTokens: 3, cachedTokens: 0 }, model: EXECUTOR, finishReason: 'tool_calls' };
    expect(completionBody(response, 'chatcmpl-sim-1', 1_700_000_000)).toMatchInlineSnapshot(`
      {
        "choices": [
          {
            "finish_reason": "tool_calls",
            "index": 0,
            "logprobs": null,
            "message": {
              "content": null,
              "refusal": null,
              "role": "assistant",
              "tool_calls": [
                {
                  "function": {
                    "arguments": "{}",
                    "name": "finish",
                  },
                  "id": "c",
                  "type": "function",
                },
              ],
            },
          },
        ],
        "created": 1700000000,
        "id": "chatcmpl-sim-1",
        "model": "sim-executor (SIMULATED)",
        "object": "chat.completion",
        "system_fingerprint": "rdh-sim",
        "usage": {
          "completion_tokens": 3,
          "prompt_tokens": 10,
          "prompt_tokens_details": {
            "cached_tokens": 0,
          },
          "total_tokens": 13,
        },
      }
    `);
  });
});
