import { ARMS, type Arm } from '../manifest/manifest.js';
import { applySeams, collapseDraws, leafDraws, mergeLoop, seamDraws, type SimClaim, type SimMergeLoop, type SimSeamDefect } from './decisions.js';
import { passingRequirements, type DefectModel } from './defect-model.js';
import { identityDraws, type DrawSource, type SimCell } from './draw.js';
import type { SimModel, SimParams } from './sim-params.js';
import { ROOT_PATH, childPath, planNode, type WidePlan } from './tree-shape.js';

/**
 * The pure sampler: one whole SIMULATED pair (both arms under shared pairing) drawn from the
 * generative model without Docker, composing exactly the decision functions the sim
 * ModelClient calls. With identity draws it predicts what a Docker-run sim cell decides;
 * with a stream source it is the Monte Carlo that checks the closed form (truth.ts).
 */

export interface SimTreeNode {
  path: string;
  level: number;
  requirements: string[];
  /** Empty for a leaf. */
  children: SimTreeNode[];
  /** Present only when the planner first split wider than the manifest's max_children (see tree-shape.ts). */
  wide?: WidePlan;
}

export interface SimLeafRecord {
  path: string;
  level: number;
  delivered: boolean;
  claims: SimClaim[];
}

/** Planning and leaves: drawn once per pair and shared by both arms. */
export interface SimSharedPhase {
  root: SimTreeNode;
  /** In depth-first order. */
  leaves: SimLeafRecord[];
  /** The deepest leaf's level, as the engine counts planning levels (a cap of N fully used reports N; a root that executes reports 0). */
  achievedDepth: number;
}

export interface SimMergeRecord {
  path: string;
  level: number;
  seams: SimSeamDefect[];
  loop: SimMergeLoop;
  /** The node's own requirements (exactly those claimed under it), in order. */
  requirements: string[];
  /**
   * Those of `requirements` that pass in the node's merged tree, graded as the root is: the
   * defect model's `passingRequirements` over the node's own requirements with the loop's
   * `present` (defects of the node's subtree only; collateral breakage included).
   */
  passing: string[];
}

/**
 * Survival after one merge level (grade_merges): over the splitting nodes at depth
 * `mergeLevel` (0 = the root's merge), the resolved claims of delivered leaves under them, and
 * those whose requirement passes in their node's merged tree.
 */
export interface SimMergeLevelCount {
  mergeLevel: number;
  claims: number;
  passing: number;
}

/** One merge's grade of one claim: the node, its depth, and whether the claim's requirement passes in its merged tree. */
export interface SimClaimGrade {
  path: string;
  level: number;
  passes: boolean;
}

/** One counted claim (resolved, of a delivered leaf) followed up its path through the merges above its leaf. */
export interface SimClaimTrace {
  leaf: string;
  leafLevel: number;
  requirement: string;
  /** Every merge above the leaf, its parent first and the root last (empty for a root that executed whole). */
  grades: SimClaimGrade[];
  /** The shallowest node of `grades` whose grade the claim passed (the node where it last passed); null when it passed at none. */
  lastPassed: string | null;
  /** True when the claim fails at some merge and passes at a shallower one (a revival). */
  revived: boolean;
}

/** Merge-by-merge survival of one arm sample: the per-merge-level counts and every counted claim's trace. */
export interface SimMergeSurvival {
  /** One entry per depth that holds a splitting node, ascending (none for a root that executed whole). */
  levels: SimMergeLevelCount[];
  /** Every counted claim, in leaf (depth-first) then claim order. */
  claims: SimClaimTrace[];
  /** The claims of `claims` that revived, in the same order. */
  revivals: SimClaimTrace[];
}

/** Survival counts at one achieved level: resolved claims of delivered leaves, and those passing. */
export interface SimLevelCount {
  level: number;
  claims: number;
  passing: number;
}

export interface SimArmSample {
  arm: Arm;
  /** Deepest first, as assembled. */
  merges: SimMergeRecord[];
  /** Defects present in the graded root tree: requirement -> variant. */
  present: Map<string, string>;
  passing: string[];
  /** passing / all requirements. */
  specFraction: number;
  /** One entry per level that holds a leaf, ascending. */
  levels: SimLevelCount[];
  /** Merge-by-merge survival of this arm's tree (grade_merges; see `mergeSurvival`): per-merge-level counts, every counted claim's trace, the revivals. */
  mergeSurvival: SimMergeSurvival;
}

export interface SimPairSample {
  cell: SimCell;
  shared: SimSharedPhase;
  arms: Record<Arm, SimArmSample>;
  /** Claims whose text named no requirement (dropped from the metric). */
  unresolvedClaims: number;
}

/** Plans the tree and draws every leaf (the shared phase). */
export function sampleShared(params: SimModel, draws: DrawSource, defects: DefectModel, cap: number, requirements: readonly string[]): SimSharedPhase {
  const leaves: SimLeafRecord[] = [];
  let deepest = 0;
  const grow = (path: string, level: number, owned: readonly string[]): SimTreeNode => {
    const plan = planNode(params, draws, { path, level, requirements: owned }, cap);
    if (plan.kind === 'execute') {
      leaves.push({ path, level, ...leafDraws(params, draws, defects, { path, requirements: owned }) });
      deepest = Math.max(deepest, level);
      return { path, level, requirements: [...owned], children: [] };
    }
    return { path, level, requirements: [...owned], children: plan.chunks.map((chunk, i) => grow(childPath(path, i), level + 1, chunk)), ...(plan.wide ? { wide: plan.wide } : {}) };
  };
  const root = grow(ROOT_PATH, 0, requirements);
  return { root, leaves, achievedDepth: deepest };
}

/** Assembles the shared tree deepest first under one arm and grades it by the defect model. */
export function sampleArm(
  params: SimParams,
  draws: DrawSource,
  defects: DefectModel,
  shared: SimSharedPhase,
  arm: Arm,
  mergeAttempts: number,
  requirements: readonly string[],
): SimArmSample {
  const leafDefects = new Map<string, Map<string, string>>();
  for (const leaf of shared.leaves) leafDefects.set(leaf.path, new Map(leaf.claims.filter((c) => c.defect !== null).map((c) => [c.requirement, c.defect!])));
  const merges: SimMergeRecord[] = [];
  const assemble = (node: SimTreeNode): Map<string, string> => {
    if (node.children.length === 0) return leafDefects.get(node.path)!;
    const combined = new Map<string, string>();
    for (const child of node.children) for (const [r, v] of assemble(child)) combined.set(r, v);
    const seams = seamDraws(params, draws, defects, arm, { path: node.path, children: node.children.map((c) => c.requirements) });
    const collapse = collapseDraws(params, draws, defects, arm, { path: node.path, requirements: node.requirements });
    const loop = mergeLoop(params, draws, arm, mergeAttempts, node.path, applySeams(applySeams(combined, seams), collapse));
    merges.push({ path: node.path, level: node.level, seams, loop, requirements: [...node.requirements], passing: passingRequirements(defects, node.requirements, loop.present) });
    return loop.present;
  };
  const present = new Map(assemble(shared.root));
  const passing = passingRequirements(defects, requirements, present);
  return {
    arm,
    merges,
    present,
    passing,
    specFraction: requirements.length === 0 ? 0 : passing.length / requirements.length,
    levels: levelCounts(shared.leaves, new Set(passing)),
    mergeSurvival: mergeSurvival(shared.leaves, merges),
  };
}

/** The path of a node's parent (`root.0.2` -> `root.0`); null for the root. */
function parentPath(path: string): string | null {
  const cut = path.lastIndexOf('.');
  return cut < 0 ? null : path.slice(0, cut);
}

/**
 * Merge-by-merge survival of one arm's assembled tree (grade_merges): every counted claim
 * (resolved, of a delivered leaf) graded at each merge above its leaf, walking up from the
 * leaf's parent to the root, by whether its requirement is in that merge's `passing`; the
 * per-merge-level counts pool those grades over the nodes at each depth. What a Docker run
 * that grades every assembled node must measure for the same draws.
 */
export function mergeSurvival(leaves: readonly SimLeafRecord[], merges: readonly SimMergeRecord[]): SimMergeSurvival {
  const byPath = new Map(merges.map((m) => [m.path, { level: m.level, passing: new Set(m.passing) }]));
  const byLevel = new Map<number, SimMergeLevelCount>();
  for (const m of merges) if (!byLevel.has(m.level)) byLevel.set(m.level, { mergeLevel: m.level, claims: 0, passing: 0 });
  const claims: SimClaimTrace[] = [];
  for (const leaf of leaves) {
    if (!leaf.delivered) continue;
    const above: { path: string; level: number; passing: ReadonlySet<string> }[] = [];
    for (let p = parentPath(leaf.path); p !== null; p = parentPath(p)) {
      const node = byPath.get(p);
      if (!node) throw new RangeError(`leaf ${leaf.path} has no merge record for its ancestor ${p}`);
      above.push({ path: p, ...node });
    }
    for (const claim of leaf.claims) {
      if (!claim.resolved) continue;
      const grades = above.map((node) => ({ path: node.path, level: node.level, passes: node.passing.has(claim.requirement) }));
      let lastPassed: string | null = null;
      let failedBelow = false;
      let revived = false;
      for (const grade of grades) {
        const count = byLevel.get(grade.level)!;
        count.claims++;
        if (grade.passes) {
          count.passing++;
          lastPassed = grade.path;
          if (failedBelow) revived = true;
        } else failedBelow = true;
      }
      claims.push({ leaf: leaf.path, leafLevel: leaf.level, requirement: claim.requirement, grades, lastPassed, revived });
    }
  }
  return { levels: [...byLevel.values()].sort((a, b) => a.mergeLevel - b.mergeLevel), claims, revivals: claims.filter((c) => c.revived) };
}

/** Survival counts per achieved level: the metric's numerator and denominator for one tree. */
export function levelCounts(leaves: readonly SimLeafRecord[], passing: ReadonlySet<string>): SimLevelCount[] {
  const byLevel = new Map<number, SimLevelCount>();
  for (const leaf of leaves) {
    const entry = byLevel.get(leaf.level) ?? { level: leaf.level, claims: 0, passing: 0 };
    byLevel.set(leaf.level, entry);
    if (!leaf.delivered) continue;
    for (const claim of leaf.claims) {
      if (!claim.resolved) continue;
      entry.claims++;
      if (passing.has(claim.requirement)) entry.passing++;
    }
  }
  return [...byLevel.values()].sort((a, b) => a.level - b.level);
}

export interface SimPairOptions {
  cap: number;
  repetition: number;
  mergeAttempts: number;
  defects: DefectModel;
  requirements: readonly string[];
  /** Default: identity-keyed draws of the cell (params.seed, cap, repetition). A stream source makes this a fast Monte Carlo. */
  draws?: DrawSource;
}

/** One pair: the shared phase once, then both arms assembled from it. */
export function samplePair(params: SimParams, options: SimPairOptions): SimPairSample {
  const cell: SimCell = { seed: params.seed, cap: options.cap, repetition: options.repetition };
  const draws = options.draws ?? identityDraws(cell);
  const shared = sampleShared(params, draws, options.defects, cell.cap, options.requirements);
  const arms = Object.fromEntries(ARMS.map((arm) => [arm, sampleArm(params, draws, options.defects, shared, arm, options.mergeAttempts, options.requirements)])) as Record<Arm, SimArmSample>;
  const unresolvedClaims = shared.leaves.reduce((n, leaf) => n + leaf.claims.filter((c) => !c.resolved).length, 0);
  return { cell, shared, arms, unresolvedClaims };
}
