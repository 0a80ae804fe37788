import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { stableJson } from '../../../engine/index.js';
import { loadManifest, REPO_ROOT, planInputFor, projectPlan, runRecord, type RecordResult, readSweepJournal, type SweepEvent } from '../../../harness/index.js';
import { runFiles } from '../../../harness/index.js';
const { EngineEvent } = runFiles;
type EngineEvent = runFiles.EngineEvent;
import { SessionGauge } from '../../support/session-gauge.js';
import { transcribedCalls } from './record-child.js';
import { bufferIo, RECORD_MANIFEST, recordSim, simSeams } from './record-fixture.js';

/**
 * `harness record` on the SIMULATED population, cap 1 (one pair: both arms share its build),
 * with a host sandbox and a fake grade (record-fixture.ts). One uninterrupted baseline; one
 * sweep cut six times in a row (SIGKILL at five points, Ctrl-C once) and resumed after each cut,
 * whose final results must equal the baseline's; refusals, the ceiling across resumes, quota, an
 * ungradable cell. The heavy runs start together in beforeAll and are shared by the tests.
 */

const run = promisify(execFile);
const HEAVY = 1_500_000;

const journalOf = async (dir: string) => (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
/** The final outcome of every cell, canonically: the latest cell_finished of each. */
async function finalOutcomes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await journalOf(dir)) if (e.type === 'cell_finished') out[e.cellId] = stableJson(e.outcome);
  return out;
}
/** The run's event files (the pair's and each cell's), every line parsed as an EngineEvent. */
async function eventFiles(dir: string): Promise<Record<string, EngineEvent[]>> {
  const read = async (rel: string) => (await readFile(path.join(dir, rel), 'utf8')).split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l)));
  return {
    pair: await read('pairs/cap1-rep1/events.jsonl'),
    gated: await read('cells/cap1-rep1-gated/events.jsonl'),
    ungated: await read('cells/cap1-rep1-ungated/events.jsonl'),
  };
}
/** How many events of each (type, node, arm) a file holds: check outputs carry timings, so whole events differ between runs. */
const eventKeys = (events: readonly EngineEvent[]) => {
  const out: Record<string, number> = {};
  for (const e of events) out[`${e.type} ${e.nodeId} ${e.arm ?? '-'}`] = (out[`${e.type} ${e.nodeId} ${e.arm ?? '-'}`] ?? 0) + 1;
  return out;
};
const calls = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

/** Kill points, in the order a sweep reaches them; n counts the journal's events of that type across invocations. */
const KILL_POINTS: Array<{ name: string; type: SweepEvent['type']; n: number }> = [
  { name: 'inside planning (the root planner just started)', type: 'session_started', n: 1 },
  { name: 'inside a leaf (the 12th session started)', type: 'session_started', n: 12 },
  { name: 'between a merge attempt and its review', type: 'merge_attempt', n: 1 },
  { name: 'during grading (one arm graded, the other not)', type: 'grading_recorded', n: 1 },
  { name: 'after a cell', type: 'cell_finished', n: 1 },
];
/** Sessions at once (the manifest's concurrency): at most this many calls are in flight at a kill. */
const IN_FLIGHT = 4;

/** One cut of the chained sweep: the live calls its invocation made, and the calls transcribed when it stopped. */
interface Cut {
  calls: string[];
  transcribed: Set<string>;
  exit: number | 'SIGKILL' | string;
}

let tmp: string;
let baseline: { dir: string; result: RecordResult; count: string };
let ungradable: { dir: string; result: RecordResult };
/** Sessions in flight in the ungradable run (recorded with --concurrency 1), each call held 30 ms. */
const gauge = new SessionGauge(30);
let quota: { dir: string; result: RecordResult; io: ReturnType<typeof bufferIo> };
/** The chained sweep: cuts[0] is the SIGKILL inside planning, cuts[1] the Ctrl-C, cuts[2..5] the other kills. */
let chain: { dir: string; cuts: Cut[]; final: RecordResult; finalCalls: string[]; ctrlC: { first: number; from: number; to: number } };

/** A child process records the sweep and SIGKILLs itself at `point`. */
async function killAt(dir: string, point: (typeof KILL_POINTS)[number], count: string): Promise<Cut> {
  const args = JSON.stringify({ out: dir, flags: { depths: [1] }, options: { killAt: { type: point.type, n: point.n }, countFile: count } });
  const exit = await run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'tests/harness/record/record-driver.ts'), args], { cwd: REPO_ROOT, maxBuffer: 1 << 26 }).then(
    () => 0,
    (e: { signal?: string; code?: number }) => e.signal ?? e.code ?? 'failed',
  );
  return { calls: await calls(count), transcribed: await transcribedCalls(dir), exit };
}

/**
 * One sweep, cut at each kill point in turn and by a Ctrl-C (the signal the command listens to,
 * at the 3rd session this invocation starts) right after the first kill, then the same command
 * once more to complete it.
 */
async function chainedSweep(): Promise<typeof chain> {
  const dir = path.join(tmp, 'chain');
  const cuts: Cut[] = [await killAt(dir, KILL_POINTS[0]!, path.join(tmp, 'cut-0.calls'))];
  const stop = new AbortController();
  let sessions = 0;
  const from = (await journalOf(dir)).length;
  const count = path.join(tmp, 'cut-1.calls');
  const first = await recordSim(dir, { depths: [1] }, { signal: stop.signal, countFile: count, onEvent: (e) => void (e.type === 'session_started' && !e.reopened && ++sessions === 3 && stop.abort()) });
  const to = (await journalOf(dir)).length;
  cuts.push({ calls: await calls(count), transcribed: await transcribedCalls(dir), exit: first.exit });
  for (const [i, point] of KILL_POINTS.slice(1).entries()) cuts.push(await killAt(dir, point, path.join(tmp, `cut-${i + 2}.calls`)));
  const finalCount = path.join(tmp, 'final.calls');
  const final = await recordSim(dir, { depths: [1] }, { countFile: finalCount });
  return { dir, cuts, final, finalCalls: await calls(finalCount), ctrlC: { first: first.exit, from, to } };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-record-'));
  const count = path.join(tmp, 'baseline.calls');
  const quotaIo = bufferIo();
  const [b, u, q, c] = await Promise.all([
    recordSim(path.join(tmp, 'baseline'), { depths: [1] }, { countFile: count }),
    recordSim(path.join(tmp, 'ungradable'), { depths: [1], concurrency: 1 }, { ungradable: 'cap1-rep1-gated', inFlight: gauge }),
    recordSim(path.join(tmp, 'quota'), { depths: [1] }, { quotaAt: 10 }, quotaIo),
    chainedSweep(),
  ]);
  baseline = { dir: path.join(tmp, 'baseline'), result: b, count };
  ungradable = { dir: path.join(tmp, 'ungradable'), result: u };
  quota = { dir: path.join(tmp, 'quota'), result: q, io: quotaIo };
  chain = c;
}, HEAVY);

describe('harness record on the simulated population (cap 1)', () => {
  it('records both arms of the pair, graded, with a summary and the report', async () => {
    expect(baseline.result.exit).toBe(0);
    expect(baseline.result.summary.cells.map((c) => [c.cell, c.status])).toEqual([
      ['cap1-rep1-gated', 'measured'],
      ['cap1-rep1-ungated', 'measured'],
    ]);
    const summary = JSON.parse(await readFile(path.join(baseline.dir, 'summary.json'), 'utf8'));
    expect(summary.caveats.some((c: string) => c.startsWith('SIMULATED'))).toBe(true);
    await expect(readFile(path.join(baseline.dir, 'report/report.json'), 'utf8')).resolves.toContain('"version"');
    // Every session started was finished, and no session of the shared build was paid twice.
    const events = await journalOf(baseline.dir);
    const started = events.filter((e) => e.type === 'session_started');
    expect(started.length).toBe(events.filter((e) => e.type === 'session_finished').length);
    expect(new Set(started.map((e) => (e as { sessionId: string }).sessionId)).size).toBe(started.length);
  });

  it('writes the engine\'s events: the shared build once in the pair\'s file, each arm\'s merges in its cell, no tool_call', async () => {
    const files = await eventFiles(baseline.dir);
    // The shared build carries no arm; each cell's file only its own arm.
    expect(files.pair!.every((e) => e.arm === undefined)).toBe(true);
    expect(files.gated!.every((e) => e.arm === 'gated')).toBe(true);
    expect(files.ungated!.every((e) => e.arm === 'ungated')).toBe(true);
    expect(files.pair!.flatMap((e) => (e.type === 'node_planned' ? [[e.nodeId, e.mode]] : [])).sort()).toEqual([['root', 'split'], ['root.1', 'execute'], ['root.2', 'execute']]);
    expect([...new Set(files.pair!.filter((e) => e.type === 'verdict').map((e) => e.nodeId))].sort()).toEqual(['root.1', 'root.2']);
    for (const arm of ['gated', 'ungated'] as const) {
      const reviews = files[arm]!.filter((e) => e.type === 'merge_review');
      expect(reviews.map((r) => [r.nodeId, r.kind]), arm).toEqual([['root', arm === 'gated' ? 'independent' : 'self']]);
    }
    // Bulky and already in the transcripts: not written.
    expect(Object.values(files).flat().some((e) => e.type === 'tool_call')).toBe(false);
    // Every session the journal started is charged in exactly one file: the build's in the pair's, a merge's in its arm's.
    const started = (await journalOf(baseline.dir)).filter((e) => e.type === 'session_started') as Array<Extract<SweepEvent, { type: 'session_started' }>>;
    const charged = (events: readonly EngineEvent[]) => new Set(events.flatMap((e) => (e.type === 'charge' ? [e.sessionId] : [])));
    expect([...charged(files.pair!)].sort()).toEqual(started.filter((e) => e.cellIds.length === 2 && e.cellIds.includes('cap1-rep1-gated')).map((e) => e.sessionId).sort());
    expect([...charged(files.gated!)].sort()).toEqual(started.filter((e) => e.cellIds.length === 1 && e.cellIds[0] === 'cap1-rep1-gated').map((e) => e.sessionId).sort());
  });

  it('rewrites a re-run pair\'s event files from the start: after six cuts and resumes, no event is written twice or lost', async () => {
    const once = await eventFiles(baseline.dir);
    const resumed = await eventFiles(chain.dir);
    for (const file of ['pair', 'gated', 'ungated']) expect(eventKeys(resumed[file]!), file).toEqual(eventKeys(once[file]!));
  });

  it('opens exactly the sessions `harness plan` projects for a full tree (fixed branching, no early leaves), drift judges within the stated allowance', async () => {
    const { manifest } = await loadManifest(RECORD_MANIFEST);
    const pair = projectPlan(planInputFor(manifest, [1])).caps[0]!.perPair;
    const started = (await journalOf(baseline.dir)).filter((e) => e.type === 'session_started') as Array<Extract<SweepEvent, { type: 'session_started' }>>;
    const drift = started.filter((e) => e.role === 'drift_judge').length;
    // cap 1, b = 2, one attempt: 2 leaves x 4 + 1 planner + 2 arms x (seam checker + its meta-verifier + merger + review) = 17.
    expect(pair.required).toBe(17);
    expect(started.length - drift).toBe(pair.required);
    expect(started.length).toBeLessThanOrEqual(pair.total);
  });

  /** The invocation that followed cut i: the next cut's, or the final resume's. */
  const nextCalls = (i: number) => (i + 1 < chain.cuts.length ? chain.cuts[i + 1]!.calls : chain.finalCalls);
  const cutOf = (point: number) => (point === 0 ? 0 : point + 1);

  for (const [p, point] of KILL_POINTS.entries()) {
    it(`SIGKILL ${point.name}: the resume makes no call that was transcribed before the kill`, () => {
      const i = cutOf(p);
      expect(chain.cuts[i]!.exit, point.name).toBe('SIGKILL');
      expect(nextCalls(i).filter((c) => chain.cuts[i]!.transcribed.has(c))).toEqual([]);
    });
  }

  it('after the six cuts, the same command completes the sweep: every cell’s results equal the uninterrupted run’s, and only calls in flight at a kill were paid twice', async () => {
    expect(chain.final.exit).toBe(0);
    expect(await finalOutcomes(chain.dir)).toEqual(await finalOutcomes(baseline.dir));
    const events = await journalOf(chain.dir);
    expect(events.filter((e) => e.type === 'run_started').map((e) => (e as { resume: boolean }).resume)).toEqual([false, true, true, true, true, true, true]);
    const live = chain.cuts.reduce((n, c) => n + c.calls.length, 0) + chain.finalCalls.length;
    expect(live).toBeGreaterThanOrEqual((await calls(baseline.count)).length);
    expect(live).toBeLessThanOrEqual((await calls(baseline.count)).length + IN_FLIGHT * KILL_POINTS.length);
  });

  it('on Ctrl-C stops dispatching, lets in-flight sessions finish, journals the stop and exits 130; the same command then continues', async () => {
    expect(chain.ctrlC.first).toBe(130);
    const interrupted = (await journalOf(chain.dir)).slice(chain.ctrlC.from, chain.ctrlC.to);
    expect(interrupted[0]).toMatchObject({ type: 'run_started', resume: true });
    expect(interrupted.at(-1)).toMatchObject({ type: 'sweep_stopped', reason: 'interrupted' });
    // Nothing was dispatched after the stop: at most the sessions in flight joined the 3rd, and every one started was finished.
    const started = interrupted.filter((e) => e.type === 'session_started' && !e.reopened).length;
    expect(started).toBeGreaterThanOrEqual(3);
    expect(started).toBeLessThanOrEqual(3 + IN_FLIGHT);
    expect(interrupted.filter((e) => e.type === 'session_finished')).toHaveLength(interrupted.filter((e) => e.type === 'session_started').length);
    expect(chain.cuts[1]!.exit).toBe(130);
  });

  it('marks a cell whose tree cannot be graded unavailable, measures the rest, and reports the pair as unpaired', async () => {
    // A staged cell lost is never exit 0: the rest is measured and reported, and the exit says so.
    expect(ungradable.result.exit).toBe(9);
    expect(ungradable.result.summary.counts).toEqual({ staged: 2, measured: 1, transient: 0, permanent: 1, unmeasured: 0, notStarted: 0 });
    const cells = Object.fromEntries(ungradable.result.summary.cells.map((c) => [c.cell, c]));
    expect(cells['cap1-rep1-gated']).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/^permanent, ungradable: the tree of cap1-rep1-gated cannot be graded/) });
    expect(cells['cap1-rep1-ungated']!.status).toBe('measured');
    // The pair has one arm measured: the report says UNPAIRED rather than failing on it.
    expect(ungradable.result.summary.caveats.join('\n')).not.toMatch(/report could not be written/);
    await expect(readFile(path.join(ungradable.dir, 'report/report.json'), 'utf8')).resolves.toContain('"unpaired"');
  });

  it('re-runs a permanently unavailable cell only with --retry-unavailable, paying none of its transcribed calls again', async () => {
    const count = path.join(tmp, 'retry.calls');
    const again = await recordSim(ungradable.dir, { depths: [1] }, {});
    expect(again.exit).toBe(9);
    expect(again.summary.counts.permanent).toBe(1);
    const retried = await recordSim(ungradable.dir, { depths: [1], retryUnavailable: true }, { countFile: count });
    expect(retried.exit).toBe(0);
    expect(retried.summary.counts).toMatchObject({ staged: 2, measured: 2, permanent: 0 });
    expect(await calls(count)).toEqual([]);
  });

  it('stops at the quota (insufficient_quota on the 10th call), keeps what was paid and writes the summary', async () => {
    expect(quota.result.exit).toBe(5);
    expect(quota.result.summary.stop.reason).toBe('quota');
    expect(quota.result.summary.cells.every((c) => c.status === 'unavailable' && c.reason?.startsWith('permanent, quota'))).toBe(true);
    expect(quota.result.summary.caveats.some((c) => c.startsWith('QUOTA'))).toBe(true);
    await expect(readFile(path.join(quota.dir, 'summary.json'), 'utf8')).resolves.toContain('"quota"');
  });

  it('holds the whole sweep to one limit: --concurrency 1 lets one session at a time run, across both leaves, levels and arms', () => {
    // Without the one limiter the two leaves' sessions, and the two arms' merges, overlap (their calls are held 30 ms each).
    expect(gauge.peak).toBe(1);
    expect(gauge.now).toBe(0);
  });

  it('refuses a resume with an edited manifest: exit 2, nothing written', async () => {
    const edited = path.join(tmp, 'edited.yaml');
    const text = (await readFile(RECORD_MANIFEST, 'utf8')).replace('seed: 11', 'seed: 12').replace('spec: ../../../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`);
    await writeFile(edited, text);
    const before = await readFile(path.join(baseline.dir, 'journal.jsonl'));
    await expect(runRecord(edited, { out: baseline.dir, depths: [1] }, bufferIo(), simSeams())).rejects.toThrow(/^the manifest changed since this journal began \(digest [0-9a-f]{8}… → [0-9a-f]{8}…\): record into a new --out, or restore the manifest$/);
    expect(await readFile(path.join(baseline.dir, 'journal.jsonl'))).toEqual(before);
  });

  it('refuses a --max-sessions above the manifest’s on a resume', async () => {
    await expect(runRecord(RECORD_MANIFEST, { out: baseline.dir, maxSessions: 100_000 }, bufferIo(), simSeams())).rejects.toThrow(/can only lower the ceiling/);
  });

  it('counts max_sessions across resumes: a ceiling in the middle stops at a session boundary and names the unmeasured cells', async () => {
    const before = (await journalOf(baseline.dir)).filter((e) => e.type === 'session_started').length;
    const io = bufferIo();
    // 31 more: exactly what a cap-2 cell opens by plan's arithmetic (b = 2: 4 leaves x 4 + 3 planners + 3 x (seam checker + meta-verifier + merger + review)), so it may begin, and the pair needs more.
    const result = await runRecord(RECORD_MANIFEST, { out: baseline.dir, depths: [1, 2], maxSessions: before + 31 }, io, simSeams());
    const events = await journalOf(baseline.dir);
    expect(events.filter((e) => e.type === 'session_started' && !(e as { reopened: boolean }).reopened)).toHaveLength(before + 31);
    expect(result.summary.stop.reason).toBe('ceiling');
    expect(result.summary.cells.filter((c) => c.status === 'unmeasured').map((c) => c.cell)).toEqual(['cap2-rep1-gated', 'cap2-rep1-ungated']);
    expect(result.summary.caveats.find((c) => c.startsWith('CEILING'))).toMatch(/2 cell\(s\) left unmeasured: cap2-rep1-gated, cap2-rep1-ungated/);
    expect(io.text()).toContain('ceiling');
  }, HEAVY);

  it('stops before any session when --max-sessions is lower than one cell, says so, and refuses to summarise zeros', async () => {
    const dir = path.join(tmp, 'tiny');
    const io = bufferIo();
    const result = await recordSim(dir, { depths: [1], maxSessions: 3 }, {}, io);
    expect(result.exit).toBe(8);
    const said = io.text().split('\n').filter((l) => l.startsWith('harness: ')).map((l) => l.replaceAll(path.relative(process.cwd(), dir), '<run>').replaceAll(dir, '<run>'));
    expect(said).toMatchInlineSnapshot(`
      [
        "harness: the sweep stopped (max_sessions or max_cost_usd would be passed: the session ceiling leaves 3 session(s), below the 13 the next cell (cap1-rep1-gated) opens at projected_branching 2 (harness plan); no session was dispatched); 0 of 2 staged cells measured (0 unavailable transient, 0 permanent, 2 unmeasured by a ceiling, 0 not started). The journal is intact: the same command continues up to the manifest's own ceiling when --max-sessions lowered it; a manifest's ceiling is pinned, so going past it means a new --out (<run>).",
        "harness: no cell of <run> is measured yet, so no report is written (it would only show zeros)",
      ]
    `);
    await expect(readFile(path.join(dir, 'report/report.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    const events = await journalOf(dir);
    expect(events.filter((e) => e.type === 'session_started')).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'sweep_stopped', reason: 'ceiling' });
  }, HEAVY);
});

