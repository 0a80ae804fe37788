import {
  ARMS,
  Manifest,
  SWEEP_JOURNAL,
  SimParams,
  cellId,
  type Arm,
  type CellMeasurement,
  type JournalPins,
  type PinnedPair,
  type Spend,
  type SweepEvent,
  type SweepEventInput,
} from '../../../harness/index.js';
import {
  hasRoom,
  identityDraws,
  samplePair,
  type DefectModel,
  type DrawSource,
  type SimPairSample,
  type SimTreeNode,
} from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/**
 * Synthetic SIMULATED sweeps for the report's tests and bench: the pure sampler draws each pair
 * (the same decisions a Docker-run sim cell makes), and this turns it into what `harness record`
 * will journal: a CellMeasurement per cell, with an explicit count of sessions per node.
 */

export interface SimDesign {
  /** Planted rates (SimParams input); the seed names the sweep. */
  params: Partial<SimParams>;
  caps: number[];
  /** Repetitions per cap. */
  repetitions: number | Record<number, number>;
  mergeAttempts: number;
  defects: DefectModel;
  name?: string;
}

/** Sessions each node spends: the explicit count the forecast test predicts from. */
export interface SessionCounts {
  /** Every session at a leaf (plan, build, verify...). */
  perLeaf: number;
  /** The planner at an assembling node. */
  perPlanning: number;
  /** Sessions per merge attempt (the merge and its review). */
  perMergeAttempt: number;
}

export const SESSIONS: SessionCounts = { perLeaf: 3, perPlanning: 1, perMergeAttempt: 2 };

const TOKENS_PER_SESSION = { input: 20_000, cached: 12_000, output: 2_000 };

export const repetitionsAt = (design: SimDesign, cap: number) => (typeof design.repetitions === 'number' ? design.repetitions : (design.repetitions[cap] ?? 0));

const SIM_EXECUTOR = { model: 'sim-executor', family: 'sim-alpha' };
const SIM_REVIEWER = { model: 'sim-reviewer', family: 'sim-beta' };

function spend(sessions: number, usdPerSession: number | null): Spend {
  return {
    sessions,
    tokens: { input: TOKENS_PER_SESSION.input * sessions, cached: TOKENS_PER_SESSION.cached * sessions, output: TOKENS_PER_SESSION.output * sessions },
    costUsd: usdPerSession === null && sessions > 0 ? null : sessions * (usdPerSession ?? 0),
    unpricedSessions: usdPerSession === null ? sessions : 0,
  };
}

function childCounts(root: SimTreeNode): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (node: SimTreeNode) => {
    counts.set(node.path, node.children.length);
    node.children.forEach(walk);
  };
  walk(root);
  return counts;
}

export interface MeasurementOptions {
  sessions?: SessionCounts;
  /** Dollars per session; null: price unknown. Default 0 (the sim charges nothing). */
  usdPerSession?: number | null;
}

/** One arm of a sampled pair as the cell runner would measure it. */
export function simMeasurement(pair: SimPairSample, arm: Arm, options: MeasurementOptions = {}): CellMeasurement {
  const sessions = options.sessions ?? SESSIONS;
  const usd = options.usdPerSession === undefined ? 0 : options.usdPerSession;
  const { cap, repetition } = pair.cell;
  const sample = pair.arms[arm];
  const children = childCounts(pair.shared.root);
  const testsCarried = new Set(pair.shared.leaves.filter((l) => l.delivered).flatMap((l) => l.claims.filter((c) => c.defect === null).map((c) => c.requirement))).size;
  const mergeAttempts = sample.merges.reduce((n, m) => n + m.loop.attempts.length, 0);
  return {
    cap,
    arm,
    repetition,
    pairing: 'shared',
    leaves: pair.shared.leaves.map((leaf) => ({
      path: leaf.path,
      level: leaf.level,
      room: hasRoom(leaf.level, cap),
      delivered: leaf.delivered,
      claims: leaf.claims.map((c) => ({ criterion: `${c.requirement}: the behaviour the spec states`, requirement: c.resolved ? c.requirement : null })),
    })),
    merges: sample.merges.map((merge) => ({
      path: merge.path,
      level: merge.level,
      children: children.get(merge.path)!,
      attempts: merge.loop.attempts.length,
      reviews: merge.loop.attempts.map((a) => ({
        attempt: a.attempt,
        kind: arm === 'gated' ? ('independent' as const) : ('self' as const),
        reviewer: arm === 'gated' ? SIM_REVIEWER : SIM_EXECUTOR,
        contributors: [SIM_EXECUTOR],
        verdict: a.found.length === 0 ? ('approve' as const) : ('reject' as const),
      })),
    })),
    grade: { passing: [...sample.passing], total: SPEC_IDS.length, testsCarried },
    escalations: [],
    spend: {
      leaf: spend(pair.shared.leaves.length * sessions.perLeaf, usd),
      planning: spend(sample.merges.length * sessions.perPlanning, usd),
      merge: spend(mergeAttempts * sessions.perMergeAttempt, usd),
    },
  };
}

/** Every cell of a design, both arms per pair, in recording order. Draws: identity-keyed (what a real sim sweep draws) unless a source per pair is given. */
export function simCells(design: SimDesign, options: MeasurementOptions & { draws?: (cap: number, repetition: number) => DrawSource } = {}): CellMeasurement[] {
  const params = SimParams.parse(design.params);
  const cells: CellMeasurement[] = [];
  for (const cap of design.caps) {
    for (let repetition = 1; repetition <= repetitionsAt(design, cap); repetition++) {
      const draws = options.draws?.(cap, repetition) ?? identityDraws({ seed: params.seed, cap, repetition });
      const pair = samplePair(params, { cap, repetition, mergeAttempts: design.mergeAttempts, defects: design.defects, requirements: SPEC_IDS, draws });
      for (const arm of ARMS) cells.push(simMeasurement(pair, arm, options));
    }
  }
  return cells;
}

/** The manifest a simulated design was recorded under. */
export function simManifest(design: SimDesign, over: Record<string, unknown> = {}): Manifest {
  const params = SimParams.parse(design.params);
  return Manifest.parse({
    version: 1,
    name: design.name ?? 'sim-sweep',
    spec: '../spec/sqlcsv',
    depth_caps: design.caps,
    repetitions: typeof design.repetitions === 'number' ? { default: design.repetitions } : { default: 1, by_cap: Object.fromEntries(Object.entries(design.repetitions).map(([k, v]) => [k, v])) },
    executor: { provider: 'sim', model: SIM_EXECUTOR.model, family: SIM_EXECUTOR.family, rung: 1 },
    reviewer: { provider: 'sim', model: SIM_REVIEWER.model, family: SIM_REVIEWER.family, rung: 1 },
    independence: 'cross_family',
    merge_attempts: design.mergeAttempts,
    max_sessions: 100_000,
    projected_branching: 2,
    simulated: { seed: params.seed, leaf_defect_rate: params.leaf_defect_rate, seam_defect_rate: params.seam_defect_rate, judge_recall: params.judge_recall, self_review_recall: params.self_review_recall, repair_rate: params.repair_rate },
    ...over,
  });
}

const simPair = (who: { model: string; family: string }): PinnedPair => ({ provider: 'sim', model: who.model, realModel: who.model, endpoint: 'sim', declaredFamily: who.family, realFamily: who.family, rung: 1 });

export function simPins(design: SimDesign): JournalPins {
  return {
    manifest: { path: 'manifests/sim.yaml', sha256: 'a'.repeat(64), bytes: 900 },
    spec: { path: 'spec/sqlcsv', content: { state: 'present', sha256: 'b'.repeat(64), files: 2 } },
    oracle: { path: 'oracle/sqlcsv', content: { state: 'present', sha256: 'c'.repeat(64), files: 40 } },
    simCorpus: { path: 'harness/sim/corpus', content: { state: 'present', sha256: 'd'.repeat(64), files: 60 } },
    executor: simPair(SIM_EXECUTOR),
    reviewer: simPair(SIM_REVIEWER),
    simulated: SimParams.parse(design.params) as unknown as JournalPins['simulated'],
    harnessVersion: '0.1.0',
    code: { state: 'git', commit: '1234567890abcdef1234567890abcdef12345678', dirty: false, changes: null },
  };
}

const START = Date.parse('2026-01-02T03:00:00.000Z');

/** Gives inputs the envelope the journal writes (format version, seq from 1, one second apart). */
export function stampEvents(inputs: readonly SweepEventInput[]): SweepEvent[] {
  return inputs.map((input, i) => ({ ...input, version: SWEEP_JOURNAL.versions.get(input.type), seq: i + 1, at: new Date(START + i * 1000).toISOString() }) as SweepEvent);
}

/** An event without its envelope, to splice journals together and stamp them again. */
export function unstamp(event: SweepEvent): SweepEventInput {
  const { version: _version, seq: _seq, at: _at, ...input } = event;
  return input as SweepEventInput;
}

/**
 * A whole sweep's journal: header, one invocation recording every cap, each cell started and
 * finished (measured, or with the outcome `outcomes` gives it), and the stop.
 */
export function simJournal(
  design: SimDesign,
  cells: readonly CellMeasurement[],
  options: { outcomes?: Record<string, Extract<SweepEventInput, { type: 'cell_finished' }>['outcome']>; stop?: Extract<SweepEventInput, { type: 'sweep_stopped' }>; pins?: JournalPins } = {},
): SweepEvent[] {
  const pins = options.pins ?? simPins(design);
  const events: SweepEventInput[] = [
    { type: 'header', manifestName: design.name ?? 'sim-sweep', pins },
    { type: 'run_started', resume: false, depths: [...design.caps], concurrency: 4, code: pins.code, harnessVersion: '0.1.0', caveats: [] },
  ];
  for (const cell of cells) {
    const id = cellId(cell);
    events.push({ type: 'cell_started', cellId: id });
    events.push({ type: 'cell_finished', cellId: id, outcome: options.outcomes?.[id] ?? { status: 'measured', result: cell } });
  }
  events.push(options.stop ?? { type: 'sweep_stopped', reason: 'completed', detail: 'every cell was recorded', unmeasured: [] });
  return stampEvents(events);
}
