import type { ModelRequest, ModelResponse } from '../../../engine/index.js';
import { promptText, promptTokens } from './prompt-text.js';

/**
 * Answers the capability probe of `harness models` (calls naming cell `probe`): a generic
 * SIMULATED model that does the least each probe asks for, whatever the manifest. Offered
 * tools, it calls the first with `{}`; asked for JSON, it writes `{"ok": true}`; else "ok".
 * One completion token always; prompt tokens counted as the server counts any prompt
 * (characters / 4, prompt-text.ts), so a repeated long prefix shows in cached_tokens when
 * caching is on.
 */
export async function answerProbe(request: ModelRequest): Promise<ModelResponse> {
  const usage = { inputTokens: promptTokens(promptText(request)), outputTokens: 1, cachedTokens: 0 };
  const tool = request.tools?.[0];
  if (tool) return { content: null, toolCalls: [{ id: 'call_probe_1', name: tool.name, arguments: '{}' }], usage, model: request.model, finishReason: 'tool_calls' };
  return { content: request.json ? '{"ok": true}' : 'ok', toolCalls: [], usage, model: request.model, finishReason: 'stop' };
}
