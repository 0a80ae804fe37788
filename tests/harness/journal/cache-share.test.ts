import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDirectory, TranscriptRecorder, systemClock, type ModelClient, type ModelRequest, type Role } from '../../../engine/index.js';
import type { SweepEvent } from '../../../harness/index.js';
import { cacheLines, cacheShareByRole, firstCallCacheShare } from '../../../harness/testing.js';

/** A session_finished event with the fields the fold reads (the rest of its shape is the journal's concern). */
const finished = (sessionId: string, role: Role, input: number, cached: number, cellIds = ['cap1-rep1-gated']): SweepEvent =>
  ({ type: 'session_finished', version: 1, seq: 1, at: '2026-01-01T00:00:00.000Z', cellIds, sessionId, role, nodePath: 'root', attempt: 1, turns: 1, tokens: { input, cached, output: 1 }, costUsd: null, stop: 'completed' }) as SweepEvent;

describe('the cached share of input per role', () => {
  it('over every call, from the journal: per role, a session a resume finished again counted once (its latest), never NaN', () => {
    const shares = cacheShareByRole([
      finished('root/planner/1', 'planner', 1000, 0),
      finished('root/planner/1', 'planner', 2000, 1500),
      finished('root.1/planner/1', 'planner', 2000, 500),
      finished('root.1/planner/1', 'planner', 1000, 1000, ['cap2-rep1-gated']),
      finished('root/worker/1', 'worker', 0, 0),
    ]);
    expect(shares).toEqual([
      { role: 'planner', sessions: 3, input: 5000, cached: 3000, share: 0.6 },
      { role: 'worker', sessions: 1, input: 0, cached: 0, share: null },
    ]);
    expect(cacheLines('runs/x', shares)).toEqual([
      "Prompt cache in runs/x (input served from the provider's cache, per role, over every call):",
      '  role     sessions  tokens in  cached  cached share',
      '  planner         3      5.00k   3.00k           60%',
      '  worker          1          0       0             –',
    ]);
    expect(cacheLines('runs/x', [])).toEqual([]);
  });

  it("over each session's first call only, from the transcripts of every cell, later calls ignored", async () => {
    const run = await mkdtemp(path.join(tmpdir(), 'rdh-cache-share-'));
    // Usage as a caching provider would report it: the first call by the role's position, later calls all cached.
    const usage = (req: ModelRequest) => ({ inputTokens: 2000, outputTokens: 5, cachedTokens: req.messages.length > 2 ? 2000 : req.role === 'planner' ? 1024 : 0 });
    const model: ModelClient = { complete: async (req) => ({ content: 'ok', toolCalls: [], usage: usage(req), model: 'm', finishReason: 'stop' }) };
    for (const cell of ['cap1-rep1-gated', 'cap1-rep1-ungated']) {
      const dir = path.join(run, 'cells', cell, 'transcripts');
      await mkdir(dir, { recursive: true });
      const tx = new TranscriptRecorder(new JsonlDirectory(dir), systemClock);
      const client = tx.wrap(model);
      for (const role of ['planner', 'worker'] as const) {
        const base = { model: 'm', role, sessionId: `root/${role}/1`, nodeId: 'root', attempt: 1 };
        await client.complete({ ...base, messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }] });
        await client.complete({ ...base, messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }] });
      }
      await tx.close();
    }
    expect(await firstCallCacheShare(run)).toEqual([
      { role: 'planner', sessions: 2, input: 4000, cached: 2048, share: 0.512 },
      { role: 'worker', sessions: 2, input: 4000, cached: 0, share: 0 },
    ]);
    expect(await firstCallCacheShare(path.join(run, 'nothing-here'))).toEqual([]);
  });
});
