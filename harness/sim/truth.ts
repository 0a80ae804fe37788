import type { Arm } from '../manifest/manifest.js';
import { recallOf } from './decisions.js';
import type { DefectModel } from './defect-model.js';
import { collapseOf, type SimModel } from './sim-params.js';
import { hasRoom, splitShapes } from './tree-shape.js';
import { JointDist } from './internal/joint-dist.js';

/**
 * The exact closed-form truth of the SIMULATED population: the expected survival per achieved
 * level and arm, over the random tree shape, computed on each merge's JOINT defect state.
 *
 * Which expectation: the ratio of expected totals per cell,
 *
 *   survival(l) = sum_req P(claimed at level l, resolved, delivered, passes)
 *               / sum_req P(claimed at level l, resolved, delivered),
 *
 * the quantity a ratio estimator (sum of passing claims over sum of claims, pooled over cells)
 * converges to. Resolution and delivery are drawn independently of every defect, so their
 * factor (1 - unresolved_claim_rate)(1 - non_delivery_rate) cancels in the ratio but is kept in
 * the totals (at level 0 delivery's alone: a root that executes claims the objective's own lines), which is what lets totals of several caps be pooled by repetition weights.
 *
 * How: for each requirement X, track the requirements whose defects can break X (X and its
 * collateral sources) one by one, and every other defect by count only. A subtree's state is
 * then a joint distribution over (tracked presence bits, untracked count): leaves plant
 * independently; a seam picks one requirement of a child uniformly, so its effect depends on
 * the child's count alone; a review finds each present defect independently and a gated
 * approval (nothing found at all) freezes the whole state, which is why the state must be
 * joint. The tree shape is summed over exactly by recursion on (range, level).
 *
 * Per merge level (grade_merges): survival after merge level k pools, over the splitting nodes
 * N at depth k, the claims under N graded in N's own merged tree:
 *
 *   merge_k = sum_X sum_{N = (lo, hi) at depth k, X in N} P(N exists) x E[N splits, X passes in N's state]
 *           / sum_X sum_{N ...} P(N exists) x P(N splits)   (each times the counted factor above).
 *
 * A subtree's state after its merge is independent of its ancestors given its range and level,
 * so the same (range, level) distributions serve, weighted by the forward probabilities of node
 * ranges (nodeProbabilities) from the same branching recursion.
 */

export interface SimTruthOptions {
  cap: number;
  arm: Arm;
  mergeAttempts: number;
  defects: DefectModel;
  /** Ordered requirement ids; the root owns them all. */
  requirements: readonly string[];
}

export interface SimLevelTruth {
  level: number;
  /** Expected resolved claims of delivered leaves at this level, per cell (the denominator). */
  expectedClaims: number;
  /** Expected such claims whose requirement passes in the root tree, per cell (the numerator). */
  expectedPassing: number;
  /** expectedPassing / expectedClaims; null when no claim can be counted at this level. */
  survival: number | null;
}

/**
 * Survival after one merge level (grade_merges): over the splitting nodes N at depth `level`
 * (0 = the root's merge), the expected resolved claims of delivered leaves under N, per cell,
 * and the expected such claims whose requirement passes in N's own merged tree.
 */
export interface SimMergeTruth {
  level: number;
  /** Expected claims under splitting nodes at this depth, per cell (the denominator). */
  expectedClaims: number;
  /** Expected such claims passing in their node's merged tree, per cell (the numerator). */
  expectedPassing: number;
  /** expectedPassing / expectedClaims (ratio of expected totals); null when no node at this depth can split. */
  survival: number | null;
}

export interface SimArmTruth {
  cap: number;
  arm: Arm;
  mergeAttempts: number;
  /** Every level 0..cap (a leaf sits at most at level cap), including unreachable ones (expectedClaims 0, survival null). */
  levels: SimLevelTruth[];
  /** Every merge level 0..cap - 1 (a node at depth k may split iff k < cap), including unreachable ones. */
  merges: SimMergeTruth[];
  /** The cap curve: all levels pooled (sum of numerators over sum of denominators). */
  survival: number | null;
  /** Expected passing requirements / all requirements. */
  specFraction: number;
  /** Requirement -> P(it passes in the root tree). */
  passProbability: Record<string, number>;
}

/** The closed-form expected survival of one arm at one cap. */
export function expectedSurvival(params: SimModel, options: SimTruthOptions): SimArmTruth {
  const { cap, arm, mergeAttempts, defects, requirements } = options;
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`cap must be a positive whole number, got ${cap}`);
  if (!Number.isInteger(mergeAttempts) || mergeAttempts < 1) throw new RangeError(`mergeAttempts must be a positive whole number, got ${mergeAttempts}`);
  const n = requirements.length;
  const counted = (1 - params.unresolved_claim_rate) * (1 - params.non_delivery_rate);
  const claims = new Array<number>(cap + 1).fill(0);
  const passing = new Array<number>(cap + 1).fill(0);
  const passProbability: Record<string, number> = {};
  const untracked = new Map<string, JointDist>();
  const mergeClaims = new Array<number>(cap).fill(0);
  const mergePassing = new Array<number>(cap).fill(0);
  const nodes = nodeProbabilities(params, cap, n);

  for (const [x, target] of requirements.entries()) {
    // Fractions of each source's variants that break X (X itself and its collateral sources).
    const sources = requirements
      .map((r, i) => ({ i, b: breakFraction(defects, r, target) }))
      .filter((s) => s.b > 0 || s.i === x)
      .sort((a, b) => a.i - b.i);
    const model = new SubtreeModel(params, arm, mergeAttempts, n, sources.map((s) => s.i), x, untracked);
    const root = model.node(0, n, 0, cap);
    let pass = 0;
    for (const [level, dist] of root) {
      const mass = dist.total();
      const passes = dist.expect((bits) => sources.reduce((f, s, j) => (bits & (1 << j) ? f * (1 - s.b) : f), 1));
      // A root that executes claims the objective's own lines, which always resolve.
      const weight = level === 0 ? 1 - params.non_delivery_rate : counted;
      claims[level]! += weight * mass;
      passing[level]! += weight * passes;
      pass += passes;
    }
    passProbability[target] = pass;
    // Merge levels: a node's state after its merge depends on its range and level alone (not on
    // its ancestors), so each node holding X adds P(it exists) x E[it splits, X passes in it].
    const passesIn = (bits: number) => sources.reduce((f, s, j) => (bits & (1 << j) ? f * (1 - s.b) : f), 1);
    for (const node of nodes) {
      if (x < node.lo || x >= node.hi) continue;
      for (const [leafLevel, dist] of model.node(node.lo, node.hi, node.level, cap)) {
        // X's leaf sits below the node exactly when the node split.
        if (leafLevel <= node.level) continue;
        mergeClaims[node.level]! += node.p * counted * dist.total();
        mergePassing[node.level]! += node.p * counted * dist.expect(passesIn);
      }
    }
  }

  const levels = claims.map((c, level) => ({ level, expectedClaims: c, expectedPassing: passing[level]!, survival: c > 0 ? passing[level]! / c : null }));
  const totalClaims = claims.reduce((a, b) => a + b, 0);
  const totalPassing = passing.reduce((a, b) => a + b, 0);
  const sumPass = Object.values(passProbability).reduce((a, b) => a + b, 0);
  const merges = mergeClaims.map((c, level) => ({ level, expectedClaims: c, expectedPassing: mergePassing[level]!, survival: c > 0 ? mergePassing[level]! / c : null }));
  return { cap, arm, mergeAttempts, levels, merges, survival: totalClaims > 0 ? totalPassing / totalClaims : null, specFraction: n === 0 ? 0 : sumPass / n, passProbability };
}

/**
 * Forward probabilities of node ranges: every (lo, hi, level) a tree at `cap` over `n`
 * requirements can hold, with P(the tree has a node of that range at that level), by the same
 * branching recursion the planner draws (a node with room and at least 2 requirements splits
 * with 1 - early_leaf_rate into k clamped chunks). Distinct shapes reaching the same range are
 * disjoint events, so their probabilities add. Only nodes that can split are listed.
 */
export function nodeProbabilities(params: SimModel, cap: number, n: number): { lo: number; hi: number; level: number; p: number }[] {
  const out: { lo: number; hi: number; level: number; p: number }[] = [];
  let frontier = new Map<string, { lo: number; hi: number; p: number }>([[`0,${n}`, { lo: 0, hi: n, p: 1 }]]);
  for (let level = 0; hasRoom(level, cap) && frontier.size > 0; level++) {
    const next = new Map<string, { lo: number; hi: number; p: number }>();
    for (const node of frontier.values()) {
      const size = node.hi - node.lo;
      if (size < 2) continue;
      out.push({ ...node, level });
      for (const { sizes, p: pk } of splitShapes(params, size)) {
        const weight = node.p * (1 - params.early_leaf_rate) * pk;
        if (weight === 0) continue;
        let at = node.lo;
        for (const chunk of sizes) {
          const key = `${at},${at + chunk}`;
          const child = next.get(key) ?? next.set(key, { lo: at, hi: at + chunk, p: 0 }).get(key)!;
          child.p += weight;
          at += chunk;
        }
      }
    }
    frontier = next;
  }
  return out;
}

/** Fraction of `source`'s variants that break `target`. */
function breakFraction(defects: DefectModel, source: string, target: string): number {
  const variants = defects[source] ?? [];
  if (variants.length === 0) return source === target ? 1 : 0;
  return variants.filter((v) => v.breaks.includes(target)).length / variants.length;
}

/**
 * Joint state distributions of subtrees for one tracked requirement X: labelled by the level of
 * X's leaf when X is in the subtree (-1 otherwise), as a sub-probability per label.
 */
class SubtreeModel {
  private readonly memo = new Map<string, Map<number, JointDist>>();
  private readonly bitOf: Map<number, number>;

  constructor(
    private readonly params: SimModel,
    private readonly arm: Arm,
    private readonly attempts: number,
    private readonly total: number,
    tracked: number[],
    private readonly x: number,
    /** Subtrees holding no tracked requirement depend only on (size, level): shared across X. */
    private readonly untracked: Map<string, JointDist>,
  ) {
    this.bitOf = new Map(tracked.map((i, j) => [i, j]));
  }

  private bitsIn(lo: number, hi: number): number[] {
    const bits: number[] = [];
    for (const [i, j] of this.bitOf) if (i >= lo && i < hi) bits.push(j);
    return bits;
  }

  node(lo: number, hi: number, level: number, cap: number): Map<number, JointDist> {
    const bits = this.bitsIn(lo, hi);
    const key = `${lo},${hi},${level}`;
    if (bits.length === 0) {
      const ukey = `${this.bitOf.size},${hi - lo},${level},${cap}`;
      let d = this.untracked.get(ukey);
      if (!d) {
        d = this.compute(lo, hi, level, cap, bits).get(-1)!;
        this.untracked.set(ukey, d);
      }
      return new Map([[-1, d]]);
    }
    let got = this.memo.get(key);
    if (!got) {
      got = this.compute(lo, hi, level, cap, bits);
      this.memo.set(key, got);
    }
    return got;
  }

  /**
   * The collapse mode at the root's merge: with its rate the cell collapsed, and every
   * requirement not already defective was planted with its severity, before the merge loop.
   */
  private collapsed(d: JointDist, level: number, bits: number[], n: number): JointDist {
    const { rate, severity } = collapseOf(this.params);
    if (level !== 0 || rate === 0) return d;
    const out = JointDist.zero(this.bitOf.size, this.total);
    out.addScaled(d, 1 - rate);
    out.addScaled(d.plant(bits, n - bits.length, severity), rate);
    return out;
  }

  private compute(lo: number, hi: number, level: number, cap: number, bits: number[]): Map<number, JointDist> {
    const n = hi - lo;
    const p = this.params;
    const label = this.x >= lo && this.x < hi ? level : -1;
    // Shape options at this node: leaf, or split into each clamped k (held to max_children).
    let leafP = 1;
    const splits = new Map<string, { sizes: number[]; weight: number }>();
    if (hasRoom(level, cap) && n >= 2) {
      leafP = p.early_leaf_rate;
      for (const { sizes, p: pk } of splitShapes(p, n)) {
        const key = sizes.join(',');
        const entry = splits.get(key) ?? splits.set(key, { sizes, weight: 0 }).get(key)!;
        entry.weight += (1 - p.early_leaf_rate) * pk;
      }
    }
    const out = new Map<number, JointDist>();
    const add = (l: number, d: JointDist, weight: number) => {
      if (weight === 0) return;
      const acc = out.get(l) ?? JointDist.zero(this.bitOf.size, this.total);
      acc.addScaled(d, weight);
      out.set(l, acc);
    };
    if (leafP > 0) add(label, JointDist.leaf(this.bitOf.size, this.total, bits, n - bits.length, p.leaf_defect_rate), leafP);
    for (const { sizes, weight } of splits.values()) {
      if (weight === 0) continue;
      let acc = new Map<number, JointDist>([[-1, JointDist.empty(this.bitOf.size, this.total)]]);
      let at = lo;
      for (const size of sizes) {
        const child = this.node(at, at + size, level + 1, cap);
        const childBits = this.bitsIn(at, at + size);
        const next = new Map<number, JointDist>();
        for (const [l2, d2] of child) {
          const seamed = d2.seam(childBits, size - childBits.length, size, p.seam_defect_rate);
          for (const [l1, d1] of acc) {
            const l = l1 === -1 ? l2 : l1;
            const conv = d1.convolve(seamed);
            const prev = next.get(l);
            if (prev) prev.addScaled(conv, 1);
            else next.set(l, conv);
          }
        }
        acc = next;
        at += size;
      }
      for (const [l, d] of acc) add(l, this.collapsed(d, level, bits, n).mergeLoop(this.arm, this.attempts, recallOf(p, this.arm), p.repair_rate), weight);
    }
    return out;
  }
}

/**
 * P(achieved depth = d) for d = 0..cap: achieved depth is the deepest leaf's level, as the
 * engine counts planning levels (`achievedLevels`); 0 when the root executes itself.
 */
export function achievedDepthDistribution(params: SimModel, cap: number, requirementCount: number): { depth: number; probability: number }[] {
  // within[d](n, level): P(every leaf of a subtree of n requirements at `level` sits at level <= d).
  const within = (d: number) => {
    const memo = new Map<string, number>();
    const go = (n: number, level: number): number => {
      const key = `${n},${level}`;
      const hit = memo.get(key);
      if (hit !== undefined) return hit;
      let value: number;
      if (!hasRoom(level, cap) || n < 2) value = level <= d ? 1 : 0;
      else {
        value = params.early_leaf_rate * (level <= d ? 1 : 0);
        for (const { sizes, p } of splitShapes(params, n)) {
          value += (1 - params.early_leaf_rate) * p * sizes.reduce((prod, size) => prod * go(size, level + 1), 1);
        }
      }
      memo.set(key, value);
      return value;
    };
    return go(requirementCount, 0);
  };
  const cdf = Array.from({ length: cap + 1 }, (_, d) => within(d));
  return cdf.map((c, d) => ({ depth: d, probability: c - (d === 0 ? 0 : cdf[d - 1]!) }));
}

/** The closed-form truth of both arms at every cap: what a simulated sweep must recover. */
export function expectedCurves(
  params: SimModel,
  options: { caps: readonly number[]; mergeAttempts: number; defects: DefectModel; requirements: readonly string[] },
): Record<Arm, ArmTruthByCap> {
  const byArm = (arm: Arm): ArmTruthByCap =>
    Object.fromEntries(options.caps.map((cap) => [cap, expectedSurvival(params, { cap, arm, mergeAttempts: options.mergeAttempts, defects: options.defects, requirements: options.requirements })]));
  return { gated: byArm('gated'), ungated: byArm('ungated') };
}

/** Cap -> that cap's truth for one arm. */
export type ArmTruthByCap = Record<number, SimArmTruth>;
