import { z } from 'zod';

/** How a node ended. A stop is a designed outcome, not a crash. */
export const Verdict = z.enum(['DONE', 'NOT_DONE', 'CHECKS_INADEQUATE', 'NEEDS_HUMAN', 'STOPPED', 'INCOMPLETE']);
export type Verdict = z.infer<typeof Verdict>;
