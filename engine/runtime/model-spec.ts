import { z } from 'zod';
import { Role } from '../ports/model-client.js';
import type { Usage } from '../base/usage.js';

export const Tier = z.enum(['small', 'medium', 'large']);
export type Tier = z.infer<typeof Tier>;

/** One model the engine may call, and what is true of it. */
export const ModelSpec = z
  .object({
    /** Unique name in the roster. */
    name: z.string().min(1),
    /** The id sent to the endpoint. */
    model: z.string().min(1),
    /** Key of the ModelClient that serves it. */
    endpoint: z.string().min(1),
    /** The organisation that trained it: independence is judged on this. `unplaced:<id>` when nobody said. */
    family: z.string().min(1),
    tier: Tier,
    /** Roles it may serve. Default: any, by tier preference. */
    roles: z.array(Role).optional(),
    /** USD per million tokens. Default: unpriced (cost 0, tokens still counted; a cost ceiling cannot bind). */
    prices: z
      .object({ input: z.number().nonnegative(), output: z.number().nonnegative(), cachedInput: z.number().nonnegative() })
      .optional(),
    /** The most output tokens the endpoint accepts as `max_tokens` for this model. Default: no limit stated. */
    maxOutputTokens: z.number().int().positive().optional(),
  })
  .strict();
export type ModelSpec = z.infer<typeof ModelSpec>;

/** What a call cost, never negative: cached tokens are clamped to input before pricing. */
export function priceOf(spec: ModelSpec, usage: Usage): number {
  if (!spec.prices) return 0;
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  return Math.max(0, (fresh * spec.prices.input + cached * spec.prices.cachedInput + usage.outputTokens * spec.prices.output) / 1e6);
}
