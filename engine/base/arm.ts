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
