import { describe, expect, it } from 'vitest';
import { SimParams } from '../../../harness/index.js';
import { withBound } from '../../../harness/testing.js';
import { boundedSizes, planNode, splitShapes } from '../../../harness/testing.js';
import { sampleShared, isolatedDefects, streamDraws } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/** The SIMULATED planner under max_children: wide first plans, a seeded replan, else the engine's cut. */

const wide = withBound(SimParams.parse({ branching: { 3: 0.5, 5: 0.5 }, early_leaf_rate: 0 }), 2);

describe('the sim tree model under max_children', () => {
  it("keeps the engine's cut (first m - 1 kept, the rest merged) or an even replan", () => {
    expect(boundedSizes(10, 5, 2, false)).toEqual([2, 8]);
    expect(boundedSizes(10, 5, 3, false)).toEqual([2, 2, 6]);
    expect(boundedSizes(10, 5, 2, true)).toEqual([5, 5]);
    expect(boundedSizes(10, 2, 2, false)).toEqual([5, 5]);
    expect(boundedSizes(10, 5, undefined, false)).toEqual([2, 2, 2, 2, 2]);
  });

  it('gives split shapes whose probabilities sum to 1, none wider than the bound', () => {
    const shapes = splitShapes(wide, 10);
    expect(shapes.reduce((n, s) => n + s.p, 0)).toBeCloseTo(1, 12);
    expect(shapes.every((s) => s.sizes.length <= 2 && s.sizes.reduce((a, b) => a + b, 0) === 10)).toBe(true);
    expect(splitShapes(SimParams.parse({}), 10).map((s) => s.sizes)).toEqual([[5, 5], [4, 3, 3]]);
  });

  it('samples trees no node of which is wider than the bound, having planned wider first, both replanned and cut', () => {
    const outcomes = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const shared = sampleShared(wide, streamDraws(i), isolatedDefects(SPEC_IDS), 3, SPEC_IDS);
      const walk = (n: (typeof shared)['root']): void => {
        expect(n.children.length).toBeLessThanOrEqual(2);
        if (n.wide) {
          expect(n.wide.chunks.length).toBeGreaterThan(2);
          outcomes.add(n.wide.replanned ? 'replanned' : 'cut');
        }
        n.children.forEach(walk);
      };
      walk(shared.root);
    }
    expect(outcomes).toEqual(new Set(['replanned', 'cut']));
  });

  it('draws nothing more without a bound', () => {
    const keys: string[] = [];
    planNode(SimParams.parse({ branching: { 5: 1 } }), (key) => (keys.push(key.decision), 0.5), { path: 'root', level: 0, requirements: SPEC_IDS }, 2);
    expect(keys).toEqual(['early-leaf', 'branching']);
  });
});
