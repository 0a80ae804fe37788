import { z } from 'zod';

/** Tokens one model call used, as the endpoint reported them. */
export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Part of inputTokens served from the endpoint's prompt cache. */
  cachedTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
  };
}

/**
 * Characters per token assumed when a reply carries no usable usage. Real tokenisers average
 * about 4 on English and 3 on code; 2 over-charges on purpose, so an unmetered call can never
 * make a budget look roomier than it is.
 */
export const CONSERVATIVE_CHARS_PER_TOKEN = 2;

/** A deliberately high token count for `text` (see {@link CONSERVATIVE_CHARS_PER_TOKEN}). */
export function conservativeTokens(text: string): number {
  return Math.ceil(text.length / CONSERVATIVE_CHARS_PER_TOKEN);
}

/** A typical token count for `text` (4 characters a token), for sizing a call before it is made. */
export function typicalTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const count = z.number().int().nonnegative();

/**
 * Usage as data: what a reply reported, parsed with the same rules as {@link Usage}. A field
 * that is missing, negative or not a whole number is replaced by the conservative estimate
 * and the call is flagged; cached tokens above input are clamped. `note` is null only when
 * the endpoint's figures were used as they came.
 */
export function meterUsage(reported: unknown, estimate: Usage): { usage: Usage; note: string | null } {
  if (reported === undefined || reported === null) {
    return { usage: estimate, note: 'the reply reported no usage; charged a conservative estimate' };
  }
  const r = (typeof reported === 'object' ? reported : {}) as Record<string, unknown>;
  const bad: string[] = [];
  const field = (name: keyof Usage, fallback: number): number => {
    const parsed = count.safeParse(r[name]);
    if (parsed.success) return parsed.data;
    bad.push(name);
    return fallback;
  };
  const inputTokens = field('inputTokens', estimate.inputTokens);
  const outputTokens = field('outputTokens', estimate.outputTokens);
  let cachedTokens = field('cachedTokens', 0);
  const notes = bad.length ? [`malformed usage (${bad.join(', ')}); charged a conservative estimate`] : [];
  if (cachedTokens > inputTokens) {
    notes.push(`cached tokens (${cachedTokens}) above input (${inputTokens}); clamped`);
    cachedTokens = inputTokens;
  }
  return { usage: { inputTokens, outputTokens, cachedTokens }, note: notes.length ? notes.join('; ') : null };
}
