import { describe, expect, it } from 'vitest';
import { ARMS, SimParams } from '../../../harness/index.js';
import { expectedSurvival, isolatedDefects, mergeSurvival, passingRequirements, samplePair, type SimLeafRecord, type SimMergeRecord, type SimTreeNode } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

const DEFECTS = isolatedDefects(SPEC_IDS);
const PARAMS = SimParams.parse({ seam_defect_rate: 0.5, unresolved_claim_rate: 0.2, non_delivery_rate: 0.2 });

function internalNodes(node: SimTreeNode): SimTreeNode[] {
  return node.children.length === 0 ? [] : [...node.children.flatMap(internalNodes), node];
}

describe('the pure sampler of a pair', () => {
  it('partitions the requirements over leaves, records each leaf, and assembles every internal node deepest first in both arms', () => {
    for (let repetition = 0; repetition < 20; repetition++) {
      const pair = samplePair(PARAMS, { cap: 3, repetition, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS });
      const claimed = pair.shared.leaves.flatMap((l) => l.claims.map((c) => c.requirement));
      expect(claimed).toEqual([...SPEC_IDS]);
      // Achieved depth is the deepest leaf's level, as the engine counts it; a cap of 3 puts leaves at level 3 at most.
      expect(pair.shared.achievedDepth).toBe(Math.max(...pair.shared.leaves.map((l) => l.level)));
      expect(pair.shared.achievedDepth).toBeLessThanOrEqual(3);
      const order = internalNodes(pair.shared.root).map((n) => n.path);
      for (const arm of ARMS) {
        expect(pair.arms[arm].merges.map((m) => m.path)).toEqual(order);
        // Levels count resolved claims of delivered leaves only, passing or not.
        const expected = new Map<number, number>();
        for (const leaf of pair.shared.leaves) if (leaf.delivered) expected.set(leaf.level, (expected.get(leaf.level) ?? 0) + leaf.claims.filter((c) => c.resolved).length);
        expect(pair.arms[arm].levels.filter((l) => l.claims > 0).map((l) => [l.level, l.claims])).toEqual([...expected].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]));
        expect(pair.arms[arm].specFraction).toBe(pair.arms[arm].passing.length / 42);
      }
      expect(pair.unresolvedClaims).toBe(pair.shared.leaves.flatMap((l) => l.claims).filter((c) => !c.resolved).length);
    }
  });

  it('differs between arms only at merges: a defect no merge touched is present in both graded trees', () => {
    const params = SimParams.parse({ seam_defect_rate: 0, judge_recall: 0, self_review_recall: 0 });
    const pair = samplePair(params, { cap: 2, repetition: 3, mergeAttempts: 2, defects: DEFECTS, requirements: SPEC_IDS });
    const planted = pair.shared.leaves.flatMap((l) => l.claims.filter((c) => c.defect !== null).map((c) => c.requirement)).sort();
    expect(planted.length).toBeGreaterThan(0);
    for (const arm of ARMS) expect([...pair.arms[arm].present.keys()].sort()).toEqual(planted);
  });

  it('with its sha256 identity draws, recovers the closed form (1000 pairs, 4 SE)', () => {
    const params = SimParams.parse({ seam_defect_rate: 0.5 });
    const sums = { gated: [0, 0], ungated: [0, 0] };
    const perCell: Record<string, [number, number][]> = { gated: [], ungated: [] };
    const perMerge: Record<string, [number, number][][]> = { gated: [[], []], ungated: [[], []] };
    for (let repetition = 0; repetition < 1000; repetition++) {
      const pair = samplePair(params, { cap: 2, repetition, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS });
      for (const arm of ARMS) {
        const y = pair.arms[arm].levels.reduce((a, l) => a + l.passing, 0);
        const x = pair.arms[arm].levels.reduce((a, l) => a + l.claims, 0);
        sums[arm][0]! += y;
        sums[arm][1]! += x;
        perCell[arm]!.push([y, x]);
        for (const k of [0, 1]) {
          const m = pair.arms[arm].mergeSurvival.levels.find((c) => c.mergeLevel === k);
          perMerge[arm]![k]!.push([m?.passing ?? 0, m?.claims ?? 0]);
        }
      }
    }
    for (const arm of ARMS) {
      const r = sums[arm][0]! / sums[arm][1]!;
      const xbar = sums[arm][1]! / 1000;
      const se = Math.sqrt(perCell[arm]!.reduce((a, [y, x]) => a + (y - r * x) ** 2, 0) / 999 / 1000) / xbar;
      const truth = expectedSurvival(params, { cap: 2, arm, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS }).survival!;
      expect(Math.abs(r - truth)).toBeLessThan(4 * se);
      // Survival after each merge level, by the same ratio estimator.
      const merges = expectedSurvival(params, { cap: 2, arm, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS }).merges;
      for (const k of [0, 1]) {
        const cells = perMerge[arm]![k]!;
        const ys = cells.reduce((a, [y]) => a + y, 0);
        const xs = cells.reduce((a, [, x]) => a + x, 0);
        const rk = ys / xs;
        const sek = Math.sqrt(cells.reduce((a, [y, x]) => a + (y - rk * x) ** 2, 0) / 999 / 1000) / (xs / 1000);
        expect(Math.abs(rk - merges[k]!.survival!)).toBeLessThan(4 * sek);
      }
    }
  }, 60_000);

  it('grades every merge on its own requirements: the passing of a merged tree is the defect model over them with its loop present, and the root merge is the root grade', () => {
    for (let repetition = 0; repetition < 20; repetition++) {
      const pair = samplePair(PARAMS, { cap: 3, repetition, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS });
      const nodes = new Map(internalNodes(pair.shared.root).map((n) => [n.path, n]));
      for (const arm of ARMS) {
        const sample = pair.arms[arm];
        for (const merge of sample.merges) {
          expect(merge.requirements).toEqual(nodes.get(merge.path)!.requirements);
          expect(merge.passing).toEqual(passingRequirements(DEFECTS, merge.requirements, merge.loop.present));
        }
        const root = sample.merges.find((m) => m.path === 'root');
        if (root) expect(root.passing).toEqual(sample.passing);
        // Merge level 0 is the root's merge: the claims of every leaf below the root, graded as the root is.
        const levels = sample.mergeSurvival.levels;
        const level0 = levels.find((m) => m.mergeLevel === 0);
        const below = sample.levels.filter((l) => l.level >= 1);
        if (root) expect(level0).toEqual({ mergeLevel: 0, claims: below.reduce((a, l) => a + l.claims, 0), passing: below.reduce((a, l) => a + l.passing, 0) });
        else expect(levels).toEqual([]);
        expect(levels.map((m) => m.mergeLevel)).toEqual([...new Set(sample.merges.map((m) => m.level))].sort());
        // Every counted claim is traced through every merge above its leaf, parent first, and the counts pool those grades.
        const { claims } = sample.mergeSurvival;
        expect(claims.length).toBe(sample.levels.reduce((a, l) => a + l.claims, 0));
        for (const c of claims) expect(c.grades.map((g) => g.path)).toEqual(c.leaf.split('.').slice(0, -1).map((_, i, parts) => parts.slice(0, parts.length - i).join('.')));
        expect(levels.map((l) => [l.claims, l.passing])).toEqual(
          levels.map((l) => {
            const at = claims.flatMap((c) => c.grades.filter((g) => g.level === l.mergeLevel));
            return [at.length, at.filter((g) => g.passes).length];
          }),
        );
        expect(sample.mergeSurvival).toEqual(mergeSurvival(pair.shared.leaves, sample.merges));
      }
    }
  });
});

describe('merge-by-merge survival of one assembled tree', () => {
  // root -> root.0 (-> leaves root.0.0 [A, B], root.0.1 [C]) and leaf root.1 [D, E].
  const leaf = (path: string, delivered: boolean, claims: [string, boolean][]): SimLeafRecord => ({
    path,
    level: path.split('.').length - 1,
    delivered,
    claims: claims.map(([requirement, resolved]) => ({ requirement, resolved, defect: null })),
  });
  const leaves = [leaf('root.0.0', true, [['A', true], ['B', true]]), leaf('root.0.1', true, [['C', false], ['F', true]]), leaf('root.1', false, [['D', true], ['E', true]])];
  const merge = (path: string, requirements: string[], passing: string[]): SimMergeRecord => ({
    path,
    level: path.split('.').length - 1,
    seams: [],
    loop: { attempts: [], stop: 'attempts-spent', present: new Map() },
    requirements,
    passing,
  });
  // A passes at root.0 and dies at the root; B dies at root.0 and is repaired (revives) at the root; F passes at both; C is unresolved; D and E undelivered.
  const merges = [merge('root.0', ['A', 'B', 'C', 'F'], ['A', 'C', 'F']), merge('root', ['A', 'B', 'C', 'F', 'D', 'E'], ['B', 'C', 'F', 'D'])];

  it('counts per merge level the resolved claims of delivered leaves under each node, and those passing in its merged tree', () => {
    expect(mergeSurvival(leaves, merges).levels).toEqual([
      { mergeLevel: 0, claims: 3, passing: 2 },
      { mergeLevel: 1, claims: 3, passing: 2 },
    ]);
  });

  it('traces each counted claim up its path: where it last passed, and a revival when it fails and then passes shallower', () => {
    const { claims, revivals } = mergeSurvival(leaves, merges);
    expect(claims.map((c) => [c.requirement, c.grades.map((g) => `${g.path}:${g.passes ? 'pass' : 'fail'}`).join(' '), c.lastPassed, c.revived])).toEqual([
      ['A', 'root.0:pass root:fail', 'root.0', false],
      ['B', 'root.0:fail root:pass', 'root', true],
      ['F', 'root.0:pass root:pass', 'root', false],
    ]);
    expect(revivals.map((c) => c.requirement)).toEqual(['B']);
  });

  it('a root that executed whole has no merge and every claim an empty path', () => {
    const alone = mergeSurvival([leaf('root', true, [['A', true]])], []);
    expect(alone).toEqual({ levels: [], claims: [{ leaf: 'root', leafLevel: 0, requirement: 'A', grades: [], lastPassed: null, revived: false }], revivals: [] });
  });
});
