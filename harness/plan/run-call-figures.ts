import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { Role } from '../../engine/index.js';
import { runPaths } from '../journal/run-folder.js';
import type { SweepEvent } from '../journal/sweep-events.js';
import { pairOfRole } from '../providers/role-pairs.js';
import type { PairCalls, RunCallFigures } from './wall-time-loads.js';

/**
 * What a recorded run's sessions did, per pair, for the wall-time forecast of `plan --from`:
 * sessions, calls and tokens from the journal's `session_finished`, each session's time from
 * its `session_started` to its `session_finished`, and each call's latency from the
 * transcripts' `latencyMs`. Read leniently (only the fields needed, every transcript format
 * version alike): a line that does not carry them is skipped, never guessed.
 */

/** The fields of a transcript line the latency needs; `error` lines waited too. */
const TimedLine = z.object({ type: z.enum(['response', 'error']), role: Role, latencyMs: z.number().int().nonnegative() });

const empty = (): PairCalls => ({ sessions: 0, calls: 0, tokens: 0, sessionSeconds: 0, latency: { calls: 0, seconds: 0 } });

function fromJournal(events: readonly SweepEvent[], figures: RunCallFigures): void {
  const started = new Map<string, number>();
  const key = (e: { cellIds: readonly string[]; sessionId: string }) => `${e.cellIds.join(',')}\n${e.sessionId}`;
  for (const e of events) {
    if (e.type === 'session_started') started.set(key(e), Date.parse(e.at));
    if (e.type !== 'session_finished') continue;
    const f = figures[pairOfRole(e.role)];
    f.sessions += 1;
    f.calls += e.turns;
    f.tokens += e.tokens.input + e.tokens.output;
    const from = started.get(key(e));
    const seconds = from === undefined ? 0 : (Date.parse(e.at) - from) / 1000;
    if (Number.isFinite(seconds) && seconds > 0) f.sessionSeconds += seconds;
  }
}

async function fromTranscripts(runDir: string, figures: RunCallFigures): Promise<void> {
  const cells = runPaths(runDir).cells;
  for (const cell of await readdir(cells).catch(() => [] as string[])) {
    const dir = runPaths(runDir).cell(cell).transcripts;
    for (const file of await readdir(dir).catch(() => [] as string[])) {
      if (!file.endsWith('.jsonl')) continue;
      for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
        if (!line.includes('latencyMs')) continue;
        let parsed;
        try {
          parsed = TimedLine.safeParse(JSON.parse(line));
        } catch {
          continue;
        }
        if (!parsed.success) continue;
        const f = figures[pairOfRole(parsed.data.role)].latency;
        f.calls += 1;
        f.seconds += parsed.data.latencyMs / 1000;
      }
    }
  }
}

/** The run's measured call figures per pair. */
export async function runCallFigures(runDir: string, events: readonly SweepEvent[]): Promise<RunCallFigures> {
  const figures: RunCallFigures = { executor: empty(), reviewer: empty() };
  fromJournal(events, figures);
  await fromTranscripts(runDir, figures);
  return figures;
}
