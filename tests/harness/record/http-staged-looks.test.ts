import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, efficacyBoundaries, readSweepJournal, REPO_ROOT, runCli, type RecordResult, type SimServer, type SweepEvent } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { FakeClock } from '../../support/fake-clock.js';
import { providersFile, recordHttp, startServer } from './http-fixture.js';

/**
 * A staged sweep as the README tells a researcher to run one, over HTTP: the SIMULATED
 * population served by `harness sim serve`, a hypothesis with two O'Brien–Fleming looks, and
 * the real verbs in order: `record --depths 1,2 --repetitions 1` (half the primary's pairs),
 * `report` (reads, spends nothing), `report --look` (look 1), the same record command without
 * `--repetitions` (a resume that records the rest and nothing twice), `report --look` (look 2,
 * at the boundary look 1 left). The unit tests of the ruling itself are in
 * tests/harness/commands/report-look.test.ts; this one shows the verbs compose on a real journal.
 */

const HEAVY = 1_200_000;
const MANIFEST = path.join(REPO_ROOT, 'tests/harness/record/staged-looks.yaml');

let tmp: string;
let server: SimServer;
let providers: string;
let dir: string;
const stages: Array<{ result: RecordResult; journal: readonly SweepEvent[] }> = [];
const looks: Array<{ code: number; out: string; err: string }> = [];
let plainReport: { code: number; looks: number; ruledAt: string };

const journalOf = async () => (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
const looksIn = (events: readonly SweepEvent[]) => events.filter((e) => e.type === 'look_taken');
const started = (events: readonly SweepEvent[]) => events.filter((e) => e.type === 'cell_started').map((e) => e.type === 'cell_started' && e.cellId);

async function cli(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

async function stage(repetitions?: number) {
  const result = await recordHttp(dir, { depths: [1, 2], ...(repetitions ? { repetitions } : {}) }, { providers, manifest: MANIFEST, clock: new FakeClock(), skipWarmup: true });
  stages.push({ result, journal: await journalOf() });
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-http-staged-looks-'));
  server = await startServer(undefined, MANIFEST);
  providers = await providersFile(path.join(tmp, 'p'), server.url);
  dir = path.join(tmp, 'run');
  await stage(1);
  const plain = await cli('report', dir);
  const json = JSON.parse(await readFile(path.join(dir, 'report', 'report.json'), 'utf8'));
  plainReport = { code: plain.code, looks: looksIn(await journalOf()).length, ruledAt: json.ruling.comparisons[0].ruledAt };
  looks.push(await cli('report', dir, '--look'));
  await stage();
  looks.push(await cli('report', dir, '--look'));
}, HEAVY);

afterAll(async () => {
  await server?.stop();
});

describe('a staged SIMULATED sweep over HTTP: record a stage, look, record the rest, look again', () => {
  it('stage 1 records repetition 1 of each cap and arm, and exits 0: what was asked was done', () => {
    const [first] = stages;
    expect(first!.result.exit).toBe(EXIT.ok);
    expect(started(first!.journal)).toEqual(['cap1-rep1-gated', 'cap1-rep1-ungated', 'cap2-rep1-gated', 'cap2-rep1-ungated']);
  });

  it('a plain report spends no look', () => {
    expect(plainReport).toEqual({ code: 0, looks: 0, ruledAt: 'no look taken yet (harness report --look takes look 1 of 2)' });
  });

  it('the same command without --repetitions resumes: it records repetition 2 and starts no cell twice', () => {
    const second = stages[1]!;
    expect(second.result.exit).toBe(EXIT.ok);
    const cells = started(second.journal);
    expect(cells.slice(4).sort()).toEqual(['cap1-rep2-gated', 'cap1-rep2-ungated', 'cap2-rep2-gated', 'cap2-rep2-ungated']);
    expect(new Set(cells).size).toBe(cells.length);
    expect(second.journal.filter((e) => e.type === 'run_started').map((e) => e.type === 'run_started' && e.resume)).toEqual([false, true]);
  });

  it('journals look 1 at half the pairs and look 2 at all of them, ruled at the boundary look 1 left', async () => {
    expect(looks.map((l) => ({ code: l.code, err: l.err }))).toEqual([
      { code: 0, err: '' },
      { code: 0, err: '' },
    ]);
    const taken = looksIn(await journalOf());
    expect(taken.map((l) => ({ look: l.look, fraction: l.fraction, measured: l.pairs.measured, planned: l.pairs.planned, final: l.boundary?.final }))).toEqual([
      { look: 1, fraction: 0.5, measured: 2, planned: 4, final: false },
      { look: 2, fraction: 1, measured: 4, planned: 4, final: true },
    ]);
    const spent = efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.5, 1] }).z;
    expect(taken.map((l) => l.boundary!.z)).toEqual([expect.closeTo(spent[0]!, 6), expect.closeTo(spent[1]!, 6)]);
    // Each look was journalled after the cells it ruled on: look 1 before stage 2's resume began.
    const events = await journalOf();
    const resumed = events.findIndex((e) => e.type === 'run_started' && e.resume);
    expect(events.indexOf(taken[0]!)).toBeLessThan(resumed);
    // Seed 11's two pairs a cap cannot clear |t| > 12.967 on one degree of freedom: the final look spends the rest and stops.
    const now = looks[1]!.out.slice(looks[1]!.out.indexOf('Look taken now'));
    expect(now).toMatchInlineSnapshot(`
      "Look taken now, and journalled:
        look 2 of 2 (obrien_fleming), level 1: STOP: INCONCLUSIVE
          information 4 of 4 pairs (fraction 1.000), 8 cells
          boundary |t| > 12.967 (z 1.969, nominal p 0.049, alpha spent 0.05, the final look: the rest spent)
          statistic t 2.650 on 1.0 df; gated − ungated +0.179 [-0.621, +0.796] (95.1% repeated-confidence interval)
      "
    `);
  });

  it("holds to harness plan's session bound over both stages", async () => {
    const plan = await cli('plan', MANIFEST, '--depths', '1,2', '--json');
    expect(plan.code).toBe(0);
    const bound = JSON.parse(plan.out).projection.total.sessions;
    const recorded = (await journalOf()).filter((e) => e.type === 'session_started' && !e.reopened).length;
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThanOrEqual(bound);
  });
});
