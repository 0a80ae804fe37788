import type { ModelRequest } from '../../../engine/index.js';

/**
 * The prompt of a request as the SIMULATED provider tokenizes it: the tools first, then each
 * message in order (role, content, tool calls, tool call id), serialized. Providers cache and
 * bill in this order (tools, then the system message, then the rest), so a prefix shared by
 * two requests is a prefix of this text. Content sent as an array of parts has been joined by
 * then (wire-request.ts), so breakpoints change nothing here, as they change no tokens.
 */
export function promptText(request: Pick<ModelRequest, 'tools' | 'messages'>): string {
  const parts = [JSON.stringify(request.tools ?? [])];
  for (const m of request.messages) {
    const calls = m.role === 'assistant' ? (m.toolCalls ?? null) : null;
    parts.push(JSON.stringify([m.role, m.content, calls, m.role === 'tool' ? m.toolCallId : null]));
  }
  return parts.join('');
}

/** Characters a token, the rule of thumb for English and code, used wherever the server counts prompt tokens itself. */
export const CHARS_PER_TOKEN = 4;

/** The prompt tokens of `text` as the server counts them: characters / 4, rounded up. */
export function promptTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
