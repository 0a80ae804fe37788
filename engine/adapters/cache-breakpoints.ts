import type OpenAI from 'openai';
import type { ChatMessage } from '../ports/model-client.js';

/**
 * Explicit prompt-cache breakpoints for providers that cache only where told to (Anthropic
 * models, directly or through an OpenAI-compatible gateway): a message whose start repeats
 * across sessions (`cacheBreak`, set by the request layout) is sent as text parts, the repeated
 * part closed by `cache_control: {type: 'ephemeral'}`. Servers that cache on their own ignore
 * the marker, but some reject array content, hence opt-in per provider (`cache_breakpoints`).
 */

/** Anthropic's limit on breakpoints in one request; the earliest are kept (they cover the longest-lived prefix). */
export const MAX_BREAKPOINTS = 4;

/** A text part with the cache marker: the SDK's type has no field for it, so it is widened here, and only here. */
type MarkedText = OpenAI.Chat.Completions.ChatCompletionContentPartText & { cache_control?: { type: 'ephemeral' } };

/**
 * The content each message is sent with: its text as it is, or, for the first
 * {@link MAX_BREAKPOINTS} system or user messages carrying a `cacheBreak` inside their text,
 * the repeated part marked and the rest after it. Pure; same order and length as `messages`.
 */
export function contentWithBreakpoints(messages: readonly ChatMessage[]): Array<string | MarkedText[] | null> {
  let marked = 0;
  return messages.map((m) => {
    if (m.role === 'assistant') return m.content;
    if (m.role === 'tool') return m.content;
    const at = m.cacheBreak;
    if (at === undefined || at <= 0 || at > m.content.length || marked >= MAX_BREAKPOINTS) return m.content;
    marked++;
    const rest = m.content.slice(at);
    return [{ type: 'text', text: m.content.slice(0, at), cache_control: { type: 'ephemeral' } }, ...(rest ? [{ type: 'text' as const, text: rest }] : [])];
  });
}
