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

/**
 * A token count as a reply may carry it: a whole, non-negative, safe integer, or the same
 * written as a string of digits (some gateways quote every number). Anything else (`"12.5"`,
 * `"-3"`, `"abc"`, `1e400`, which JSON reads as Infinity) is unreadable, never guessed at.
 */
const count = z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,15}$/).transform(Number)]);

/**
 * What usage was read from a reply: the figures to charge, why they are not the endpoint's own
 * (null only when they are, as they came), and whether any figure could not be read at all.
 */
export interface MeteredUsage {
  usage: Usage;
  note: string | null;
  /** True when usage was missing or a field was malformed, so an estimate stands in for it. */
  unreadable: boolean;
}

/**
 * Usage as data: what a reply reported, parsed with the same rules as {@link Usage} (numeric
 * strings read as numbers). A field that is missing or malformed is replaced by `estimate`'s
 * and the call is flagged unreadable; cached tokens above input are clamped. `charged` names
 * the estimate in the note. Default: "a conservative estimate".
 */
export function meterUsage(reported: unknown, estimate: Usage, charged = 'a conservative estimate'): MeteredUsage {
  if (reported === undefined || reported === null) {
    return { usage: estimate, note: `the reply reported no usage; charged ${charged}`, unreadable: true };
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
  // No cached figure is the dearest reading: every input token at the full price.
  let cachedTokens = field('cachedTokens', 0);
  const notes = bad.length ? [`malformed usage (${bad.join(', ')}); charged ${charged}`] : [];
  if (cachedTokens > inputTokens) {
    notes.push(`cached tokens (${cachedTokens}) above input (${inputTokens}); clamped`);
    cachedTokens = inputTokens;
  }
  return { usage: { inputTokens, outputTokens, cachedTokens }, note: notes.length ? notes.join('; ') : null, unreadable: bad.length > 0 };
}

/**
 * Attempts of one call the server may have completed (and billed) but whose reply never
 * arrived: the deadline passed after the request was sent, or the connection dropped mid-body.
 * Each is charged as an unreadable reply would be. Kept apart from the answer's own usage:
 * callers charge both.
 */
export const Unreceived = z.object({
  attempts: z.number().int().positive(),
  usage: Usage,
});
export type Unreceived = z.infer<typeof Unreceived>;
