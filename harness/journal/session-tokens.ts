import { z } from 'zod';

const Count = z.int().nonnegative();

/** Tokens of one session (or a sum of sessions): input (cached included), the cached part of input, and output. */
export const SessionTokens = z.strictObject({ input: Count, cached: Count, output: Count }).refine((t) => t.cached <= t.input, { message: 'cached tokens are part of input, so cannot exceed it' });
export type SessionTokens = z.infer<typeof SessionTokens>;
