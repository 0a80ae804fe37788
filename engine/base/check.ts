import { z } from 'zod';

/**
 * A runnable check: a shell command run in the workspace. One rule decides it: exit 0 means
 * pass. Nothing is inverted, because models write self-inverting "negative" commands and a
 * runner that inverts them again fails correct work.
 */
export const Check = z
  .object({
    id: z.string().min(1).max(64),
    description: z.string().min(1),
    command: z.string().min(1),
  })
  .strict();
export type Check = z.infer<typeof Check>;

export const CheckResult = z.object({
  id: z.string(),
  passed: z.boolean(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  /** The tail of stdout and stderr, enough to say why. */
  output: z.string(),
});
export type CheckResult = z.infer<typeof CheckResult>;
