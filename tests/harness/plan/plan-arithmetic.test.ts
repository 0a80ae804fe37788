import { describe, expect, it } from 'vitest';
import { applyCeiling, cellOrder, cellSessions, COURT, GRADING_SECONDS, Manifest, mergeGradings, ownSessions, pairOfRole, planInputFor, projectPlan, roleOfSession, sessionPriceUsd, sessionsByPair, SessionKind, treeShape, type PlanInput } from '../../../harness/index.js';
import { DRIFT_ALLOWANCE } from '../../../engine/index.js';
import { VALID_MANIFEST } from '../manifest/manifest-fixtures.js';

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

  it("bills the drift judge at the allowance the engine enforces per loop", () => {
    expect(COURT.driftPerLoop).toBe(DRIFT_ALLOWANCE);
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
    // Reviewer sessions per pair: 4 leaf verifiers (2 kinds x 2 arms) per leaf, and per planning node 2 seam meta-verifiers and 2 gated judges: 4L + 4P.
    expect(plan.total).toEqual({ cells: 24, sessions: 34_200, sessionsByPair: { executor: 34_200 - 7024, reviewer: 2 * 20 + 2 * 84 + 4 * 340 + 4 * 1364 }, tokenBound: 34_200e6, costBoundUsd: 171_000 });
    expect(plan.ceiling.exceeded).toBe(false);
    expect(plan.caps[0]).not.toHaveProperty('pricedUsd');
  });

  // Rates far apart, each session under the $5 cost ceiling: at the 1M-token ceiling and 10:1 an
  // executor session costs $1 and a reviewer session $0.01, so a session priced at the wrong
  // pair's rate moves the figure by $0.99.
  const pricing = { executor: { input: 1, output: 1 }, reviewer: { input: 0.01, output: 0.01 }, inputPerOutput: 10 };

  it('prices every session at the pair the router sends its role to: verifiers, meta-verifiers and the gated review at the reviewer’s rates', () => {
    const plan = projectPlan({ ...input, caps: [1], repetitions: { 1: 1 }, pricing });
    // cap 1, b = 4, independent: each arm 4 leaves and 1 planning node, 2 merge attempts.
    // reviewer, gated: 4 leaf meta-verifiers + 4 leaf verifiers + 1 seam meta-verifier + 2 merge judges = 11;
    // reviewer, ungated: the same but its 2 self-reviews, which the executor answers = 9.
    expect(plan.caps[0]!.sessionsByPair).toEqual({ executor: 36 + 38, reviewer: 11 + 9 });
    expect(plan.caps[0]!.pricedUsd).toBeCloseTo(74 * 1 + 20 * 0.01, 9);
    expect(plan.total.sessionsByPair).toEqual(plan.caps[0]!.sessionsByPair);
  });

  it('names each kind of session by its role, and so its pair, in each arm', () => {
    const table = SessionKind.options.map((kind) => {
      const [gated, ungated] = (['gated', 'ungated'] as const).map((arm) => `${roleOfSession(kind, arm)} -> ${pairOfRole(roleOfSession(kind, arm))}`);
      return `${kind}: ${gated === ungated ? gated : `gated ${gated}, ungated ${ungated}`}`;
    });
    // A leaf's kinds are the COURT's 4 a leaf opens.
    expect(SessionKind.options.filter((kind) => kind.startsWith('leaf'))).toHaveLength(COURT.leaf);
    expect(table).toMatchInlineSnapshot(`
      [
        "leafChecker: checker -> executor",
        "leafWorker: worker -> executor",
        "leafMetaVerifier: verifier -> reviewer",
        "leafVerifier: verifier -> reviewer",
        "planner: planner -> executor",
        "mergeChecker: checker -> executor",
        "mergeMetaVerifier: verifier -> reviewer",
        "merger: merger -> executor",
        "review: gated reviewer -> reviewer, ungated self_reviewer -> executor",
        "driftJudge: drift_judge -> executor",
      ]
    `);
  });

  it('counts a cell by pair from the same per-kind count the bill sums', () => {
    const [gated, ungated] = ownSessions(
      [
        { cap: 2, repetition: 1 },
        { cap: 2, repetition: 1 },
      ],
      { branching: 4, mergeAttempts: 2, pairing: 'shared' },
    );
    // cap 2, b = 4: 16 leaves, 5 planning nodes, 10 mergers. The gated arm builds the shared tree.
    expect(sessionsByPair(gated!.byKind, 'gated')).toEqual({ executor: 16 * 2 + 5 + 5 + 10 + (16 + 10) * 4, reviewer: 16 * 2 + 5 + 10 });
    expect(sessionsByPair(ungated!.byKind, 'ungated')).toEqual({ executor: 5 + 10 + 10 + 10 * 4, reviewer: 5 });
    expect([gated!.buildsTree, ungated!.buildsTree, gated!.sessions.total, ungated!.sessions.total]).toEqual([true, false, 203, 70]);
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

  it('prices a shared build once, its leaves’ verifiers at the reviewer’s rates, then each arm’s merges by who answers them', () => {
    const plan = projectPlan({ ...input, pairing: 'shared', caps: [1], repetitions: { 1: 1 }, pricing });
    // cap 1, b = 4. Build, once: 33 sessions, of them 4 meta-verifiers + 4 verifiers on the reviewer.
    // Gated merges: 14, the seam meta-verifier and 2 judges on the reviewer. Ungated: 14, its seam meta-verifier on the reviewer.
    expect(plan.caps[0]!.sessionsByPair).toEqual({ executor: 25 + 11 + 13, reviewer: 8 + 3 + 1 });
    expect(plan.caps[0]!.pricedUsd).toBeCloseTo(49 * 1 + 12 * 0.01, 9);
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

describe('merge gradings (grade_merges)', () => {
  const input = { caps: [4, 1, 2], arms: ['gated', 'ungated'] as const, repetitions: { 1: 2, 2: 1, 4: 1 }, branching: 4 };

  it('counts one oracle grading per assembling node and arm, the root grade left out as extra, per cap and in all, with its time', () => {
    expect(GRADING_SECONDS).toBe(17);
    expect(mergeGradings(input, 'simulated')).toMatchInlineSnapshot(`
      {
        "caps": [
          {
            "assemblingNodes": 1,
            "cap": 1,
            "extra": 0,
            "extraPerPair": 0,
            "gradingsPerPair": 2,
            "repetitions": 2,
            "seconds": 0,
          },
          {
            "assemblingNodes": 5,
            "cap": 2,
            "extra": 8,
            "extraPerPair": 8,
            "gradingsPerPair": 10,
            "repetitions": 1,
            "seconds": 136,
          },
          {
            "assemblingNodes": 85,
            "cap": 4,
            "extra": 168,
            "extraPerPair": 168,
            "gradingsPerPair": 170,
            "repetitions": 1,
            "seconds": 2856,
          },
        ],
        "secondsPerGrading": 17,
        "source": "simulated",
        "total": {
          "extra": 176,
          "gradings": 184,
          "seconds": 2992,
        },
      }
    `);
    // One arm recorded grades its own merges only.
    expect(mergeGradings({ ...input, arms: ['ungated'] }, 'manifest').caps.map((c) => [c.gradingsPerPair, c.extraPerPair])).toEqual([[1, 0], [5, 4], [85, 84]]);
  });

  it('is in the projection exactly when grade_merges resolves on, whatever the pairing', () => {
    const base: PlanInput = { ...input, arms: ['gated', 'ungated'], mergeAttempts: 2, unit: { tokenCeiling: 1000, costCeilingUsd: 1 }, maxSessions: 10_000 };
    expect(projectPlan(base)).not.toHaveProperty('mergeGradings');
    for (const pairing of ['shared', 'independent'] as const) expect(projectPlan({ ...base, pairing, gradeMerges: 'manifest' }).mergeGradings).toEqual(mergeGradings(input, 'manifest'));
  });

  it('resolves grade_merges from the manifest: its own choice, else on exactly for a SIMULATED sweep', () => {
    const manifest = Manifest.parse(VALID_MANIFEST);
    expect(planInputFor(manifest).gradeMerges).toBeUndefined();
    expect(planInputFor(manifest, undefined, undefined, true).gradeMerges).toBe('simulated');
    expect(planInputFor({ ...manifest, grade_merges: true }).gradeMerges).toBe('manifest');
    expect(planInputFor({ ...manifest, grade_merges: false }, undefined, undefined, true).gradeMerges).toBeUndefined();
  });
});
