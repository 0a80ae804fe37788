import { z } from 'zod';
import { Arm } from '../manifest/manifest.js';

/** The report's claim list (see claim-rows.ts): zod only, so the site-facing report schema stays free of IO. */

/**
 * One counted claim of one measured cell: a requirement a delivered leaf's resolved claims
 * name (once per leaf), the unit every survival figure counts. `survived`: it passes in the
 * graded root tree. `diedAt`: for a claim that did not survive, the node whose merge killed it
 * (the first graded node on its way up after it last passed; the root when it passed every graded
 * merge below), located only when the cell's merges were graded; null when it survived, when
 * its merges were not graded, or when a node that could not be graded hides where it died.
 */
export const ClaimRow = z.object({
  cellId: z.string(),
  cap: z.int().positive(),
  arm: Arm,
  repetition: z.int().positive(),
  /** The leaf's node path, as the engine names it (its cell page anchors it). */
  leaf: z.string(),
  /** The leaf's depth, root = 0. */
  level: z.int().nonnegative(),
  requirement: z.string(),
  survived: z.boolean(),
  diedAt: z.string().nullable(),
  /** With merges graded: the last graded node on its way up that passed it before it died (null: none did). Null when it survived or merges were not graded. */
  lastPassed: z.string().nullable(),
  /** Whether this claim's cell is in a complete pair, so in the survival figures (an unpaired cell's claims are listed, not counted). */
  inFigures: z.boolean(),
});
export type ClaimRow = z.infer<typeof ClaimRow>;
