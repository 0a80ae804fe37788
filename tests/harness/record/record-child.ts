import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, readSweepJournal, readTranscripts, type RecordFlags } from '../../../harness/index.js';
import type { SimRecordOptions } from './record-fixture.js';

const run = promisify(execFile);

/** How a child `harness record` (record-driver.ts) ended. */
export interface Invocation {
  exit: number;
  /** What the command printed to stderr, after the signal that ended it if one did. */
  output: string;
  /** `<sessionId> <history length>` of every live model call it made (its options' countFile). */
  calls: string[];
}

/**
 * Records the SIMULATED record sweep into `dir` in a child process (so a test can take its Docker
 * daemon or host away from under it), with `env` added to this process's environment.
 */
export async function recordInChild(dir: string, o: { flags: RecordFlags; options: SimRecordOptions & { countFile: string }; env?: NodeJS.ProcessEnv }): Promise<Invocation> {
  const args = JSON.stringify({ out: dir, flags: o.flags, options: o.options });
  const ended = await run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'tests/harness/record/record-driver.ts'), args], {
    cwd: REPO_ROOT, maxBuffer: 1 << 26, env: { ...process.env, ...o.env },
  }).then(
    (r) => ({ exit: 0, output: r.stderr }),
    (e: { code?: number; signal?: string; stderr?: string }) => ({ exit: e.code ?? -1, output: `${e.signal ?? ''}${e.stderr ?? ''}` }),
  );
  return { ...ended, calls: (await readFile(o.options.countFile, 'utf8').catch(() => '')).split('\n').filter(Boolean) };
}

/** Every call transcribed in the run folder of the record sweep (completed: its response is on file). */
export async function transcribedCalls(dir: string): Promise<Set<string>> {
  const transcripts = await readTranscripts([path.join(dir, 'cells/cap1-rep1-gated/transcripts'), path.join(dir, 'cells/cap1-rep1-ungated/transcripts')]);
  return new Set([...transcripts.values()].flatMap((cs) => cs.map((c) => `${c.request.sessionId} ${c.messages.length}`)));
}

/** The run id a run folder's journal pins (what its containers are labelled with); undefined until its header is written. */
export async function journalRunId(dir: string): Promise<string | undefined> {
  const events = await readSweepJournal(path.join(dir, 'journal.jsonl')).then((j) => j.events, () => []);
  const header = events[0];
  return header?.type === 'header' ? header.pins.runId : undefined;
}
