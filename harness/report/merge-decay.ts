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

/** What the graded merges on a claim's way up say about it: each graded step, where it was killed, where it last passed before that, and every revival. */
export interface ClaimFate {
  /** Each graded merge on the way up, deepest first, with whether its tree passes the requirement. */
  steps: Array<{ merge: MeasuredMerge; passes: boolean }>;
  /** The node whose merge killed it: the first failing graded node after it last passed; null when the last graded node passes it (or none was graded). */
  killedAt: string | null;
  /** The last graded node that passed it before it was killed; null when none did. */
  lastPassed: string | null;
  revivals: Array<{ failedAt: string; passedAgainAt: string }>;
  /** False when a merge that was not graded lies between where it last passed (or its leaf) and `killedAt`: it may have died there. */
  located: boolean;
}

/** The one reading of a claim's fate through its merges (the decay section and the report's claim list both use it). */
export function claimFate(leaf: string, requirement: string, merges: readonly MeasuredMerge[]): ClaimFate {
  const fate: ClaimFate = { steps: [], killedAt: null, lastPassed: null, revivals: [], located: true };
  let failedAt: string | null = null;
  let ungradedSincePass = false;
  for (const merge of chainOf(leaf, merges)) {
    const passes = passesAt(merge, requirement);
    if (passes === null) {
      ungradedSincePass = true;
      continue;
    }
    fate.steps.push({ merge, passes });
    if (passes) {
      if (failedAt !== null) fate.revivals.push({ failedAt, passedAgainAt: merge.path });
      failedAt = null;
      fate.killedAt = null;
      fate.lastPassed = merge.path;
      ungradedSincePass = false;
    } else {
      failedAt ??= merge.path;
      if (fate.killedAt === null) {
        fate.killedAt = merge.path;
        fate.located = !ungradedSincePass;
      }
    }
  }
  return fate;
}

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
      for (const requirement of countedRequirements(leaf)) {
        const fate = claimFate(leaf.path, requirement, m.merges);
        for (const { merge, passes } of fate.steps) {
          const t = at(m.cap, merge.level, m.arm);
          t.claims++;
          if (passes) t.passing++;
        }
        for (const r of fate.revivals) revived.push({ cellId: id, arm: m.arm, leaf: leaf.path, requirement, ...r });
        if (fate.killedAt !== null) killed.push({ cellId: id, arm: m.arm, leaf: leaf.path, requirement, killedAt: fate.killedAt, lastPassed: fate.lastPassed });
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
