import { z } from 'zod';

/**
 * What one attempt of a model call came to, as a client reports it to whoever watches the
 * provider (an adaptive rate controller counts the 429s; a journal may keep them all). One is
 * reported per attempt, in order, before the client sleeps or gives up.
 */

const common = {
  /** The model id the attempt asked for. */
  model: z.string(),
  /** 1 for the call's first attempt. */
  attempt: z.number().int().positive(),
  /** When the attempt ended, by the client's clock (ISO 8601). */
  at: z.string(),
};

/** The wait the client sleeps before its next attempt; null when this attempt ended the call. */
const waitMs = z.number().nonnegative().nullable();

export const AttemptOutcome = z.discriminatedUnion('type', [
  /** A chat completion arrived and was read. */
  z.object({ type: z.literal('answered'), ...common, status: z.number().int(), usageUnreadable: z.boolean() }),
  /** A 429 (or a 200 carrying a rate-limit error). */
  z.object({ type: z.literal('rate_limited'), ...common, status: z.number().int().nullable(), retryAfterMs: z.number().nonnegative().nullable(), waitMs }),
  /**
   * The provider could not take the request: a 5xx (or a 200 carrying a server error), or a
   * connection that was never made (refused, unresolvable). Nothing was done, nothing is owed.
   */
  z.object({ type: z.literal('unavailable'), ...common, status: z.number().int().nullable(), retryAfterMs: z.number().nonnegative().nullable(), waitMs }),
  /**
   * The request went out and no whole reply came back: the deadline passed, or the connection
   * dropped mid-reply. The server may have done (and billed) the work; it is charged.
   */
  z.object({ type: z.literal('lost'), ...common, reason: z.enum(['deadline', 'dropped']), waitMs }),
  /** Refused for good: quota, key, unknown model, or another 4xx. Never retried. */
  z.object({ type: z.literal('refused'), ...common, status: z.number().int().nullable(), code: z.string() }),
  /** The server answered with something that is not a chat completion. Never retried. */
  z.object({ type: z.literal('malformed'), ...common, status: z.number().int().nullable() }),
]);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;
export type AttemptOutcomeType = AttemptOutcome['type'];
