import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_VERSION, EngineEvent } from '../../../engine/index.js';
import { PairEventFiles } from '../../../harness/testing.js';

/**
 * The writer of a pair's event files in `harness record` (the sweep itself is tested in
 * record.test.ts): where each event goes, what is left out, and a re-run that writes each file
 * from its start.
 */

const event = (e: Record<string, unknown>) => EngineEvent.parse({ version: EVENT_VERSION, ts: '2026-01-01T00:00:00.000Z', ...e });
const BUILD = [
  event({ type: 'node_started', nodeId: 'root.1', parentId: 'root', depth: 1, goal: 'g', allocation: 1 }),
  event({ type: 'tool_call', nodeId: 'root.1', role: 'worker', step: 1, tool: 'read_file', args: '{}', ok: true, result: 'x'.repeat(10_000) }),
];
const GATED = [event({ type: 'merge_review', nodeId: 'root', arm: 'gated', attempt: 1, kind: 'independent', model: 'r', family: 'b', independent: true, accept: false, findings: ['seam broken'], verdictUsed: true })];
const UNGATED = [event({ type: 'merge_review', nodeId: 'root', arm: 'ungated', attempt: 1, kind: 'self', model: 'm', family: 'a', independent: false, accept: true, findings: [], verdictUsed: false })];

async function files() {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-pair-events-'));
  return { pairFile: path.join(dir, 'pairs/cap1-rep1/events.jsonl'), gated: path.join(dir, 'cells/cap1-rep1-gated/events.jsonl'), ungated: path.join(dir, 'cells/cap1-rep1-ungated/events.jsonl') };
}
const lines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l)));

async function runPair(f: Awaited<ReturnType<typeof files>>, finished: { gated?: boolean } = {}) {
  const out = await PairEventFiles.open({ pairFile: f.pairFile, cellFiles: { gated: finished.gated ? null : f.gated, ungated: f.ungated } });
  for (const e of [...BUILD, ...GATED, ...UNGATED]) out.sink.emit(e);
  await out.close();
  // A straggler after the pair closed is dropped, never thrown at the engine.
  out.sink.emit(BUILD[0]!);
}

describe('a pair\'s event files', () => {
  it('writes the shared build once in the pair\'s file and each arm\'s events in its cell, without tool_call', async () => {
    const f = await files();
    await runPair(f);
    expect((await lines(f.pairFile)).map((e) => e.type)).toEqual(['node_started']);
    expect(await lines(f.gated)).toEqual(GATED);
    expect(await lines(f.ungated)).toEqual(UNGATED);
  });

  it('rewrites every file of a re-run pair from its start, so no event is written twice; a cell finished before keeps its file', async () => {
    const f = await files();
    await runPair(f);
    await runPair(f);
    expect(await lines(f.pairFile)).toHaveLength(1);
    expect(await lines(f.gated)).toEqual(GATED);
    expect(await lines(f.ungated)).toEqual(UNGATED);
    // The gated cell finished before the kill: its file is kept as it was, its arm's events of the re-run dropped.
    await writeFile(f.gated, `${JSON.stringify(GATED[0])}\n${JSON.stringify(GATED[0])}\n`);
    await runPair(f, { gated: true });
    expect(await lines(f.gated)).toHaveLength(2);
    expect(await lines(f.ungated)).toEqual(UNGATED);
  });

  it('throws a failed write at the next flush rather than at the engine', async () => {
    const f = await files();
    const out = await PairEventFiles.open({ pairFile: f.pairFile, cellFiles: {} });
    // The pair's folder is a file: the write fails.
    await writeFile(path.dirname(path.dirname(f.pairFile)), 'not a folder');
    expect(() => out.sink.emit(BUILD[0]!)).not.toThrow();
    await expect(out.flush()).rejects.toThrow();
    await out.close().catch(() => undefined);
  });
});
