import { describe, expect, it } from 'vitest';
import { Manifest, planInputFor, projectPlan } from '../../../harness/index.js';
import { patched, VALID_MANIFEST } from '../manifest/manifest-fixtures.js';

/** `harness plan` under max_children: the bound replaces projected_branching, and each planner is counted with its re-ask. */

const manifest = (patch: Record<string, unknown>) => Manifest.parse(patched(VALID_MANIFEST, patch));

describe('the plan bound (max_children)', () => {
  it('bills the tree max_children allows, each planning node with two planner sessions', () => {
    const bounded = projectPlan(planInputFor(manifest({ projected_branching: 4, max_children: 2 })));
    const scenario = projectPlan(planInputFor(manifest({ projected_branching: 2 })));
    expect(bounded.maxChildren).toBe(2);
    expect(bounded.branching).toBe(2);
    expect(scenario.maxChildren).toBeUndefined();
    for (const [i, cap] of bounded.caps.entries()) {
      const plain = scenario.caps[i]!;
      expect([cap.leaves, cap.planningNodes]).toEqual([2 ** cap.cap, 2 ** cap.cap - 1]);
      expect(cap.perCell.planning).toBe(2 * cap.planningNodes);
      // The same tree, plus one re-ask per planning node and pair (shared pairing: one build per pair).
      expect(cap.sessions - plain.sessions).toBe(cap.planningNodes * cap.repetitions);
      expect(cap.tokenBound).toBe(cap.sessions * 1_000_000);
    }
  });

  it('leaves the projection as it was without max_children', () => {
    const m = manifest({});
    expect(projectPlan(planInputFor(m))).toEqual(projectPlan({ ...planInputFor(m), branching: m.projected_branching }));
    expect(planInputFor(m)).not.toHaveProperty('maxChildren');
  });
});
