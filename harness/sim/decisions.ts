import type { Arm } from '../manifest/manifest.js';
import { pickVariant, type DefectModel, type PresentDefects } from './defect-model.js';
import type { DrawSource } from './draw.js';
import { collapseOf, type SimParams } from './sim-params.js';
import { ROOT_PATH } from './tree-shape.js';

/**
 * The SIMULATED population's decisions at leaves and merges, each a pure function of the
 * planted rates and identity-keyed draws. The pure sampler composes them into whole pairs;
 * the sim ModelClient calls the same functions one session at a time, so both make the same
 * decisions for the same seed. See notes/sim-model.md for the model these implement.
 */

/** One requirement of a leaf's chunk as the leaf claims it. */
export interface SimClaim {
  requirement: string;
  /** False when the claim text names no requirement: dropped from the metric, counted. */
  resolved: boolean;
  /** The variant planted in this requirement by the leaf, or null. */
  defect: string | null;
}

export interface SimLeafDraws {
  /** False when the leaf's own tests fail: its claims leave the denominator. */
  delivered: boolean;
  claims: SimClaim[];
}

/**
 * A leaf's draws (shared phase, role executor, attempt 1): per requirement of its chunk
 * `unresolved`, `defect` and (when defective) `variant`; per leaf `deliver`.
 */
export function leafDraws(params: SimParams, draws: DrawSource, defects: DefectModel, leaf: { path: string; requirements: readonly string[] }): SimLeafDraws {
  const node = leaf.path;
  // Literal keys of one shape keep this hot path cheap in the Monte Carlo.
  const claims = leaf.requirements.map((requirement) => {
    // A root that executes claims the objective's own criterion lines (no planner wrote them), so they always resolve.
    const resolved = node === ROOT_PATH || !(draws({ node, role: 'executor', attempt: 1, decision: 'unresolved', item: requirement }) < params.unresolved_claim_rate);
    const defective = draws({ node, role: 'executor', attempt: 1, decision: 'defect', item: requirement }) < params.leaf_defect_rate;
    const defect = defective ? pickVariant(defects, requirement, draws({ node, role: 'executor', attempt: 1, decision: 'variant', item: requirement })) : null;
    return { requirement, resolved, defect };
  });
  return { delivered: !(draws({ node, role: 'executor', attempt: 1, decision: 'deliver' }) < params.non_delivery_rate), claims };
}

/** A seam defect a merge plants: in one requirement owned by child `child`'s subtree. */
export interface SimSeamDefect {
  child: number;
  requirement: string;
  variant: string;
}

/**
 * A merge's seam draws (merge phase, role merger, attempt 1 only, keyed by arm): per child
 * `seam`; when it fires, `seam-target` picks one requirement of the child's subtree uniformly
 * and `seam-variant` its patch. Planting into an already defective requirement changes nothing
 * (see applySeams).
 */
export function seamDraws(
  params: SimParams,
  draws: DrawSource,
  defects: DefectModel,
  arm: Arm,
  merge: { path: string; children: readonly (readonly string[])[] },
): SimSeamDefect[] {
  const seams: SimSeamDefect[] = [];
  const node = merge.path;
  merge.children.forEach((owned, child) => {
    if (!(draws({ arm, node, role: 'merger', attempt: 1, decision: 'seam', item: child }) < params.seam_defect_rate) || owned.length === 0) return;
    const target = draws({ arm, node, role: 'merger', attempt: 1, decision: 'seam-target', item: child });
    const requirement = owned[Math.min(owned.length - 1, Math.floor(target * owned.length))]!;
    seams.push({ child, requirement, variant: pickVariant(defects, requirement, draws({ arm, node, role: 'merger', attempt: 1, decision: 'seam-variant', item: child })) });
  });
  return seams;
}

/** The defects present after the seams: a seam on an already defective requirement changes nothing. */
export function applySeams<T extends { requirement: string; variant: string }>(present: PresentDefects, seams: readonly T[]): Map<string, string> {
  const next = new Map(present);
  for (const seam of seams) if (!next.has(seam.requirement)) next.set(seam.requirement, seam.variant);
  return next;
}

/** A defect the collapse mode plants at the root's first assembly. */
export interface SimCollapseDefect {
  requirement: string;
  variant: string;
}

/**
 * The collapse mode's draws (root merge only, role merger, attempt 1, keyed by arm): once per
 * cell `collapse`; in a collapsed cell, per requirement of the root `collapse-defect` and, when
 * it fires, `collapse-variant`. Off (no draw at all, so no other draw moves) when the mode is
 * absent or its rate is 0, and at any node but the root. Applied like seams: a requirement
 * already defective keeps its defect (see applySeams).
 */
export function collapseDraws(params: SimParams, draws: DrawSource, defects: DefectModel, arm: Arm, merge: { path: string; requirements: readonly string[] }): SimCollapseDefect[] {
  const { rate, severity } = collapseOf(params);
  if (rate === 0 || merge.path !== ROOT_PATH) return [];
  const node = merge.path;
  if (!(draws({ arm, node, role: 'merger', attempt: 1, decision: 'collapse' }) < rate)) return [];
  const planted: SimCollapseDefect[] = [];
  for (const requirement of merge.requirements) {
    if (!(draws({ arm, node, role: 'merger', attempt: 1, decision: 'collapse-defect', item: requirement }) < severity)) continue;
    planted.push({ requirement, variant: pickVariant(defects, requirement, draws({ arm, node, role: 'merger', attempt: 1, decision: 'collapse-variant', item: requirement })) });
  }
  return planted;
}

/** The recall of an arm's reviewer: the independent judge's, or the self-review's. */
export function recallOf(params: SimParams, arm: Arm): number {
  return arm === 'gated' ? params.judge_recall : params.self_review_recall;
}

/**
 * What one review finds (merge phase, role reviewer, attempt a, keyed by arm): each defect
 * present anywhere in the node's subtree is found independently with the arm's recall
 * (draw `find`, item = requirement). Returns the requirements found, in the order given.
 */
export function reviewDraws(params: SimParams, draws: DrawSource, arm: Arm, review: { path: string; attempt: number; present: Iterable<string> }): string[] {
  const recall = recallOf(params, arm);
  const found: string[] = [];
  for (const requirement of review.present) {
    if (draws({ arm, node: review.path, role: 'reviewer', attempt: review.attempt, decision: 'find', item: requirement }) < recall) found.push(requirement);
  }
  return found;
}

/**
 * What merge attempt a (>= 2) repairs (merge phase, role merger, keyed by arm): each finding
 * of review a - 1 is removed with `repair_rate` (draw `repair`, item = requirement).
 */
export function repairDraws(params: SimParams, draws: DrawSource, arm: Arm, repair: { path: string; attempt: number; findings: Iterable<string> }): string[] {
  const repaired: string[] = [];
  for (const requirement of repair.findings) {
    if (draws({ arm, node: repair.path, role: 'merger', attempt: repair.attempt, decision: 'repair', item: requirement }) < params.repair_rate) repaired.push(requirement);
  }
  return repaired;
}

/** Whether the merge loop goes on after review `attempt` found `found`. */
export function continuesAfterReview(arm: Arm, attempt: number, mergeAttempts: number, found: readonly string[]): boolean {
  if (attempt >= mergeAttempts) return false;
  // gated: an approval (nothing found) ends the loop; ungated spends every attempt.
  return arm === 'ungated' || found.length > 0;
}

export interface SimMergeAttempt {
  attempt: number;
  /** Requirements whose defect this attempt removed (always empty at attempt 1). */
  repaired: string[];
  /** What this attempt's review found. */
  found: string[];
}

export interface SimMergeLoop {
  attempts: SimMergeAttempt[];
  /** `approved`: a gated review found nothing. `attempts-spent`: every attempt was used. */
  stop: 'approved' | 'attempts-spent';
  /** Defects present in the merged tree when the loop ended. */
  present: Map<string, string>;
}

/**
 * One merge node's whole loop after its seams: attempt a assembles (repairing review a - 1's
 * findings when a >= 2), then review a reads the result; gated stops at an approval, ungated
 * spends all `mergeAttempts`. The last review's findings are repaired by nobody.
 */
export function mergeLoop(params: SimParams, draws: DrawSource, arm: Arm, mergeAttempts: number, path: string, afterSeams: PresentDefects): SimMergeLoop {
  const present = new Map(afterSeams);
  const attempts: SimMergeAttempt[] = [];
  let findings: string[] = [];
  for (let attempt = 1; attempt <= mergeAttempts; attempt++) {
    const repaired = attempt === 1 ? [] : repairDraws(params, draws, arm, { path, attempt, findings });
    for (const r of repaired) present.delete(r);
    findings = reviewDraws(params, draws, arm, { path, attempt, present: [...present.keys()] });
    attempts.push({ attempt, repaired, found: findings });
    if (!continuesAfterReview(arm, attempt, mergeAttempts, findings)) {
      return { attempts, stop: arm === 'gated' && findings.length === 0 ? 'approved' : 'attempts-spent', present };
    }
  }
  // mergeAttempts < 1 is refused by the manifest; an empty loop changes nothing.
  return { attempts, stop: 'attempts-spent', present };
}
