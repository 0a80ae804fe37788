import { z } from 'zod';
import { Arm } from '../manifest/manifest.js';

/** The merge-decay section's shape (see merge-decay.ts): zod only, so the site-facing report schema stays free of IO. */

const Count = z.int().nonnegative();

export const MergeLevelFigure = z.object({
  claims: Count,
  passing: Count,
  /** passing / claims; null when no graded node at this level had a claim. */
  survival: z.number().min(0).max(1).nullable(),
  /** Splitting nodes at this level whose tree could not be graded there (not counted, not deaths). */
  notGradable: Count,
  /** The closed form's figure for a SIMULATED sweep (harness/sim/truth.ts); null otherwise. */
  truth: z.number().min(0).max(1).nullable(),
});
export type MergeLevelFigure = z.infer<typeof MergeLevelFigure>;

const ClaimAt = z.object({ cellId: z.string(), leaf: z.string(), requirement: z.string() });

export const MergeDecay = z.object({
  /** Cells whose merges were graded (in complete pairs): the figures' population. */
  cells: Count,
  rows: z.array(z.object({ cap: z.int(), mergeLevel: Count, gated: MergeLevelFigure.nullable(), ungated: MergeLevelFigure.nullable() })),
  /** Claims that did not survive to the root, each with the node whose merge killed it (its last failing graded node after it last passed). */
  killed: z.array(ClaimAt.extend({ arm: Arm, killedAt: z.string(), lastPassed: z.string().nullable() })),
  /** Claims that failed at one graded merge and passed at a later (shallower) one. */
  revived: z.array(ClaimAt.extend({ arm: Arm, failedAt: z.string(), passedAgainAt: z.string() })),
});
export type MergeDecay = z.infer<typeof MergeDecay>;

