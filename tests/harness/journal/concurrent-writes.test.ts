import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlFile } from '../../../engine/index.js';
import { openJournal, readSweepJournal, runPaths, type SweepEventInput } from '../../../harness/index.js';
import { header } from './sweep-fixtures.js';

const MiB = 1024 * 1024;
const temp = () => mkdtemp(path.join(tmpdir(), 'rdh-concurrent-'));
/** A payload whose every byte depends on (who, i), so a torn or spliced line cannot pass as whole. */
const payload = (who: string, i: number, bytes: number) => {
  const seed = createHash('sha256').update(`${who}:${i}`).digest('hex');
  return seed.repeat(Math.ceil(bytes / seed.length)).slice(0, bytes);
};

describe('concurrent writes: no line torn or interleaved', () => {
  it('32 sessions write their transcripts at once, each through its own single writer', async () => {
    const cell = runPaths(await temp()).cell('cap2-rep1-gated');
    const SESSIONS = 32;
    const LINES = 40;
    // Session ids the engine might use, including characters a file name cannot hold.
    const ids = Array.from({ length: SESSIONS }, (_, s) => `node/${s % 4}/${s}:worker:attempt 1`);
    const size = (s: number, i: number) => (i === 7 ? MiB : i % 10 === 0 ? 64 * 1024 : 200 + ((s * 31 + i) % 900));
    const writers = ids.map((id) => new JsonlFile(cell.transcript(id)));
    // Every session fires all its lines without waiting (a request and its response, tool outputs...).
    await Promise.all(writers.flatMap((w, s) => Array.from({ length: LINES }, (_, i) => w.append({ sessionId: ids[s], i, body: payload(ids[s]!, i, size(s, i)) }))));
    await Promise.all(writers.map((w) => w.close()));

    expect((await readdir(cell.transcripts)).length).toBe(SESSIONS);
    for (const [s, id] of ids.entries()) {
      const text = await readFile(cell.transcript(id), 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.slice(0, -1).split('\n').map((l) => JSON.parse(l) as { sessionId: string; i: number; body: string });
      expect(lines.map((l) => l.i)).toEqual(Array.from({ length: LINES }, (_, i) => i));
      for (const l of lines) {
        expect(l.sessionId).toBe(id);
        expect(l.body === payload(id, l.i, size(s, l.i))).toBe(true);
      }
    }
  });

  it('concurrent 1 MiB journal appends land whole, in seq order, each once', async () => {
    const file = runPaths(await temp()).journal;
    const journal = await openJournal(await readSweepJournal(file));
    await journal.append(header());
    const BIG = 16;
    const SMALL = 160;
    const appends: Array<Promise<unknown>> = [];
    const expected = new Map<number, string>();
    for (let i = 0; i < BIG + SMALL; i++) {
      const big = i % 10 === 0 || i >= SMALL;
      const body = payload('journal', i, big ? MiB : 300);
      const event: SweepEventInput = { type: 'planning_recorded', cellIds: ['cap3-rep1-gated', 'cap3-rep1-ungated'], tree: { i, body } };
      expected.set(i, body);
      appends.push(journal.append(event));
    }
    const appended = (await Promise.all(appends)) as Array<{ seq: number }>;
    await journal.close();
    // Seqs were given in call order.
    expect(appended.map((e) => e.seq)).toEqual(Array.from({ length: BIG + SMALL }, (_, i) => i + 2));

    const contents = await readSweepJournal(file);
    expect(contents.tornTail).toBeUndefined();
    expect(contents.events.length).toBe(BIG + SMALL + 1);
    expect(contents.durableBytes).toBe((await stat(file)).size);
    for (const event of contents.events.slice(1)) {
      if (event.type !== 'planning_recorded') throw new Error(`unexpected ${event.type}`);
      const { i, body } = event.tree as { i: number; body: string };
      expect(event.seq).toBe(i + 2);
      expect(body === expected.get(i)).toBe(true);
    }
  });
});
