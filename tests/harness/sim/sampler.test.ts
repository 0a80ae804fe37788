import { describe, expect, it } from 'vitest';
import { ARMS, SQLCSV_REQUIREMENTS, SimParams, expectedSurvival, isolatedDefects, samplePair, type SimTreeNode } from '../../../harness/index.js';

const DEFECTS = isolatedDefects(SQLCSV_REQUIREMENTS);
const PARAMS = SimParams.parse({ seam_defect_rate: 0.5, unresolved_claim_rate: 0.2, non_delivery_rate: 0.2 });

function internalNodes(node: SimTreeNode): SimTreeNode[] {
  return node.children.length === 0 ? [] : [...node.children.flatMap(internalNodes), node];
}

describe('the pure sampler of a pair', () => {
  it('partitions the requirements over leaves, records each leaf, and assembles every internal node deepest first in both arms', () => {
    for (let repetition = 0; repetition < 20; repetition++) {
      const pair = samplePair(PARAMS, { cap: 3, repetition, mergeAttempts: 3, defects: DEFECTS, requirements: SQLCSV_REQUIREMENTS });
      const claimed = pair.shared.leaves.flatMap((l) => l.claims.map((c) => c.requirement));
      expect(claimed).toEqual([...SQLCSV_REQUIREMENTS]);
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
    const pair = samplePair(params, { cap: 2, repetition: 3, mergeAttempts: 2, defects: DEFECTS, requirements: SQLCSV_REQUIREMENTS });
    const planted = pair.shared.leaves.flatMap((l) => l.claims.filter((c) => c.defect !== null).map((c) => c.requirement)).sort();
    expect(planted.length).toBeGreaterThan(0);
    for (const arm of ARMS) expect([...pair.arms[arm].present.keys()].sort()).toEqual(planted);
  });

  it('with its sha256 identity draws, recovers the closed form (1000 pairs, 4 SE)', () => {
    const params = SimParams.parse({ seam_defect_rate: 0.5 });
    const sums = { gated: [0, 0], ungated: [0, 0] };
    const perCell: Record<string, [number, number][]> = { gated: [], ungated: [] };
    for (let repetition = 0; repetition < 1000; repetition++) {
      const pair = samplePair(params, { cap: 2, repetition, mergeAttempts: 3, defects: DEFECTS, requirements: SQLCSV_REQUIREMENTS });
      for (const arm of ARMS) {
        const y = pair.arms[arm].levels.reduce((a, l) => a + l.passing, 0);
        const x = pair.arms[arm].levels.reduce((a, l) => a + l.claims, 0);
        sums[arm][0]! += y;
        sums[arm][1]! += x;
        perCell[arm]!.push([y, x]);
      }
    }
    for (const arm of ARMS) {
      const r = sums[arm][0]! / sums[arm][1]!;
      const xbar = sums[arm][1]! / 1000;
      const se = Math.sqrt(perCell[arm]!.reduce((a, [y, x]) => a + (y - r * x) ** 2, 0) / 999 / 1000) / xbar;
      const truth = expectedSurvival(params, { cap: 2, arm, mergeAttempts: 3, defects: DEFECTS, requirements: SQLCSV_REQUIREMENTS }).survival!;
      expect(Math.abs(r - truth)).toBeLessThan(4 * se);
    }
  }, 60_000);
});
