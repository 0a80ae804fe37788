import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertPinsMatch, headerOf, openJournal, readSweepJournal, type SweepEventInput } from '../../harness/index.js';
import { progressFrom, sessionCeilingFrom } from '../../harness/testing.js';
import { header, runStarted, sampleMeasurement, samplePins, session, stamped } from '../harness/journal/sweep-fixtures.js';
import { median } from 'simple-statistics';
import { figure, type Figure } from './stats.js';

/** Target: resuming from a 100,000-event journal in under 2 s on a 2-core machine. */
export const RESUME_TARGET_MS = 2000;
const EVENTS = 100_000;

/**
 * A sweep's journal with a realistic mix: per cell a planned tree of a few kilobytes, then
 * sessions (started and finished), leaves, merge attempts and reviews, a grading and the
 * cell's end. About 300 bytes an event, as the real events are.
 */
export function bigSweep(count: number): SweepEventInput[] {
  const events: SweepEventInput[] = [header(), runStarted()];
  for (let c = 0; events.length < count; c++) {
    const cellId = `cap${1 + (c % 4)}-rep${1 + Math.floor(c / 8)}-${c % 2 ? 'ungated' : 'gated'}`;
    events.push({ type: 'cell_started', cellId });
    events.push({ type: 'planning_recorded', cellIds: [cellId], tree: { nodes: Array.from({ length: 40 }, (_, i) => ({ path: `0/${i}`, goal: `implement requirement R${i} of the spec`, criteria: [`R${i}`] })) } });
    for (let n = 0; n < 200 && events.length < count - 4; n++) {
      events.push(...session(cellId, n));
      if (n % 4 === 0) events.push({ type: 'leaf_built', cellIds: [cellId], nodePath: `0/${n}`, leaf: { verdict: 'DONE', claims: [`R${n % 42}`], delivered: true } });
      if (n % 10 === 0) {
        events.push({ type: 'merge_attempt', cellId, nodePath: '0', attempt: 1, merge: { interfaceChanges: ['renamed parse() to parse_query()'] } });
        events.push({ type: 'review', cellId, nodePath: '0', attempt: 1, kind: c % 2 ? 'self' : 'independent', verdict: 'reject', review: { findings: ['R12 fails on quoted commas'] } });
      }
    }
    events.push({ type: 'cell_finished', cellId, outcome: { status: 'measured', result: sampleMeasurement(cellId) } });
  }
  return events.slice(0, count);
}

/**
 * What a resume does before its first new step: read and validate every line, check the
 * header against the current pins, fold the ceiling and the progress state, open the
 * journal and make one event durable.
 */
async function resume(file: string): Promise<void> {
  const contents = await readSweepJournal(file);
  if (contents.events.length !== EVENTS) throw new Error(`read ${contents.events.length} events, wrote ${EVENTS}`);
  assertPinsMatch(headerOf(contents)!.pins, samplePins());
  sessionCeilingFrom(contents.events, 1_000_000);
  progressFrom({ title: 'bench', simulated: true, cells: [], manifestMaxSessions: 1_000_000 }, contents.events);
  const journal = await openJournal(contents);
  await journal.append(runStarted(true));
  await journal.close();
}

export async function journalBench(): Promise<Figure[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-bench-journal-'));
  const file = path.join(dir, 'journal.jsonl');
  const text = stamped(bigSweep(EVENTS)).map((e) => JSON.stringify(e)).join('\n') + '\n';
  try {
    // Each run resumes a fresh copy (a resume appends, and the next must read the same events);
    // only the resume is timed, not the copy. The first run warms up.
    const times: number[] = [];
    // CPU time beside wall time: on a shared machine the wall clock also counts waiting for a core.
    const cpu: number[] = [];
    for (let run = 0; run < 6; run++) {
      await writeFile(file, text);
      const t = performance.now();
      const c = process.cpuUsage();
      await resume(file);
      const used = process.cpuUsage(c);
      if (run > 0) {
        times.push(performance.now() - t);
        cpu.push((used.user + used.system) / 1000);
      }
    }
    const mb = ((await stat(file)).size / 1024 / 1024).toFixed(1);
    const med = figure('x', times).medianMs;
    // The floor: what any reader of the file must pay, reading it and parsing every line, with no checks.
    const floor: number[] = [];
    for (let run = 0; run < 5; run++) {
      const t = performance.now();
      for (const line of (await readFile(file, 'utf8')).split('\n')) if (line) JSON.parse(line);
      floor.push(performance.now() - t);
    }
    const floorMs = figure('x', floor).medianMs;

    const sequential = await appendTimes(path.join(dir, 'appends.jsonl'), 200, false);
    const burst = await appendTimes(path.join(dir, 'burst.jsonl'), 200, true);
    const gain = median(sequential) / Math.max(1e-6, median(burst));
    return [
      figure(`read + JSON.parse every line (floor)`, floor, floorMs, 'no validation'),
      figure(`resume a ${EVENTS.toLocaleString('en-US')}-event journal (${mb} MB)`, times, floorMs, `target < ${RESUME_TARGET_MS} ms: ${med < RESUME_TARGET_MS ? 'met' : 'MISSED'}; CPU ${Math.round(median(cpu))} ms; read + validate + pins + fold + one durable append; x floor is to the parse-only row`),
      figure('200 journal appends, each awaited (fsync each)', sequential, undefined, 'one durable step at a time'),
      figure('200 journal appends at once (group commit)', burst, undefined, `${gain.toFixed(1)}x faster than one at a time`),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Milliseconds for `n` appends: awaited one by one, or issued together. */
async function appendTimes(file: string, n: number, together: boolean): Promise<number[]> {
  const journal = await openJournal(await readSweepJournal(file));
  await journal.append(header());
  const [started] = session('cap1-rep1-gated', 1);
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const t = performance.now();
    if (together) await Promise.all(Array.from({ length: n }, () => journal.append(started)));
    else for (let i = 0; i < n; i++) await journal.append(started);
    times.push(performance.now() - t);
  }
  await journal.close();
  return times;
}
