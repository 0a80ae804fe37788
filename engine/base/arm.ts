import { z } from 'zod';

/**
 * The two arms of the experiment: who judges every merge. `gated`: a reviewer of a family that
 * contributed nothing to the subtree, whose rejection feeds a repair attempt and whose approval
 * ends the merge loop. `ungated`: the merging agent reviews itself; its findings feed the next
 * attempt but no verdict is taken from it, so the loop spends every attempt (the control).
 */
export const ARMS = ['gated', 'ungated'] as const;
export const Arm = z.enum(ARMS);
export type Arm = z.infer<typeof Arm>;

/** Who reviewed one merge attempt: what a merge record keeps and a `merge_review` event carries. */
export const MergeReviewer = z.object({
  /** `independent`: the gated arm's reviewer. `self`: the merging agent on itself (ungated), never independent. */
  kind: z.enum(['independent', 'self']),
  /** The model that answered and its family; null when nobody eligible could review. */
  model: z.string().nullable(),
  family: z.string().nullable(),
  /** True only for a gated review by a placed family that contributed nothing to the subtree; never for a self-review. */
  independent: z.boolean(),
});
export type MergeReviewer = z.infer<typeof MergeReviewer>;
