import { z } from 'zod';

/**
 * How a node ended. A stop is a designed outcome, not a crash. `SELF_REVIEWED` is an ungated
 * merge: the merging agent reviewed itself and no verdict was taken from that review, so the
 * node is neither DONE nor NOT_DONE (and never counts as independently verified).
 */
export const Verdict = z.enum(['DONE', 'NOT_DONE', 'CHECKS_INADEQUATE', 'NEEDS_HUMAN', 'STOPPED', 'INCOMPLETE', 'SELF_REVIEWED']);
export type Verdict = z.infer<typeof Verdict>;
