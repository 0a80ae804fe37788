import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readViewKept, sessionsView, writeView } from '../../../site/src/lib/views.js';

/**
 * A cell's session pages share one view file (sessionsView), and astro builds several pages at
 * once (build.concurrency): the pages of one cell built together must read that file once
 * between them, and a page of the next cell must read its own.
 */
describe('readViewKept', () => {
  let data: string;

  beforeAll(async () => {
    data = await mkdtemp(path.join(tmpdir(), 'rdh-views-'));
    await writeView(data, sessionsView('run', 'cap1-rep1-gated'), { 'root/verifier/1': 'gated' });
    await writeView(data, sessionsView('run', 'cap1-rep1-ungated'), { 'root/verifier/1': 'ungated' });
  });

  afterAll(async () => {
    await rm(data, { recursive: true, force: true });
  });

  it('hands pages built at once the one read in flight, and reads the next file afresh', async () => {
    const gated = sessionsView('run', 'cap1-rep1-gated');
    const first = readViewKept<Record<string, string>>(data, gated);
    // Asked again before the first read is done, as a page built at the same moment asks.
    const second = readViewKept<Record<string, string>>(data, gated);
    expect(second).toBe(first);
    expect(await second).toEqual({ 'root/verifier/1': 'gated' });

    const ungated = readViewKept<Record<string, string>>(data, sessionsView('run', 'cap1-rep1-ungated'));
    expect(ungated).not.toBe(first);
    expect(await ungated).toEqual({ 'root/verifier/1': 'ungated' });
    // Only the last file is kept: back on the first cell, its file is read again, as it now is.
    await writeFile(path.join(data, gated), JSON.stringify({ 'root/verifier/1': 'rewritten' }));
    expect(await readViewKept<Record<string, string>>(data, gated)).toEqual({ 'root/verifier/1': 'rewritten' });
  });
});
