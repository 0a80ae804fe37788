import { z } from 'zod';

const Count = z.int().nonnegative();

/** The share of input tokens served from a provider's prompt cache, for one role (see cache-share.ts). */
export const CacheShare = z.strictObject({
  /** The engine's role (engine Role; a string here, so the run-file schemas stay free of the engine). */
  role: z.string().min(1),
  /** Sessions counted (each once; on the first-call reading, those whose first call was answered). */
  sessions: Count,
  /** Input tokens of the calls counted, cached ones included. */
  input: Count,
  /** The part of `input` the provider said it served from its cache. */
  cached: Count,
  /** cached / input; null when no input was counted (never NaN). */
  share: z.number().min(0).max(1).nullable(),
});
export type CacheShare = z.infer<typeof CacheShare>;

