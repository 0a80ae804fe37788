import { describe, expect, it } from 'vitest';
import { SimParams } from '../../../harness/index.js';
import {
  applySeams,
  identityDraws,
  isolatedDefects,
  leafDraws,
  mergeLoop,
  planNode,
  seamDraws,
  splitChunks,
  type DecisionKey,
} from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

const DEFECTS = isolatedDefects(SPEC_IDS);
const CELL = { seed: 1, cap: 3, repetition: 0 };
const draws = identityDraws(CELL);
const present = (...reqs: string[]) => new Map(reqs.map((r) => [r, `isolated-${r}`]));

describe('the simulated planner', () => {
  it('cuts contiguous chunks as equal as possible, the first ones taking the extra', () => {
    expect(splitChunks(['a', 'b', 'c', 'd', 'e', 'f', 'g'], 3)).toEqual([['a', 'b', 'c'], ['d', 'e'], ['f', 'g']]);
    expect(splitChunks(['a', 'b'], 3)).toEqual([['a'], ['b']]);
  });

  it('executes without room or with one requirement, early with early_leaf_rate, and splits by the branching draw', () => {
    const params = SimParams.parse({ early_leaf_rate: 0, branching: { 3: 1 } });
    const node = { path: 'root', level: 0, requirements: SPEC_IDS };
    // The engine's rule: a node at level k splits iff k < cap, so at cap 1 the root may split and its children may not.
    expect(planNode(params, draws, { ...node, level: 1, path: 'root.0' }, 1)).toEqual({ kind: 'execute', reason: 'no-room' });
    expect(planNode(params, draws, node, 0)).toEqual({ kind: 'execute', reason: 'no-room' });
    expect(planNode(params, draws, { ...node, level: 1, requirements: ['R01'] }, 3)).toEqual({ kind: 'execute', reason: 'single-requirement' });
    expect(planNode(SimParams.parse({ early_leaf_rate: 1 }), draws, node, 2)).toEqual({ kind: 'execute', reason: 'early-leaf' });
    const split = planNode(params, draws, node, 2);
    expect(split.kind === 'split' && split.chunks.map((c) => c.length)).toEqual([14, 14, 14]);
    // k is clamped to the requirements owned.
    const small = planNode(SimParams.parse({ early_leaf_rate: 0, branching: { 5: 1 } }), draws, { ...node, requirements: ['R01', 'R02'] }, 2);
    expect(small).toEqual({ kind: 'split', chunks: [['R01'], ['R02']] });
  });
});

describe('the simulated leaf', () => {
  it('plants, leaves unresolved and fails to deliver at the rates given, and always claims its chunk', () => {
    const leaf = { path: 'root.1', requirements: ['R03', 'R04', 'R05'] };
    expect(leafDraws(SimParams.parse({ leaf_defect_rate: 1, unresolved_claim_rate: 1, non_delivery_rate: 1 }), draws, DEFECTS, leaf)).toEqual({
      delivered: false,
      claims: leaf.requirements.map((r) => ({ requirement: r, resolved: false, defect: `isolated-${r}` })),
    });
    expect(leafDraws(SimParams.parse({ leaf_defect_rate: 0, unresolved_claim_rate: 0, non_delivery_rate: 0 }), draws, DEFECTS, leaf)).toEqual({
      delivered: true,
      claims: leaf.requirements.map((r) => ({ requirement: r, resolved: true, defect: null })),
    });
  });
});

describe('the simulated merge', () => {
  it('draws seams once per merge and child, at attempt 1, into a requirement of that child', () => {
    const keys: DecisionKey[] = [];
    const children = [['R01', 'R02', 'R03'], ['R04', 'R05']];
    const seams = seamDraws(SimParams.parse({ seam_defect_rate: 1 }), (k) => (keys.push(k), draws(k)), DEFECTS, 'gated', { path: 'root', children });
    expect(seams.map((s) => s.child)).toEqual([0, 1]);
    seams.forEach((s) => expect(children[s.child]).toContain(s.requirement));
    expect(new Set(keys.map((k) => `${k.role} ${k.attempt} ${k.arm}`))).toEqual(new Set(['merger 1 gated']));
    expect(seamDraws(SimParams.parse({ seam_defect_rate: 0 }), draws, DEFECTS, 'gated', { path: 'root', children })).toEqual([]);
  });

  it('chooses the seam target uniformly among the child subtree requirements', () => {
    const counts = new Map<string, number>();
    const children = [['R01', 'R02', 'R03', 'R04']];
    for (let r = 0; r < 4000; r++) {
      const [seam] = seamDraws(SimParams.parse({ seam_defect_rate: 1 }), identityDraws({ ...CELL, repetition: r }), DEFECTS, 'ungated', { path: 'root', children });
      counts.set(seam!.requirement, (counts.get(seam!.requirement) ?? 0) + 1);
    }
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(4 * Math.sqrt(4000 * 0.25 * 0.75));
  });

  it('changes nothing when a seam lands on an already defective requirement', () => {
    const before = new Map([['R02', 'leaf-variant']]);
    expect(applySeams(before, [{ child: 0, requirement: 'R02', variant: 'seam-variant' }, { child: 1, requirement: 'R05', variant: 'isolated-R05' }])).toEqual(
      new Map([
        ['R02', 'leaf-variant'],
        ['R05', 'isolated-R05'],
      ]),
    );
  });

  it('gated stops at the first approval; ungated spends every attempt', () => {
    const sure = SimParams.parse({ judge_recall: 1, self_review_recall: 1, repair_rate: 1 });
    const gated = mergeLoop(sure, draws, 'gated', 4, 'root', present('R01', 'R02'));
    expect(gated.attempts).toEqual([
      { attempt: 1, repaired: [], found: ['R01', 'R02'] },
      { attempt: 2, repaired: ['R01', 'R02'], found: [] },
    ]);
    expect([gated.stop, gated.present.size]).toEqual(['approved', 0]);
    const ungated = mergeLoop(sure, draws, 'ungated', 4, 'root', present('R01', 'R02'));
    expect(ungated.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(ungated.stop).toBe('attempts-spent');
    // A blind judge approves at once and locks every defect in.
    const blind = mergeLoop(SimParams.parse({ judge_recall: 0 }), draws, 'gated', 4, 'root', present('R01'));
    expect([blind.attempts.length, blind.stop, [...blind.present.keys()]]).toEqual([1, 'approved', ['R01']]);
  });

  it('leaves the last review\'s findings unrepaired and never repairs what was not found', () => {
    const sure = SimParams.parse({ judge_recall: 1, self_review_recall: 1, repair_rate: 1 });
    const one = mergeLoop(sure, draws, 'gated', 1, 'root', present('R01'));
    expect([one.attempts, one.stop, [...one.present.keys()]]).toEqual([[{ attempt: 1, repaired: [], found: ['R01'] }], 'attempts-spent', ['R01']]);
    const blindSelf = mergeLoop(SimParams.parse({ self_review_recall: 0, repair_rate: 1 }), draws, 'ungated', 3, 'root', present('R01'));
    expect([...blindSelf.present.keys()]).toEqual(['R01']);
  });
});
