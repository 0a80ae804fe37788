import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { ARMS, SimParams, cellId, type CellMeasurement, type JournalPins, type SweepEvent, type SweepEventInput } from '../../../harness/index.js';
import { identityDraws, isolatedDefects, samplePair } from '../../../harness/testing.js';
import { simMeasurement, stampEvents } from './sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/**
 * The golden run: a small sweep on two (imaginary) OpenAI-compatible models, written as a
 * journal and the manifest's bytes. Its tree shapes and defects come from the pure sampler at a
 * fixed seed, so the fixture is code anyone can read; then it is made to carry one of each thing
 * a report must show: an unavailable cell with hostile text in its reason, a cell the ceiling
 * left unmeasured with sessions it paid for, a parked escalation, and a gated merge judged by
 * the executor's own family.
 */

const MANIFEST = {
  version: 1,
  name: 'golden',
  spec: '../spec/sqlcsv',
  depth_caps: [1, 2],
  repetitions: { default: 2, by_cap: { 2: 3 } },
  arms: ['gated', 'ungated'],
  executor: { provider: 'openai-compatible', model: 'executor-model', family: 'vendor-a', rung: 3 },
  reviewer: { provider: 'openai-compatible', model: 'reviewer-model', family: 'vendor-b', rung: 3 },
  independence: 'cross_family',
  merge_attempts: 2,
  max_sessions: 60,
  projected_branching: 3,
};

export const GOLDEN_MANIFEST_YAML = `# the golden report fixture\n${stringify(MANIFEST)}`;

const pair = (model: string, family: string) => ({ provider: 'openai-compatible' as const, model, realModel: `vendor/${model}`, endpoint: 'gateway', declaredFamily: family, realFamily: family, rung: 3 });

const PINS: JournalPins = {
  manifest: { path: 'manifests/golden.yaml', sha256: createHash('sha256').update(GOLDEN_MANIFEST_YAML).digest('hex'), bytes: Buffer.byteLength(GOLDEN_MANIFEST_YAML) },
  spec: { path: 'spec/sqlcsv', content: { state: 'present', sha256: 'b'.repeat(64), files: 2 } },
  oracle: { path: 'oracle/sqlcsv', content: { state: 'present', sha256: 'c'.repeat(64), files: 40 } },
  simCorpus: { path: 'harness/sim/corpus', content: { state: 'absent' } },
  executor: pair('executor-model', 'vendor-a'),
  reviewer: pair('reviewer-model', 'vendor-b'),
  simulated: null,
  harnessVersion: '0.1.0',
  code: { state: 'git', commit: '0123456789abcdef0123456789abcdef01234567', dirty: false, changes: null },
};

/** Models as the real engine would record them: the executor's family did the work, the reviewer's judged it. */
function onRealModels(cell: CellMeasurement): CellMeasurement {
  const executor = { model: 'vendor/executor-model', family: 'vendor-a' };
  const reviewer = { model: 'vendor/reviewer-model', family: 'vendor-b' };
  return {
    ...cell,
    merges: cell.merges.map((m) => ({ ...m, reviews: m.reviews.map((r) => ({ ...r, reviewer: r.kind === 'independent' ? reviewer : executor, contributors: [executor] })) })),
  };
}

export function goldenCells(): CellMeasurement[] {
  const params = SimParams.parse({ seed: 7 });
  const defects = isolatedDefects(SPEC_IDS);
  const cells: CellMeasurement[] = [];
  for (const [cap, reps] of [[1, 2], [2, 2]] as const) {
    for (let repetition = 1; repetition <= reps; repetition++) {
      const pair = samplePair(params, { cap, repetition, mergeAttempts: 2, defects, requirements: SPEC_IDS, draws: identityDraws({ seed: 7, cap, repetition }) });
      for (const arm of ARMS) cells.push(onRealModels(simMeasurement(pair, arm, { usdPerSession: 0.05 })));
    }
  }
  // A parked escalation, and a gated merge whose second review came from the executor's family.
  const escalated = cells.find((c) => c.cap === 2 && c.repetition === 1 && c.arm === 'gated')!;
  escalated.escalations.push({ nodePath: 'root.1', source: 'assumption', text: 'NEEDS HUMAN: which CSV dialect is canonical?' });
  const selfJudged = cells.find((c) => c.cap === 2 && c.repetition === 2 && c.arm === 'gated')!;
  const merge = selfJudged.merges[0]!;
  merge.attempts = 2;
  merge.reviews = [merge.reviews[0]!, { ...merge.reviews[0]!, attempt: 2, reviewer: { model: 'vendor/executor-model-fallback', family: 'Vendor-A' }, verdict: 'approve' }];
  return cells;
}

export function goldenEvents(): SweepEvent[] {
  const cells = goldenCells();
  const events: SweepEventInput[] = [
    { type: 'header', manifestName: 'golden', pins: PINS },
    { type: 'run_started', resume: false, depths: [1, 2], concurrency: 4, code: PINS.code, harnessVersion: '0.1.0', caveats: [] },
  ];
  for (const cell of cells) {
    const id = cellId(cell);
    events.push({ type: 'cell_started', cellId: id }, { type: 'cell_finished', cellId: id, outcome: { status: 'measured', result: cell } });
  }
  const rep3 = ['cap2-rep3-gated', 'cap2-rep3-ungated'];
  events.push({ type: 'cell_started', cellId: rep3[0]! });
  for (let n = 1; n <= 3; n++) {
    const who = { cellIds: rep3, sessionId: `cap2-rep3/root.${n}:worker:1`, role: 'worker' as const, nodePath: `root.${n}`, attempt: 1 };
    events.push({ type: 'session_started', ...who, reopened: false });
    events.push({ type: 'session_finished', ...who, turns: 9, tokens: { input: 30_000, cached: 20_000, output: 3_000 }, costUsd: n === 3 ? null : 0.07, stop: 'completed' });
  }
  events.push({ type: 'cell_finished', cellId: rep3[0]!, outcome: { status: 'unavailable', reason: 'provider', detail: 'vendor/reviewer-model answered 503 <b>|busy|</b>\u001b[2J three times' } });
  events.push({ type: 'sweep_stopped', reason: 'ceiling', detail: 'max_sessions 60 reached', unmeasured: [rep3[1]!] });
  return stampEvents(events);
}
