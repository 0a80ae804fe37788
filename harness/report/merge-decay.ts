import type { Arm } from '../manifest/manifest.js';
import { cellId } from '../journal/run-folder.js';
import { countedRequirements, type CellMeasurement, type MeasuredMerge } from '../journal/cell-measurement.js';
import type { PlantedTruth } from './planted-truth.js';
import type { MergeDecay, MergeLevelFigure } from './merge-decay-schema.js';

export { MergeDecay, MergeLevelFigure } from './merge-decay-schema.js';

/**
 * Decay merge by merge (`grade_merges`): survival after each merge level, per cap and arm, as a
 * cross-sectional figure: over the graded splitting nodes at depth k of every cell, the claims
 * under them (resolved, by delivered leaves) that pass in that node's merged tree, over all such
 * claims, pooled as a ratio of totals. The root grade stays the primary endpoint; this says
 * where the losses happen. Every claim that did not survive to the root names the node that
 * killed it, and a claim that failed at one merge and passed again at a later one is listed as
 * revived. A node that could not be graded (its tree lacks the deliverable's entry points) is
 * counted apart, never read as a death.
 */

/** The merges on a leaf's way to the root, deepest first (a node's id is its parent's plus `.<n>`, as the engine names them). */
function chainOf(leaf: string, merges: readonly MeasuredMerge[]): MeasuredMerge[] {
  return merges.filter((m) => leaf.startsWith(`${m.path}.`)).sort((a, b) => b.level - a.level);
}

const passesAt = (m: MeasuredMerge, requirement: string): boolean | null => (m.grade?.status === 'graded' ? m.grade.passing.includes(requirement) : null);

/** The merge-decay section, or undefined when no cell's merges were graded. */
export function mergeDecaySection(cells: readonly CellMeasurement[], truth: PlantedTruth | null): MergeDecay | undefined {
  const graded = cells.filter((m) => m.merges.some((g) => g.grade !== undefined));
  if (graded.length === 0) return undefined;
  const totals = new Map<string, { claims: number; passing: number; notGradable: number }>();
  const at = (cap: number, level: number, arm: Arm) => {
    const key = `${cap}/${level}/${arm}`;
    return totals.get(key) ?? totals.set(key, { claims: 0, passing: 0, notGradable: 0 }).get(key)!;
  };
  const killed: MergeDecay['killed'] = [];
  const revived: MergeDecay['revived'] = [];
  for (const m of graded) {
    const id = cellId(m);
    for (const merge of m.merges) {
      if (merge.grade?.status === 'not_gradable') at(m.cap, merge.level, m.arm).notGradable++;
    }
    for (const leaf of m.leaves) {
      const chain = chainOf(leaf.path, m.merges);
      for (const requirement of countedRequirements(leaf)) {
        let lastPass: string | null = null;
        let failedAt: string | null = null;
        let killer: string | null = null;
        for (const merge of chain) {
          const passes = passesAt(merge, requirement);
          if (passes === null) continue;
          const t = at(m.cap, merge.level, m.arm);
          t.claims++;
          if (passes) {
            t.passing++;
            if (failedAt !== null) revived.push({ cellId: id, arm: m.arm, leaf: leaf.path, requirement, failedAt, passedAgainAt: merge.path });
            failedAt = null;
            killer = null;
            lastPass = merge.path;
          } else {
            failedAt ??= merge.path;
            killer ??= merge.path;
          }
        }
        if (killer !== null) killed.push({ cellId: id, arm: m.arm, leaf: leaf.path, requirement, killedAt: killer, lastPassed: lastPass });
      }
    }
  }
  const caps = [...new Set(graded.map((m) => m.cap))].sort((a, b) => a - b);
  const rows = caps.flatMap((cap) =>
    Array.from({ length: cap }, (_, mergeLevel) => {
      const figure = (arm: Arm): MergeLevelFigure | null => {
        const t = totals.get(`${cap}/${mergeLevel}/${arm}`);
        if (!t) return null;
        return { claims: t.claims, passing: t.passing, survival: t.claims > 0 ? t.passing / t.claims : null, notGradable: t.notGradable, truth: truth?.mergeSurvival(cap, mergeLevel, arm) ?? null };
      };
      return { cap, mergeLevel, gated: figure('gated'), ungated: figure('ungated') };
    }).filter((r) => r.gated || r.ungated),
  );
  return { cells: graded.length, rows, killed, revived };
}
