import { z } from 'zod';
import { beyondClaims, claimedRequirements, type CellMeasurement } from '../journal/cell-measurement.js';

/**
 * Work beyond the claims (`grade_leaves`): what each leaf's own tree passes that the leaf did not
 * claim. Survival counts a claim where its leaf claimed it; a model that writes the whole
 * deliverable at every leaf passes the same requirements however the tree split, so depth would
 * measure nothing about dividing work. This section says how much of that happened, per cap.
 * Zod and pure, so the site-facing report schema can hold it.
 */

const Count = z.int().nonnegative();

export const BeyondClaimsRow = z.object({
  cap: z.int().positive(),
  /** Leaves below the root, over the cap's measured trees (one tree per pair under shared pairing, one per arm otherwise). */
  leaves: Count,
  /** Of those, leaves whose own tree was graded (it held the deliverable's entry points). */
  graded: Count,
  /** Graded leaves passing at least one requirement they did not claim (nor a prerequisite handed them). */
  beyond: Count,
  /** beyond / graded; null when no leaf was graded. */
  share: z.number().min(0).max(1).nullable(),
  /** Requirements passing beyond the claims, summed over the graded leaves. */
  requirements: Count,
  /** requirements / graded: the mean a graded leaf built beyond its claims; null when none was graded. */
  meanPerLeaf: z.number().nonnegative().nullable(),
  /** The planted share for a SIMULATED sweep (every simulated leaf writes the whole program: 1); null otherwise. */
  truth: z.number().min(0).max(1).nullable(),
});
export type BeyondClaimsRow = z.infer<typeof BeyondClaimsRow>;

export const BeyondClaims = z.object({
  /** Requirements of the spec the cells were graded on, for reading meanPerLeaf. */
  specTotal: z.int().positive(),
  rows: z.array(BeyondClaimsRow),
  /** The leaves that did, most requirements first (report.md shows the first few). */
  leaves: z.array(z.object({ cellId: z.string(), leaf: z.string(), claimed: z.array(z.string()), beyond: z.array(z.string()).min(1) })),
});
export type BeyondClaims = z.infer<typeof BeyondClaims>;

/**
 * The section, or undefined when no cell graded its leaves. Under shared pairing both arms hold
 * the same leaves (one build), so each pair's leaves are counted once, from its first arm measured.
 */
export function beyondClaimsSection(cells: ReadonlyArray<{ id: string; m: CellMeasurement }>, simulated: boolean): BeyondClaims | undefined {
  const graded = cells.filter(({ m }) => m.leaves.some((l) => l.grade !== undefined));
  if (graded.length === 0) return undefined;
  const seen = new Set<string>();
  const trees = graded.filter(({ m }) => {
    const tree = m.pairing === 'shared' ? `${m.cap}/${m.repetition}` : `${m.cap}/${m.repetition}/${m.arm}`;
    if (seen.has(tree)) return false;
    seen.add(tree);
    return true;
  });
  const rows = new Map<number, BeyondClaimsRow>();
  const leaves: BeyondClaims['leaves'] = [];
  for (const { id, m } of trees) {
    const row = rows.get(m.cap) ?? { cap: m.cap, leaves: 0, graded: 0, beyond: 0, share: null, requirements: 0, meanPerLeaf: null, truth: simulated ? 1 : null };
    rows.set(m.cap, row);
    for (const leaf of m.leaves.filter((l) => l.level > 0)) {
      row.leaves++;
      const extra = beyondClaims(leaf, m);
      if (extra === undefined) continue;
      row.graded++;
      row.requirements += extra.length;
      if (extra.length === 0) continue;
      row.beyond++;
      leaves.push({ cellId: id, leaf: leaf.path, claimed: claimedRequirements(leaf).sort(), beyond: extra });
    }
  }
  const done = [...rows.values()]
    .sort((a, b) => a.cap - b.cap)
    .map((r) => ({ ...r, share: r.graded > 0 ? r.beyond / r.graded : null, meanPerLeaf: r.graded > 0 ? r.requirements / r.graded : null }));
  leaves.sort((a, b) => b.beyond.length - a.beyond.length || a.cellId.localeCompare(b.cellId) || a.leaf.localeCompare(b.leaf));
  return { specTotal: graded[0]!.m.grade.total, rows: done, leaves };
}
