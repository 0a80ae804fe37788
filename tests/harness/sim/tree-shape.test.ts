import { describe, expect, it } from 'vitest';
import { maySplitAtDepth } from '../../../engine/index.js';
import { SimParams } from '../../../harness/index.js';
import { achievedDepthDistribution, hasRoom, isolatedDefects, samplePair } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

describe('the simulated tree shape obeys the engine depth cap', () => {
  it('lets a node at level k split iff k < cap, the rule the engine applies', () => {
    for (let cap = 0; cap <= 5; cap++) for (let level = 0; level <= 6; level++) expect([cap, level, hasRoom(level, cap)]).toEqual([cap, level, maySplitAtDepth(level, cap)]);
    expect([hasRoom(0, 1), hasRoom(1, 1), hasRoom(1, 2), hasRoom(2, 2)]).toEqual([true, false, true, false]);
  });

  it('puts every leaf of a full tree at level cap, so cap d holds b^d leaves as the plan prices it', () => {
    const params = SimParams.parse({ early_leaf_rate: 0, branching: { 2: 1 } });
    for (const cap of [1, 2, 3]) {
      const pair = samplePair(params, { cap, repetition: 1, mergeAttempts: 2, defects: isolatedDefects(SPEC_IDS), requirements: SPEC_IDS });
      expect(pair.shared.leaves.map((l) => l.level)).toEqual(new Array(2 ** cap).fill(cap));
      expect(pair.shared.achievedDepth).toBe(cap);
      expect(achievedDepthDistribution(params, cap, 42).at(-1)).toEqual({ depth: cap, probability: 1 });
    }
  });
});
