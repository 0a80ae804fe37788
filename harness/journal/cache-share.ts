import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Role } from '../../engine/index.js';
import type { CacheShare } from './cache-share-schema.js';
import type { SweepEvent } from './sweep-events.js';
import { readTranscripts } from './transcripts.js';

/**
 * The share of input tokens a provider served from its prompt cache, per role. Two readings:
 * - over every call (`cacheShareByRole`, from the journal's `session_finished` events, which
 *   carry each session's role and tokens): what the cache saved the sweep;
 * - over each session's FIRST call only (`firstCallCacheShare`, from the transcripts): the test
 *   of the request layout. A later call in a tool loop repeats its own history, so it is cached
 *   whatever the layout; only a first call can be cached by what it shares with OTHER sessions.
 */

type Tally = Map<Role, { sessions: number; input: number; cached: number }>;

function rows(tally: Tally): CacheShare[] {
  return Role.options.flatMap((role) => {
    const t = tally.get(role);
    if (!t) return [];
    // A provider reporting more cached than sent is read as all cached, never a share above 1.
    const cached = Math.min(t.cached, t.input);
    return [{ role, sessions: t.sessions, input: t.input, cached, share: t.input > 0 ? cached / t.input : null }];
  });
}

function add(tally: Tally, role: Role, input: number, cached: number): void {
  const t = tally.get(role) ?? { sessions: 0, input: 0, cached: 0 };
  tally.set(role, { sessions: t.sessions + 1, input: t.input + input, cached: t.cached + cached });
}

/** Per role, over every call, from the journal; a session a resume finished again counts once (its latest finish). */
export function cacheShareByRole(events: readonly SweepEvent[]): CacheShare[] {
  const latest = new Map<string, Extract<SweepEvent, { type: 'session_finished' }>>();
  for (const e of events) if (e.type === 'session_finished') latest.set(`${e.cellIds.join('+')} ${e.sessionId}`, e);
  const tally: Tally = new Map();
  for (const e of latest.values()) add(tally, e.role, e.tokens.input, e.tokens.cached);
  return rows(tally);
}

/**
 * Per role, over the first call of every session in a run folder's transcripts (each cell's own
 * folder: engine session ids repeat from pair to pair). A session whose first call got no answer
 * is not counted.
 */
export async function firstCallCacheShare(runDir: string): Promise<CacheShare[]> {
  const cellsDir = path.join(runDir, 'cells');
  const cells = (await readdir(cellsDir).catch(() => [] as string[])).sort();
  const tally: Tally = new Map();
  for (const cell of cells) {
    const sessions = await readTranscripts([path.join(cellsDir, cell, 'transcripts')]);
    for (const calls of sessions.values()) {
      const first = calls[0];
      if (first?.call === 0) add(tally, first.request.role, first.response.usage.inputTokens, first.response.usage.cachedTokens);
    }
  }
  return rows(tally);
}
