import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../harness/index.js';
import { cellId, claimDefaultRunFolder, createRunFolder, defaultRunName, inspectRunFolder, pairId, parseCellId, runPaths, sessionFileName } from '../../../harness/index.js';

const temp = () => mkdtemp(path.join(tmpdir(), 'rdh-run-folder-'));

describe('cell ids', () => {
  it('are a pure function of (cap, arm, repetition), and parse back', () => {
    expect(cellId({ cap: 3, arm: 'gated', repetition: 2 })).toBe('cap3-rep2-gated');
    expect(parseCellId('cap12-rep4-ungated')).toEqual({ cap: 12, repetition: 4, arm: 'ungated' });
    expect(pairId(3, 2)).toBe('cap3-rep2');
    for (const bad of ['cap0-rep1-gated', 'cap1-rep1-judged', 'cap1-rep01-gated', '../cap1-rep1-gated', 'cap1-rep1-gated/..']) expect(parseCellId(bad)).toBeUndefined();
    expect(() => cellId({ cap: 1.5, arm: 'gated', repetition: 1 })).toThrow(/no cell id/);
    expect(() => cellId({ cap: 1, arm: 'judged' as never, repetition: 1 })).toThrow(/no cell id/);
  });
});

describe('run folder layout', () => {
  it('names every file of a run and of a cell', () => {
    const run = runPaths('/r');
    const cell = run.cell('cap1-rep1-gated');
    expect({ ...run, cell: undefined }).toMatchInlineSnapshot(`
      {
        "cell": undefined,
        "cells": "/r/cells",
        "journal": "/r/journal.jsonl",
        "manifest": "/r/manifest.yaml",
        "pair": [Function],
        "pairs": "/r/pairs",
        "report": "/r/report",
        "root": "/r",
        "summary": "/r/summary.json",
      }
    `);
    // A pair's shared build events, read by both of its cells' pages.
    expect(run.pair('cap1-rep1' as Parameters<typeof run.pair>[0])).toEqual({ root: '/r/pairs/cap1-rep1', events: '/r/pairs/cap1-rep1/events.jsonl' });
    expect({ ...cell, transcript: cell.transcript('root:planner:1') }).toMatchInlineSnapshot(`
      {
        "events": "/r/cells/cap1-rep1-gated/events.jsonl",
        "grade": "/r/cells/cap1-rep1-gated/grade.json",
        "result": "/r/cells/cap1-rep1-gated/result.json",
        "root": "/r/cells/cap1-rep1-gated",
        "transcript": "/r/cells/cap1-rep1-gated/transcripts/root%3Aplanner%3A1.jsonl",
        "transcripts": "/r/cells/cap1-rep1-gated/transcripts",
        "tree": "/r/cells/cap1-rep1-gated/tree",
      }
    `);
    expect(() => run.cell('../../etc' as never)).toThrow(/is not a cell id/);
  });

  it('gives every session its own transcript file: names never collide and never leave the folder', () => {
    const ids = ['a/b', 'a_b', 'a%2Fb', 'a:b', '..', '.', '.hidden', 'naïve', 'x'.repeat(300), 'x'.repeat(299) + 'y'];
    const names = ids.map(sessionFileName);
    expect(new Set(names).size).toBe(ids.length);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_%~-][A-Za-z0-9_.%~-]*\.jsonl$/);
      expect(name.length).toBeLessThanOrEqual(206);
    }
    expect(names.slice(0, 8)).toMatchInlineSnapshot(`
      [
        "a%2Fb.jsonl",
        "a_b.jsonl",
        "a%252Fb.jsonl",
        "a%3Ab.jsonl",
        "%2E..jsonl",
        "%2E.jsonl",
        "%2Ehidden.jsonl",
        "na%C3%AFve.jsonl",
      ]
    `);
  });

  it('names a default folder after the manifest and the UTC time, safe on any filesystem', () => {
    expect(defaultRunName('smoke', new Date('2026-01-02T03:04:05.678Z'))).toBe('smoke-20260102T030405Z');
    expect(() => defaultRunName('../x', new Date())).toThrow(/not safe/);
  });

  it('claims a new default folder even when two sweeps start in the same second', async () => {
    const runs = path.join(await temp(), 'runs');
    const now = new Date('2026-01-02T03:04:05Z');
    const [a, b] = await Promise.all([claimDefaultRunFolder(runs, 'smoke', now), claimDefaultRunFolder(runs, 'smoke', now)]);
    expect([path.basename(a), path.basename(b)].sort()).toEqual(['smoke-20260102T030405Z', 'smoke-20260102T030405Z-2']);
  });

  it('keeps the manifest as its exact bytes, and refuses to start a sweep in a folder that holds anything', async () => {
    const root = path.join(await temp(), 'out');
    const bytes = Buffer.from('# comments and  spacing survive\nname: smoke\r\n\u00e9\n', 'utf8');
    expect(await inspectRunFolder(root)).toBe('absent');
    const run = await createRunFolder(root, bytes, 'runs/out');
    expect((await readFile(run.manifest)).equals(bytes)).toBe(true);
    expect((await readdir(root)).sort()).toEqual(['cells', 'manifest.yaml']);
    expect(await inspectRunFolder(root)).toBe('foreign');
    await writeFile(run.journal, '');
    expect(await inspectRunFolder(root)).toBe('run');
    const again = await createRunFolder(root, bytes, 'runs/out').catch((e: unknown) => e);
    expect(again).toBeInstanceOf(UsageError);
    expect((again as Error).message).toMatchInlineSnapshot(`"runs/out already holds a sweep (journal.jsonl); resume it with the same command, or choose another --out"`);
    const other = path.join(await temp(), 'other');
    await mkdir(other);
    await writeFile(path.join(other, 'notes.txt'), 'mine');
    expect(((await createRunFolder(other, bytes, 'other').catch((e: unknown) => e)) as Error).message).toMatchInlineSnapshot(`"other exists and is not an empty folder or a run folder; choose another --out"`);
    const empty = path.join(await temp(), 'empty');
    await mkdir(empty);
    expect(await inspectRunFolder(empty)).toBe('empty');
    await createRunFolder(empty, bytes);
  });
});
