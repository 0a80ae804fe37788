import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headerOf, JournalEventError, JournalInvalidError, openJournal, readSweepJournal, SWEEP_JOURNAL } from '../../../harness/index.js';
import { everyEventType, header, runStarted, stamped } from './sweep-fixtures.js';

const journalFile = async () => path.join(await mkdtemp(path.join(tmpdir(), 'rdh-sweep-events-')), 'journal.jsonl');

describe('sweep events', () => {
  it('round-trips one event of every type through the journal, each at its version (cell_finished and grading_recorded 2, the rest 1)', async () => {
    const file = await journalFile();
    const journal = await openJournal(await readSweepJournal(file));
    const inputs = everyEventType();
    for (const input of inputs) await journal.append(input);
    await journal.close();
    const contents = await readSweepJournal(file);
    expect(contents.events.map((e) => e.type)).toEqual([...SWEEP_JOURNAL.versions.keys()]);
    expect(contents.events.map((e) => e.version)).toEqual(inputs.map((e) => (e.type === 'cell_finished' || e.type === 'grading_recorded' ? 2 : 1)));
    expect(headerOf(contents)?.pins.manifest.sha256).toBe('a'.repeat(64));
  });

  it('refuses, before writing, events that break their schema', async () => {
    const file = await journalFile();
    const journal = await openJournal(await readSweepJournal(file));
    const refused = async (input: unknown) => ((await journal.append(input as never).catch((e: unknown) => e)) as Error).message;
    expect(await refused({ type: 'cell_started', cellId: 'cap0-rep1-gated' })).toMatchInlineSnapshot(`"refused to journal a cell_started event: cellId: is not a cell id (cap<N>-rep<N>-gated|ungated)"`);
    expect(await refused({ type: 'ceiling_lowered', maxSessions: 200, manifestMaxSessions: 100 })).toMatchInlineSnapshot(`"refused to journal a ceiling_lowered event: maxSessions: a lowered ceiling cannot be above the manifest’s max_sessions"`);
    const finished = everyEventType().find((e) => e.type === 'session_finished')!;
    expect(await refused({ ...finished, tokens: { input: 10, cached: 20, output: 1 } })).toMatchInlineSnapshot(`"refused to journal a session_finished event: tokens: cached tokens are part of input, so cannot exceed it"`);
    expect(await refused({ ...finished, costUsd: Number.NaN })).toMatch(/^refused to journal a session_finished event: costUsd: /);
    expect(await refused({ ...finished, tokesn: 1 })).toMatch(/^refused to journal a session_finished event: .*tokesn/);
    // OPAQUE payloads are still JSON: nothing that JSON.stringify would silently change or drop.
    const planned = (tree: unknown) => refused({ type: 'planning_recorded', cellIds: ['cap1-rep1-gated'], tree });
    expect(await planned({ nodes: [{ score: Number.NaN }] })).toMatchInlineSnapshot(`"refused to journal a planning_recorded event: tree: is not JSON data (finite numbers, strings, booleans, null, arrays and plain objects only)"`);
    expect(await planned({ when: new Date(0) })).toMatch(/tree: is not JSON data/);
    expect(await planned({ skip: undefined })).toMatch(/tree: is not JSON data/);
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(await planned(deep)).toMatch(/tree: is not JSON data/);
    expect(await journal.append({ type: 'cell_finished', cellId: 'cap1-rep1-gated', outcome: { status: 'unmeasured', reason: 'ceiling' } })).toMatchObject({ seq: 1 });
    await expect(journal.append({ type: 'cell_started', cellId: 'nope' })).rejects.toBeInstanceOf(JournalEventError);
    await journal.close();
  });

  it('narrows on type, so payloads are typed per event', () => {
    const [first] = stamped([header()]);
    if (first?.type !== 'header') throw new Error('expected the header');
    expect(first.pins.code.state).toBe('git');
  });

  it('refuses a journal that does not begin with a header, or holds two', async () => {
    const file = await journalFile();
    const lines = (events: ReturnType<typeof stamped>) => events.map((e) => JSON.stringify(e)).join('\n') + '\n';
    await writeFile(file, lines(stamped([runStarted(), header()])));
    const noHeader = await readSweepJournal(file, { shownAs: 'run/journal.jsonl' }).catch((e: unknown) => e);
    expect(noHeader).toBeInstanceOf(JournalInvalidError);
    expect((noHeader as Error).message).toMatchInlineSnapshot(`"run/journal.jsonl line 1: begins with a run_started event, not the header, so it was not written by harness record; record into a new --out"`);
    await writeFile(file, lines(stamped([header(), runStarted(), header()])));
    expect(((await readSweepJournal(file, { shownAs: 'run/journal.jsonl' }).catch((e: unknown) => e)) as Error).message).toMatchInlineSnapshot(
      `"run/journal.jsonl: event 3 is a second header, so two sweeps were written into one file; restore the journal from a copy, or record into a new --out"`,
    );
  });

  it('writes lines a person can read: envelope first, then the payload', async () => {
    const file = await journalFile();
    const journal = await openJournal(await readSweepJournal(file), { now: () => new Date('2026-01-02T03:04:05Z') });
    await journal.append({ type: 'cell_started', cellId: 'cap2-rep1-ungated' });
    await journal.close();
    expect(await readFile(file, 'utf8')).toMatchInlineSnapshot(`
      "{"type":"cell_started","version":1,"seq":1,"at":"2026-01-02T03:04:05.000Z","cellId":"cap2-rep1-ungated"}
      "
    `);
  });
});
