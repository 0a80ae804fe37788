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
