import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { stableJson } from '../../../../engine/index.js';
import { REPO_ROOT } from '../../../../harness/paths.js';
import { runRecord, type RecordResult } from '../../../../harness/sweep/record.js';
import { readSweepJournal, type SweepEvent } from '../../../../harness/sweep/sweep-events.js';
import { readTranscripts } from '../../../../harness/sweep/transcripts.js';
import { bufferIo, recordSim, simSeams, SMOKE } from './record-fixture.js';

/**
 * `harness record` on the SIMULATED population, cap 1 (one pair: both arms share its build),
 * with a host sandbox and a fake grade (record-fixture.ts): resume after SIGKILL at five points
 * against one uninterrupted baseline, refusals, the ceiling across resumes, quota, an
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
const calls = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

const KILL_POINTS: Array<{ name: string; type: SweepEvent['type']; n: number }> = [
  { name: 'inside planning (the root planner just started)', type: 'session_started', n: 1 },
  { name: 'inside a leaf (the 12th session started)', type: 'session_started', n: 12 },
  { name: 'between a merge attempt and its review', type: 'merge_attempt', n: 1 },
  { name: 'during grading (one arm graded, the other not)', type: 'grading_recorded', n: 1 },
  { name: 'after a cell', type: 'cell_finished', n: 1 },
];

interface Killed {
  dir: string;
  count: string;
  recordedAtKill: Set<string>;
  resumed: RecordResult;
  resumeCount: string;
}

let tmp: string;
let baseline: { dir: string; result: RecordResult; count: string };
let ungradable: { dir: string; result: RecordResult };
let quota: { dir: string; result: RecordResult; io: ReturnType<typeof bufferIo> };
let killed: Killed[];
let interrupted: { dir: string; first: RecordResult; resumed: RecordResult };

/** Ctrl-C (the signal the command listens to) after the 5th session started, then the same command again. */
async function interruptThenResume(): Promise<typeof interrupted> {
  const dir = path.join(tmp, 'interrupted');
  const stop = new AbortController();
  let sessions = 0;
  const first = await recordSim(dir, { depths: [1] }, { signal: stop.signal, onEvent: (e) => void (e.type === 'session_started' && ++sessions === 5 && stop.abort()) });
  const resumed = await recordSim(dir, { depths: [1] });
  return { dir, first, resumed };
}

async function killThenResume(point: (typeof KILL_POINTS)[number], i: number): Promise<Killed> {
  const dir = path.join(tmp, `killed-${i}`);
  const count = path.join(tmp, `killed-${i}.calls`);
  const args = JSON.stringify({ out: dir, flags: { depths: [1] }, options: { killAt: { type: point.type, n: point.n }, countFile: count } });
  const child = await run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'tests/harness/sweep/record/record-driver.ts'), args], { cwd: REPO_ROOT, maxBuffer: 1 << 26 }).then(
    () => ({ signal: null as string | null }),
    (e: { signal?: string }) => ({ signal: e.signal ?? null }),
  );
  expect(child.signal, point.name).toBe('SIGKILL');
  const transcripts = await readTranscripts([path.join(dir, 'cells/cap1-rep1-gated/transcripts'), path.join(dir, 'cells/cap1-rep1-ungated/transcripts')]);
  const recordedAtKill = new Set([...transcripts.values()].flatMap((cs) => cs.map((c) => `${c.sessionId} ${c.sent + c.added.length}`)));
  const resumeCount = path.join(tmp, `resumed-${i}.calls`);
  const resumed = await recordSim(dir, { depths: [1] }, { countFile: resumeCount });
  return { dir, count, recordedAtKill, resumed, resumeCount };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-record-'));
  const count = path.join(tmp, 'baseline.calls');
  const quotaIo = bufferIo();
  const [b, u, q, k, i] = await Promise.all([
    recordSim(path.join(tmp, 'baseline'), { depths: [1] }, { countFile: count }),
    recordSim(path.join(tmp, 'ungradable'), { depths: [1] }, { ungradable: 'cap1-rep1-gated' }),
    recordSim(path.join(tmp, 'quota'), { depths: [1] }, { quotaAt: 10 }, quotaIo),
    Promise.all(KILL_POINTS.map(killThenResume)),
    interruptThenResume(),
  ]);
  interrupted = i;
  baseline = { dir: path.join(tmp, 'baseline'), result: b, count };
  ungradable = { dir: path.join(tmp, 'ungradable'), result: u };
  quota = { dir: path.join(tmp, 'quota'), result: q, io: quotaIo };
  killed = k;
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

  for (const [i, point] of KILL_POINTS.entries()) {
    it(`resumes after SIGKILL ${point.name}: results equal the uninterrupted run, no transcribed call made twice`, async () => {
      const k = killed[i]!;
      expect(k.resumed.exit).toBe(0);
      expect(await finalOutcomes(k.dir)).toEqual(await finalOutcomes(baseline.dir));
      const again = (await calls(k.resumeCount)).filter((c) => k.recordedAtKill.has(c));
      expect(again).toEqual([]);
      // Together the two invocations made no more live calls than the baseline, plus those in flight at the kill.
      const before = await calls(k.count);
      const resumedCalls = await calls(k.resumeCount);
      expect(resumedCalls.length + before.length).toBeLessThanOrEqual((await calls(baseline.count)).length + 8);
      const events = await journalOf(k.dir);
      expect(events.filter((e) => e.type === 'run_started').map((e) => (e as { resume: boolean }).resume)).toEqual([false, true]);
    });
  }

  it('on Ctrl-C stops dispatching, lets in-flight sessions finish, journals the stop and exits 130; the same command completes it', async () => {
    expect(interrupted.first.exit).toBe(130);
    const events = await journalOf(interrupted.dir);
    const firstRun = events.slice(0, events.findIndex((e) => e.type === 'sweep_stopped') + 1);
    expect(firstRun.at(-1)).toMatchObject({ type: 'sweep_stopped', reason: 'interrupted' });
    // Nothing was dispatched after the stop: every session the first invocation started, it finished.
    const started = firstRun.filter((e) => e.type === 'session_started').length;
    expect(started).toBeLessThan(12);
    expect(firstRun.filter((e) => e.type === 'session_finished')).toHaveLength(started);
    expect(interrupted.resumed.exit).toBe(0);
    expect(await finalOutcomes(interrupted.dir)).toEqual(await finalOutcomes(baseline.dir));
  });

  it('marks a cell whose tree cannot be graded unavailable, and measures the rest', () => {
    expect(ungradable.result.exit).toBe(0);
    const cells = Object.fromEntries(ungradable.result.summary.cells.map((c) => [c.cell, c]));
    expect(cells['cap1-rep1-gated']).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/^ungradable: the tree of cap1-rep1-gated cannot be graded/) });
    expect(cells['cap1-rep1-ungated']!.status).toBe('measured');
  });

  it('stops at the quota (insufficient_quota on the 10th call), keeps what was paid and writes the summary', async () => {
    expect(quota.result.exit).toBe(5);
    expect(quota.result.summary.stop.reason).toBe('quota');
    expect(quota.result.summary.cells.every((c) => c.status === 'unavailable' && c.reason?.startsWith('quota'))).toBe(true);
    expect(quota.result.summary.caveats.some((c) => c.startsWith('QUOTA'))).toBe(true);
    await expect(readFile(path.join(quota.dir, 'summary.json'), 'utf8')).resolves.toContain('"quota"');
  });

  it('refuses a resume with an edited manifest: exit 2, nothing written', async () => {
    const edited = path.join(tmp, 'edited.yaml');
    const text = (await readFile(SMOKE, 'utf8')).replace('seed: 11', 'seed: 12').replace('spec: ../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`);
    await writeFile(edited, text);
    const before = await readFile(path.join(baseline.dir, 'journal.jsonl'));
    await expect(runRecord(edited, { out: baseline.dir, depths: [1] }, bufferIo(), simSeams())).rejects.toThrow(/^the manifest changed since this journal began \(digest [0-9a-f]{8}… → [0-9a-f]{8}…\): record into a new --out, or restore the manifest$/);
    expect(await readFile(path.join(baseline.dir, 'journal.jsonl'))).toEqual(before);
  });

  it('refuses a --max-sessions above the manifest’s on a resume', async () => {
    await expect(runRecord(SMOKE, { out: baseline.dir, maxSessions: 100_000 }, bufferIo(), simSeams())).rejects.toThrow(/can only lower the ceiling/);
  });

  it('counts max_sessions across resumes: a ceiling in the middle stops at a session boundary and names the unmeasured cells', async () => {
    const before = (await journalOf(baseline.dir)).filter((e) => e.type === 'session_started').length;
    const io = bufferIo();
    const result = await runRecord(SMOKE, { out: baseline.dir, depths: [1, 2], maxSessions: before + 5 }, io, simSeams());
    const events = await journalOf(baseline.dir);
    expect(events.filter((e) => e.type === 'session_started' && !(e as { reopened: boolean }).reopened)).toHaveLength(before + 5);
    expect(result.summary.stop.reason).toBe('ceiling');
    expect(result.summary.cells.filter((c) => c.status === 'unmeasured').map((c) => c.cell)).toEqual(['cap2-rep1-gated', 'cap2-rep1-ungated']);
    expect(result.summary.caveats.find((c) => c.startsWith('CEILING'))).toMatch(/2 cell\(s\) left unmeasured: cap2-rep1-gated, cap2-rep1-ungated/);
    expect(io.text()).toContain('ceiling');
  }, HEAVY);

  it('refuses to summarise a sweep in which the ceiling let nothing be measured', async () => {
    const dir = path.join(tmp, 'tiny');
    await expect(recordSim(dir, { depths: [1], maxSessions: 3 })).rejects.toThrow(/no cell was measured .*session ceiling is reached: 3 sessions/);
    const events = await journalOf(dir);
    expect(events.filter((e) => e.type === 'session_started')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'cell_finished').map((e) => (e as { outcome: { status: string } }).outcome.status)).toEqual(['unmeasured', 'unmeasured']);
  }, HEAVY);
});

void copyFile;
