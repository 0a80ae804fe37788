import { describe, expect, it } from 'vitest';
import { applyCeiling, cellOrder, cellSessions, COURT, projectPlan, sessionPriceUsd, treeShape, type PlanInput } from '../../../harness/index.js';

describe('tree shape', () => {
  it.each([
    // b, d, leaves, planning nodes
    [2, 1, 2, 1],
    [2, 2, 4, 3],
    [4, 1, 4, 1],
    [4, 3, 64, 21],
    [4, 4, 256, 85],
    [3, 5, 243, 121],
  ])('b = %d, cap %d: %d leaves under %d planning nodes', (b, d, leaves, planningNodes) => {
    expect(treeShape(b, d)).toEqual({ leaves, planningNodes });
  });

  it('allows a fractional branching (the measured 4.4), giving fractional counts the report rounds', () => {
    const shape = treeShape(4.4, 3);
    expect(shape.leaves).toBeCloseTo(85.184, 9);
    expect(shape.planningNodes).toBeCloseTo((85.184 - 1) / 3.4, 9);
  });

  it('refuses a branching of 1 or less: the formula divides by b - 1 and no tree grows', () => {
    expect(() => treeShape(1, 3)).toThrow(RangeError);
    expect(() => treeShape(0.5, 3)).toThrow(RangeError);
  });
});

describe('sessions per cell', () => {
  it('counts the court: 4 per leaf; per planning node a planner, a merge checker and a merger and a review per attempt; plus the stated drift allowance per worker and merger', () => {
    // 64 leaves x 4 = 256; 21 planners; 21 x (1 seam checker + 1 meta-verifier + 2 mergers) = 84; 21 x 2 reviews = 42; allowance (64 workers + 42 mergers) x 4.
    expect(cellSessions({ leaves: 64, planningNodes: 21 }, 2)).toEqual({ build: 256, planning: 21, merge: 84, review: 42, required: 403, allowance: 424, total: 827 });
    expect(cellSessions({ leaves: 4, planningNodes: 1 }, 3)).toEqual({ build: 16, planning: 1, merge: 5, review: 3, required: 25, allowance: 28, total: 53 });
    expect(COURT).toEqual({ leaf: 4, planner: 1, mergeChecker: 1, mergeMetaVerifier: 1, perAttempt: 2, driftPerLoop: 4 });
  });
});

describe('cell order', () => {
  it('is caps ascending, then repetition, then arm (gated first), whatever order the input lists them in', () => {
    expect(cellOrder([2, 1], ['ungated', 'gated'], { 1: 1, 2: 2 }).map((cell) => cell.id)).toEqual([
      'cap1-rep1-gated',
      'cap1-rep1-ungated',
      'cap2-rep1-gated',
      'cap2-rep1-ungated',
      'cap2-rep2-gated',
      'cap2-rep2-ungated',
    ]);
  });

  it('records one arm alone when only one is asked for', () => {
    expect(cellOrder([3], ['ungated'], { 3: 2 })).toEqual([
      { cap: 3, repetition: 1, arm: 'ungated', id: 'cap3-rep1-ungated' },
      { cap: 3, repetition: 2, arm: 'ungated', id: 'cap3-rep2-ungated' },
    ]);
  });
});

describe('the ceiling', () => {
  const cells = cellOrder([1, 2], ['gated', 'ungated'], { 1: 1, 2: 1 }).map((cell) => ({ ...cell, sessions: cell.cap === 1 ? 10 : 100 }));

  it('fits when the total is at most the ceiling (equal counts as fitting)', () => {
    const { ceiling } = applyCeiling(cells, 220);
    expect(ceiling).toEqual({ maxSessions: 220, exceeded: false, overBy: 0, measured: 4, unmeasured: [] });
  });

  it('marks the cell it is reached inside, and every later one as never started', () => {
    const { cells: projected, ceiling } = applyCeiling(cells, 150);
    expect(projected.map((cell) => [cell.id, cell.cumulative, cell.fate])).toEqual([
      ['cap1-rep1-gated', 10, 'fits'],
      ['cap1-rep1-ungated', 20, 'fits'],
      ['cap2-rep1-gated', 120, 'fits'],
      ['cap2-rep1-ungated', 220, 'stops_inside'],
    ]);
    expect(ceiling).toMatchObject({ exceeded: true, overBy: 70, measured: 3 });
    expect(applyCeiling(cells, 15).cells.map((cell) => cell.fate)).toEqual(['fits', 'stops_inside', 'not_started', 'not_started']);
  });

  it('takes per-cell figures from anywhere, so a forecast from recorded costs can reuse it', () => {
    const recorded = cells.map((cell, i) => ({ ...cell, sessions: [12, 9, 170, 150][i]! }));
    expect(applyCeiling(recorded, 200).ceiling.unmeasured.map((cell) => cell.id)).toEqual(['cap2-rep1-ungated']);
  });
});

describe('projectPlan', () => {
  const input: PlanInput = {
    caps: [1, 2, 3, 4],
    arms: ['gated', 'ungated'],
    repetitions: { 1: 2, 2: 2, 3: 4, 4: 4 },
    branching: 4,
    mergeAttempts: 2,
    unit: { tokenCeiling: 1_000_000, costCeilingUsd: 5 },
    maxSessions: 40_000,
    pairing: 'independent',
  };

  it('sums sessions per cap and in total, with the token and cost bounds they imply', () => {
    const plan = projectPlan(input);
    expect(plan.caps.map((cap) => [cap.cap, cap.perCell.total, cap.cells, cap.sessions])).toEqual([
      [1, 47, 4, 188],
      [2, 203, 4, 812],
      [3, 827, 8, 6616],
      [4, 3323, 8, 26_584],
    ]);
    expect(plan.total).toEqual({ cells: 24, sessions: 34_200, tokenBound: 34_200e6, costBoundUsd: 171_000 });
    expect(plan.ceiling.exceeded).toBe(false);
    expect(plan.caps[0]).not.toHaveProperty('pricedUsd');
  });

  it('prices the executor for every session but the gated arm’s reviews, which the reviewer answers', () => {
    const plan = projectPlan({ ...input, caps: [1], repetitions: { 1: 1 }, pricing: { executor: { input: 10, output: 10 }, reviewer: { input: 1, output: 1 }, inputPerOutput: 10 } });
    // cap 1, b = 4: 47 sessions per cell, 2 of them reviews. At its 1M-token ceiling an executor
    // session would cost $10 and is held to the $5 cost ceiling; a reviewer session costs $1.
    expect(plan.caps[0]!.pricedUsd).toBe(45 * 5 + 2 * 1 + 47 * 5);
    expect(plan.total.pricedUsd).toBe(462);
  });

  it('prices a session at its token ceiling split input:output, held by the cost ceiling', () => {
    expect(sessionPriceUsd({ input: 3, output: 15 }, 1_000_000, 100, 10)).toBeCloseTo(45 / 11, 12);
    expect(sessionPriceUsd({ input: 3, output: 15 }, 1_000_000, 2, 10)).toBe(2);
    expect(sessionPriceUsd({ input: 0, output: 0 }, 1_000_000, 2, 10)).toBe(0);
  });

  it('prices shared pairing per pair: leaves and planning once, then each arm\'s merges times attempts', () => {
    const shared = projectPlan({ ...input, pairing: 'shared' });
    // cap 2, b = 4: 16 leaves x (4 + 4 drift) + 5 planners built once = 133; each arm 5 x [seam checker + its meta-verifier + 2 x (merger + review + 4 drift)] = 70.
    expect(shared.caps[1]!.perPair).toEqual({ pairing: 'shared', arms: 2, buildPerTree: 133, mergesPerArm: 70, required: 129, total: 273 });
    expect(projectPlan(input).caps[1]!.perPair).toEqual({ pairing: 'independent', arms: 2, buildPerTree: 133, mergesPerArm: 70, required: 198, total: 406 });
    expect(shared.caps.map((cap) => cap.sessions)).toEqual([2 * 61, 2 * 273, 4 * 1121, 4 * 4513]);
    // The first arm of each pair pays for the build it shares; the second only for its merges.
    expect(shared.cells.filter((cell) => cell.cap === 2).map((cell) => [cell.id, cell.sessions])).toEqual([
      ['cap2-rep1-gated', 203],
      ['cap2-rep1-ungated', 70],
      ['cap2-rep2-gated', 203],
      ['cap2-rep2-ungated', 70],
    ]);
    // One arm alone: there is nothing to share.
    const alone = projectPlan({ ...input, arms: ['ungated'], pairing: 'shared' });
    expect(alone.total.sessions).toBe(projectPlan({ ...input, arms: ['ungated'] }).total.sessions);
  });

  it('prices a shared build at the executor\'s rate once, and each arm\'s reviews at its reviewer\'s', () => {
    const plan = projectPlan({ ...input, pairing: 'shared', caps: [1], repetitions: { 1: 1 }, pricing: { executor: { input: 10, output: 10 }, reviewer: { input: 1, output: 1 }, inputPerOutput: 10 } });
    // cap 1, b = 4: build 33 sessions once ($5 each); gated 12 merge sessions ($5) + 2 reviews ($1); ungated 14 x $5.
    expect(plan.caps[0]!.pricedUsd).toBe(33 * 5 + (12 * 5 + 2 * 1) + 14 * 5);
  });

  it('covers only the caps asked for, and judges them against the ceiling alone', () => {
    const plan = projectPlan({ ...input, caps: [1, 2], maxSessions: 700 });
    expect(plan.total.sessions).toBe(1000);
    expect(plan.ceiling).toMatchObject({ exceeded: true, overBy: 300, measured: 6 });
    expect(plan.ceiling.unmeasured.map((cell) => [cell.id, cell.fate])).toEqual([
      ['cap2-rep2-gated', 'stops_inside'],
      ['cap2-rep2-ungated', 'not_started'],
    ]);
  });
});
