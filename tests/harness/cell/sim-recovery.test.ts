import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryEventSink } from '../../../engine/index.js';
import { REPO_ROOT, SimParams, beyondClaims, deliverableOf, mergeDecaySection, predictCell, simSetup, survivalTally, type SimSetup } from '../../../harness/index.js';
import { oracleGrader, passingRequirements, runPair, simPathOf, specObjective, type PairRun } from '../../../harness/testing.js';
import { HAS_DOCKER, testProvider } from '../../support/docker.js';
import { witnessCaseIds } from '../../support/witness-oracle.js';

/**
 * The published path recovers the pure model exactly: two SIMULATED pairs run through the one
 * pair runner (the real engine, leaves built in Docker, merges graded by the real grader with the
 * oracle's witness cases), and
 * per cell the oracle's passing requirements, the measured claims at every level (level 0
 * included) and every merged subtree's grade equal what the pure sampler predicts for the
 * same seed. A cap-1 pair whose root executes whole (its claims are the objective's: level 0),
 * and a cap-2 pair with an early leaf beside a split child, merges graded (grade_merges), and
 * every leaf's own tree graded (grade_leaves).
 */

const SPEC = path.join(REPO_ROOT, 'spec', 'sqlcsv');
const RATES = { leaf_defect_rate: 0.25, seam_defect_rate: 0.5, judge_recall: 0.8, self_review_recall: 0.2, repair_rate: 0.8, non_delivery_rate: 0 };
const MERGE_ATTEMPTS = 2;

interface Recorded {
  setup: SimSetup;
  pair: PairRun;
}

async function record(params: SimParams, cap: number, work: string, entryPoints: readonly string[]): Promise<Recorded> {
  const objective = await specObjective(SPEC);
  const setup = await simSetup({ specDir: SPEC, params, maxDepth: cap, repetition: 1, mergeAttempts: MERGE_ATTEMPTS, requirements: objective.requirements });
  // The oracle's witness cases, the few that decide a SIMULATED tree's verdicts (witness-oracle.ts): what the
  // whole oracle says of each planted defect is the corpus's property (corpus-validity.test.ts).
  const witnesses = await witnessCaseIds('sqlcsv');
  const grade = oracleGrader({ specDir: SPEC, runId: `test-recovery-${cap}`, limits: { caseTimeoutMs: 20_000 }, caseIds: witnesses });
  const pair = await runPair({
    cell: { cap, repetition: 1 },
    engine: {
      goal: objective.goal, budget: 20_000_000, mergeAttempts: MERGE_ATTEMPTS, roster: setup.roster, clients: setup.clients, sandboxes: testProvider(),
      workRoot: path.join(work, `cap${cap}`), runId: `test-recovery-${cap}`, events: new MemoryEventSink(), objective: { context: objective.context, criteria: objective.criteria },
    },
    grade,
    gradeMerges: { entryPoints },
    gradeLeaves: { entryPoints },
  });
  return { setup, pair };
}

/** The first seed at which the cap-2 tree has a leaf at level 1 beside a child that splits: searched in the pure model, so the test is never vacuous. */
async function earlyLeafSeed(): Promise<SimParams> {
  const objective = await specObjective(SPEC);
  for (let seed = 1; seed < 200; seed++) {
    const params = SimParams.parse({ ...RATES, seed, branching: { 2: 1 }, early_leaf_rate: 0.5, unresolved_claim_rate: 0.1 });
    const setup = await simSetup({ specDir: SPEC, params, maxDepth: 2, repetition: 1, mergeAttempts: MERGE_ATTEMPTS, requirements: objective.requirements });
    const levels = new Set(setup.world.tree(null).phase.leaves.map((l) => l.level));
    if (levels.has(1) && levels.has(2)) return params;
  }
  throw new Error('no seed below 200 gives a cap-2 tree with an early leaf');
}

describe.runIf(HAS_DOCKER)('the published path recovers the pure model exactly, level 0 and every merge included', () => {
  const runs: Recorded[] = [];
  let work = '';

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'rdh-recovery-'));
    const { entry_points } = await deliverableOf(SPEC);
    // The root executes whole (early_leaf_rate 1); a planner never wrote its claims, so none is unresolved whatever the rate.
    const whole = SimParams.parse({ ...RATES, seed: 3, early_leaf_rate: 1, unresolved_claim_rate: 0.5 });
    runs.push(await record(whole, 1, work, entry_points));
    runs.push(await record(await earlyLeafSeed(), 2, work, entry_points));
  }, 3_600_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('a root that executes is measured at level 0, with the objective’s claims, all resolved', () => {
    const { pair } = runs[0]!;
    for (const arm of pair.arms) {
      expect(arm.measurement.leaves.map((l) => [l.path, l.level, l.claims.length, l.claims.every((c) => c.requirement !== null)])).toEqual([['root', 0, 42, true]]);
      expect(arm.measurement.merges).toEqual([]);
    }
  });

  it('per cell: the oracle’s passing requirements and the measured claims at every level equal the prediction', () => {
    for (const { setup, pair } of runs) {
      const predicted = predictCell(setup.world);
      expect(pair.arms.map((a) => a.arm)).toEqual(['gated', 'ungated']);
      for (const { arm, measurement, grade } of pair.arms) {
        const expected = predicted[arm];
        // A mismatch names its cases and why they failed, so a timeout under load tells itself apart from a behaviour.
        const differ = grade.requirements.filter((r) => r.pass !== expected.passing.includes(r.id)).map((r) => `${r.id} ${r.pass ? 'passed' : r.failures.map((f) => `${f.case}: ${f.reason}`).join('; ')}`);
        expect([pair.arms[0]!.measurement.cap, arm, differ]).toEqual([pair.arms[0]!.measurement.cap, arm, []]);
        expect([arm, [...measurement.grade.passing].sort()]).toEqual([arm, [...expected.passing].sort()]);
        expect([arm, survivalTally(measurement).levels]).toEqual([arm, expected.levels.map((l) => ({ level: l.level, claimed: l.claims, surviving: l.passing }))]);
      }
    }
  });

  it('per merge: each subtree’s grade, the survival after each merge level and where each claim last passed equal the prediction', () => {
    const { setup, pair } = runs[1]!;
    const predicted = predictCell(setup.world);
    for (const { arm, measurement } of pair.arms) {
      const expected = predicted[arm];
      // Two merges (the root's and its split child's), each graded on the requirements claimed under it.
      expect(measurement.merges.map((m) => [m.level, m.grade?.status])).toEqual([[0, 'graded'], [1, 'graded']]);
      for (const merge of measurement.merges) {
        const record = expected.merges.find((m) => m.path === simPathOf(merge.path))!;
        const counted = new Set(expected.mergeSurvival.claims.filter((c) => c.grades.some((g) => g.path === record.path)).map((c) => c.requirement));
        expect([merge.path, merge.grade?.status === 'graded' ? merge.grade.passing : null]).toEqual([merge.path, record.passing.filter((r) => counted.has(r)).sort()]);
      }
      const decay = mergeDecaySection([measurement], null)!;
      expect(decay.rows.map((r) => [r.mergeLevel, r[arm]!.claims, r[arm]!.passing])).toEqual(expected.mergeSurvival.levels.map((l) => [l.mergeLevel, l.claims, l.passing]));
      const lastPassed = measurement.leaves.flatMap((l) => l.claims.flatMap((c) => (c.lastPassed === undefined ? [] : [`${simPathOf(l.path)} ${c.requirement} ${c.lastPassed === null ? 'none' : simPathOf(c.lastPassed)}`])));
      expect(lastPassed.sort()).toEqual(expected.mergeSurvival.claims.map((c) => `${c.leaf} ${c.requirement} ${c.lastPassed ?? 'none'}`).sort());
    }
  });

  it('per leaf: each leaf’s own tree passes exactly what its own planted defects leave, and what it passes beyond its claims is counted', () => {
    const { setup, pair } = runs[1]!;
    const requirements = setup.world.requirements.map((r) => r.id);
    const drawn = new Map(setup.world.tree(null).phase.leaves.map((l) => [l.path, l]));
    for (const { arm, measurement } of pair.arms) {
      expect(measurement.leaves.length).toBeGreaterThan(1);
      for (const leaf of measurement.leaves) {
        const draws = drawn.get(simPathOf(leaf.path))!;
        // A SIMULATED leaf writes the whole program with its own claims' defects: every other requirement passes in its tree.
        const present = new Map(draws.claims.filter((c) => c.defect !== null).map((c) => [c.requirement, c.defect!]));
        const expected = passingRequirements(setup.world.defects, requirements, present);
        expect([arm, leaf.path, leaf.grade]).toEqual([arm, leaf.path, { status: 'graded', passing: [...expected].sort() }]);
        const claimed = new Set(leaf.claims.flatMap((c) => (c.requirement ? [c.requirement] : [])));
        expect(beyondClaims(leaf, measurement)).toEqual([...expected].sort().filter((r) => !claimed.has(r)));
      }
    }
    // Shared pairing: one build, so both arms hold the same leaves and the same leaf grades.
    expect(pair.arms[0]!.measurement.leaves.map((l) => l.grade)).toEqual(pair.arms[1]!.measurement.leaves.map((l) => l.grade));
  });
});
