import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stableJson } from '../../../engine/index.js';
import { EXIT, REPO_ROOT, readSweepJournal, renderReplay, runFiles, runRecord, runReplay, type RecordResult, type SweepEvent } from '../../../harness/index.js';
import { bufferIo, fakeGrade, hostSandboxes, simSeams } from './record-fixture.js';

const { EngineEvent } = runFiles;

/**
 * `pairing: independent`: each arm plans and builds a tree of its own, one arm after the other,
 * and both trees use the same engine session ids (`root/planner/1`...). Every session must still
 * be journalled once for its own cell, charged there, transcribed in its own cell's folder, and
 * on a resume answered from its own arm's transcript, never from the other arm's. In process
 * (host sandboxes, fake grade, record-fixture.ts); cap 1.
 */

const HEAVY = 600_000;
let tmp: string;
let manifest: string;
let baseline: { dir: string; result: RecordResult; journal: readonly SweepEvent[] };
let resumed: { dir: string; cut: RecordResult; result: RecordResult; journal: readonly SweepEvent[] };

const journalOf = async (dir: string) => (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
const record = (out: string, o: { signal?: AbortSignal; onEvent?: (e: SweepEvent) => void } = {}) => runRecord(manifest, { out, depths: [1] }, bufferIo(), simSeams(o));
const started = (events: readonly SweepEvent[]) => events.filter((e): e is Extract<SweepEvent, { type: 'session_started' }> => e.type === 'session_started');
const key = (e: { cellIds: readonly string[]; sessionId: string }) => `${e.cellIds.join('+')} ${e.sessionId}`;
/** Each transcript file of a cell: its session id and how many calls it holds (a call is a response line). */
async function transcripts(dir: string, cell: string): Promise<Record<string, number>> {
  const folder = path.join(dir, 'cells', cell, 'transcripts');
  const out: Record<string, number> = {};
  for (const name of (await readdir(folder)).sort()) {
    const lines = (await readFile(path.join(folder, name), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { sessionId: string; type: string });
    out[lines[0]!.sessionId] = lines.filter((l) => l.type === 'response').length;
  }
  return out;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-independent-'));
  const text = (await readFile(path.join(REPO_ROOT, 'tests/harness/record/record-sim.yaml'), 'utf8'))
    .replace('spec: ../../../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`)
    .replace('pairing: shared', 'pairing: independent');
  manifest = path.join(tmp, 'independent.yaml');
  await writeFile(manifest, text);
  const dir = path.join(tmp, 'baseline');
  const result = await record(dir);
  baseline = { dir, result, journal: await journalOf(dir) };
  // Ctrl-C once the second arm's build has begun, then the same command again.
  const cutDir = path.join(tmp, 'resumed');
  const stop = new AbortController();
  const cut = await record(cutDir, { signal: stop.signal, onEvent: (e) => void (e.type === 'session_started' && e.cellIds.length === 1 && e.cellIds[0] === 'cap1-rep1-ungated' && e.sessionId === 'root/planner/1' && stop.abort()) });
  const result2 = await record(cutDir);
  resumed = { dir: cutDir, cut, result: result2, journal: await journalOf(cutDir) };
}, HEAVY);

describe('pairing: independent (in process)', () => {
  it('journals every session of each arm once, for its own cell, and charges it in that cell', async () => {
    expect(baseline.result.exit).toBe(EXIT.ok);
    for (const cell of ['cap1-rep1-gated', 'cap1-rep1-ungated']) {
      const mine = started(baseline.journal).filter((e) => e.cellIds.length === 1 && e.cellIds[0] === cell);
      const events = (await readFile(path.join(baseline.dir, 'cells', cell, 'events.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l)));
      const charged = new Set(events.flatMap((e) => (e.type === 'charge' ? [e.sessionId] : [])));
      // Both arms plan their own root: the same engine id, one session each.
      expect(mine.some((e) => e.sessionId === 'root/planner/1'), cell).toBe(true);
      expect(new Set(mine.map((e) => e.sessionId)), cell).toEqual(charged);
      expect(mine.length, cell).toBe(new Set(mine.map((e) => e.sessionId)).size);
    }
    expect(started(baseline.journal).every((e) => e.cellIds.length === 1)).toBe(true);
    // Each cell's measurement spends its own sessions: its own build and merges, none of the other arm's.
    for (const e of baseline.journal) {
      if (e.type !== 'cell_finished' || e.outcome.status !== 'measured') continue;
      const spend = e.outcome.result.spend;
      expect(spend.leaf.sessions + spend.planning.sessions + spend.merge.sessions, e.cellId).toBe(started(baseline.journal).filter((s) => s.cellIds[0] === e.cellId).length);
    }
  });

  it("transcribes each arm's sessions in its own cell, the calls of one session in one file", async () => {
    for (const cell of ['cap1-rep1-gated', 'cap1-rep1-ungated']) {
      const files = await transcripts(baseline.dir, cell);
      const turns = Object.fromEntries(baseline.journal.flatMap((e) => (e.type === 'session_finished' && e.cellIds[0] === cell ? [[e.sessionId, e.turns]] : [])));
      expect(files, cell).toEqual(turns);
    }
  });

  it("resumes the second arm's build from its own transcripts: a reopened session was started before, and the result is the baseline's", async () => {
    expect(resumed.cut.exit).toBe(EXIT.interrupted);
    expect(resumed.result.exit).toBe(EXIT.ok);
    const seen = new Set<string>();
    for (const e of started(resumed.journal)) {
      if (e.reopened) expect(seen.has(key(e)), key(e)).toBe(true);
      seen.add(key(e));
    }
    const outcomes = (events: readonly SweepEvent[]) => Object.fromEntries(events.flatMap((e) => (e.type === 'cell_finished' ? [[e.cellId, stableJson(e.outcome)]] : [])));
    expect(outcomes(resumed.journal)).toEqual(outcomes(baseline.journal));
    for (const cell of ['cap1-rep1-gated', 'cap1-rep1-ungated']) expect(await transcripts(resumed.dir, cell), cell).toEqual(await transcripts(baseline.dir, cell));
  });

  it('replays each arm from its own transcripts: every cell matches, no call unasked', async () => {
    const io = bufferIo();
    const replay = await runReplay(baseline.dir, {}, io, { sandboxes: hostSandboxes(), grade: fakeGrade });
    expect({ exit: replay.exit, statuses: replay.cells.map((c) => `${c.cell} ${c.status}`) }, renderReplay(replay)).toEqual({ exit: EXIT.ok, statuses: ['cap1-rep1-gated reproduced', 'cap1-rep1-ungated reproduced'] });
    expect(replay.calls.live).toBe(0);
  });
});
