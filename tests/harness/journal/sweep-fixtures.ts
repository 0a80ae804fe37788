import { SWEEP_JOURNAL, parseCellId, type CellMeasurement, type JournalPins, type SweepEvent, type SweepEventInput } from '../../../harness/index.js';

/** Journal pins as a sweep on two openai-compatible pairs would write them. */
export function samplePins(over: Partial<JournalPins> = {}): JournalPins {
  const pair = (model: string, family: string) => ({ provider: 'openai-compatible' as const, model, realModel: `vendor/${model}`, endpoint: 'gateway', declaredFamily: family, realFamily: family, rung: 3 });
  return {
    manifest: { path: 'manifests/smoke.yaml', sha256: 'a'.repeat(64), bytes: 812 },
    spec: { path: 'spec/sqlcsv', content: { state: 'present', sha256: 'b'.repeat(64), files: 2 } },
    oracle: { path: 'oracle/sqlcsv', content: { state: 'present', sha256: 'c'.repeat(64), files: 40 } },
    simCorpus: { path: 'harness/sim/corpus', content: { state: 'absent' } },
    executor: pair('executor-model', 'vendor-a'),
    reviewer: pair('reviewer-model', 'vendor-b'),
    simulated: { seed: 1, judge_recall: 0.8 },
    harnessVersion: '0.1.0',
    code: { state: 'git', commit: '1234567890abcdef1234567890abcdef12345678', dirty: false, changes: null },
    ...over,
  };
}

const START = Date.parse('2026-01-02T03:00:00.000Z');

/** Gives inputs the envelope the journal would (the format's version, seq from 1, one second apart from 03:00:00). */
export function stamped(inputs: readonly SweepEventInput[], firstSeq = 1): SweepEvent[] {
  return inputs.map((input, i) => ({ ...input, version: SWEEP_JOURNAL.versions.get(input.type), seq: firstSeq + i, at: new Date(START + (firstSeq + i - 1) * 1000).toISOString() }) as SweepEvent);
}

/** A small measured cell (two delivered leaves under one merge) for the cell id given. */
export function sampleMeasurement(cellId: string): CellMeasurement {
  const { cap, arm, repetition } = parseCellId(cellId)!;
  const spend = (sessions: number) => ({ sessions, tokens: { input: 40_000 * sessions, cached: 30_000 * sessions, output: 4_000 * sessions }, costUsd: 0.05 * sessions, unpricedSessions: 0 });
  const model = (name: string, family: string) => ({ model: name, family });
  return {
    cap,
    arm,
    repetition,
    pairing: 'shared',
    leaves: [
      { path: 'root.0', level: 1, room: false, delivered: true, claims: [{ criterion: 'R01 tables load from CSV files', requirement: 'R01' }] },
      { path: 'root.1', level: 1, room: false, delivered: true, claims: [{ criterion: 'R02 integers', requirement: 'R02' }] },
    ],
    merges: [
      {
        path: 'root',
        level: 0,
        children: 2,
        attempts: 1,
        reviews: [{ attempt: 1, kind: arm === 'gated' ? 'independent' : 'self', reviewer: arm === 'gated' ? model('reviewer-model', 'vendor-b') : model('executor-model', 'vendor-a'), contributors: [model('executor-model', 'vendor-a')], verdict: 'approve' }],
      },
    ],
    grade: { passing: ['R01'], total: 42, testsCarried: 2 },
    escalations: [],
    spend: { leaf: spend(2), planning: spend(1), merge: spend(2) },
  };
}

export const header = (): SweepEventInput => ({ type: 'header', manifestName: 'smoke', pins: samplePins() });
export const runStarted = (resume = false): SweepEventInput => ({
  type: 'run_started',
  resume,
  depths: [1, 2],
  concurrency: 4,
  code: samplePins().code,
  harnessVersion: '0.1.0',
  caveats: [],
});

export function session(cellId: string, n: number, over: { reopened?: boolean } = {}): [SweepEventInput, SweepEventInput] {
  const who = { cellIds: [cellId], sessionId: `${cellId}/n${n}:worker:1`, role: 'worker' as const, nodePath: `0/${n}`, attempt: 1 };
  return [
    { type: 'session_started', ...who, reopened: over.reopened ?? false },
    { type: 'session_finished', ...who, turns: 12, tokens: { input: 40_000, cached: 30_000, output: 4_000 }, costUsd: 0.05, stop: 'completed' },
  ];
}

/** One event of every type, in an order a real sweep could write them. */
export function everyEventType(): SweepEventInput[] {
  const cell = 'cap1-rep1-gated';
  const [started, finished] = session(cell, 1);
  return [
    header(),
    runStarted(),
    { type: 'ceiling_lowered', maxSessions: 40, manifestMaxSessions: 100 },
    { type: 'cell_started', cellId: cell },
    { type: 'planning_recorded', cellIds: [cell, 'cap1-rep1-ungated'], tree: { root: { children: ['a', 'b'] } } },
    started,
    finished,
    { type: 'leaf_built', cellIds: [cell, 'cap1-rep1-ungated'], nodePath: '0/1', leaf: { delivered: true, claims: ['R1'] } },
    { type: 'merge_attempt', cellId: cell, nodePath: '', attempt: 1, merge: { interfaceChanges: [] } },
    { type: 'review', cellId: cell, nodePath: '', attempt: 1, kind: 'independent', verdict: 'approve', review: { findings: [] } },
    { type: 'replay_switch', cellIds: [cell], sessionId: `${cell}/n1:worker:1`, call: 3, reason: 'tool output differs after normalisation' },
    { type: 'sandbox_host_lost', cellIds: [cell, 'cap1-rep1-ungated'], detail: 'Docker host tcp://10.0.0.7:2376 stopped answering (connect ECONNREFUSED 10.0.0.7:2376)', rerun: 1 },
    {
      type: 'grading_recorded',
      cellId: cell,
      grade: {
        version: 2,
        spec: 'sqlcsv',
        tree: '/tmp/tree',
        satisfied: 30,
        total: 42,
        casesPassed: 250,
        casesTotal: 326,
        testFiles: 4,
        requirements: [],
        skipped: [],
        skippedCount: 0,
        undeliverable: null,
        mode: 'fork',
        compile: { ok: true, note: null },
        integrityChecks: 327,
        elapsedMs: 2100,
      },
    },
    { type: 'cell_finished', cellId: cell, outcome: { status: 'measured', result: sampleMeasurement(cell) } },
    { type: 'sweep_stopped', reason: 'completed', detail: 'every cell was recorded', unmeasured: [] },
    { type: 'rate_control_changed', provider: 'sim-http', limit: 12, min: 4, max: 100, pacing: 'aimd', episodes: 2, attempts: 900, rateLimited: 14, final: true },
    {
      type: 'look_taken', look: 1, design: { looks: 2, spending: 'obrien_fleming', futility: false }, comparison: 'levels >= 1',
      pairs: { measured: 4, planned: 8, withClaims: 4 }, fraction: 0.5, cells: 8, throughSeq: 12,
      boundary: { z: 2.963, t: 3.1, nominalP: 0.003, cumulativeAlpha: 0.003, final: false }, futility: null,
      statistic: { estimate: 0.05, standardError: 0.04, t: 1.25, df: 3 }, interval: null, ruling: 'CONTINUE', caveat: null,
    },
  ];
}
