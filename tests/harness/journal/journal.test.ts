import { execFileSync } from 'node:child_process';
import { appendFile, mkdtemp, open, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { JournalBusyError, journalEvent, JournalEventError, journalFormat, JournalInvalidError, JournalWriteError, openJournal, readAndOpenJournal, readJournal } from '../../../harness/index.js';

const Note = journalEvent('note', 1, { text: z.string() });
const Tally = journalEvent('tally', 2, { n: z.int().nonnegative() });
const FORMAT = journalFormat('test journal', [Note, Tally]);

const fixedClock = () => new Date('2026-01-02T03:04:05.000Z');

async function tempFile(): Promise<string> {
  return path.join(await mkdtemp(path.join(tmpdir(), 'rdh-journal-')), 'journal.jsonl');
}

/** Writes lines as given, the way a crashed or edited journal would look. */
function line(seq: number, { type, version, ...payload }: Record<string, unknown>): string {
  return JSON.stringify({ type, version, seq, at: '2026-01-02T03:04:05.000Z', ...payload }) + '\n';
}
const note = (seq: number, text = `n${seq}`) => line(seq, { type: 'note', version: 1, text });

async function refusal(file: string): Promise<JournalInvalidError> {
  const error = await readJournal(file, FORMAT, { shownAs: 'run/journal.jsonl' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof JournalInvalidError)) throw new Error(`expected a JournalInvalidError, got ${String(error)}`);
  return error;
}

afterEach(() => vi.restoreAllMocks());

describe('journal: writing', () => {
  it('gives each event the next seq, its version from the format and the time, envelope first on every line', async () => {
    const file = await tempFile();
    const journal = await readAndOpenJournal(file, FORMAT, { now: fixedClock });
    const first = await journal.append({ type: 'note', text: 'hello' });
    await journal.append({ type: 'tally', n: 3 });
    await journal.close();
    expect(first).toEqual({ type: 'note', version: 1, seq: 1, at: '2026-01-02T03:04:05.000Z', text: 'hello' });
    expect(await readFile(file, 'utf8')).toMatchInlineSnapshot(`
      "{"type":"note","version":1,"seq":1,"at":"2026-01-02T03:04:05.000Z","text":"hello"}
      {"type":"tally","version":2,"seq":2,"at":"2026-01-02T03:04:05.000Z","n":3}
      "
    `);
    const reopened = await readAndOpenJournal(file, FORMAT, { now: fixedClock });
    expect(reopened.lastSeq).toBe(2);
    expect((await reopened.append({ type: 'note', text: 'again' })).seq).toBe(3);
    await reopened.close();
  });

  it('resolves an append only after its line was fsynced', async () => {
    const file = await tempFile();
    const journal = await readAndOpenJournal(file, FORMAT);
    // The first append creates the file (and syncs its folder); the one watched comes after.
    await journal.append({ type: 'note', text: 'first' });
    const probe = await open(file + '.probe', 'w');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const realSync = proto.sync;
    const sync = vi.spyOn(proto, 'sync').mockImplementation(async function (this: unknown) {
      await gate;
      return realSync.call(this);
    });
    let resolved = false;
    const appended = journal.append({ type: 'note', text: 'durable' }).then(() => (resolved = true));
    await vi.waitFor(() => expect(sync).toHaveBeenCalled());
    // The line is written when the sync starts; the append waits for the sync to end.
    expect(await readFile(file, 'utf8')).toContain('"text":"durable"');
    await new Promise((r) => setTimeout(r, 20));
    expect(resolved).toBe(false);
    release();
    await appended;
    expect(resolved).toBe(true);
    await journal.close();
  });

  it('refuses an event its schema refuses, without writing it or using up a seq', async () => {
    const file = await tempFile();
    const journal = await readAndOpenJournal(file, FORMAT);
    // n must be a whole number: the journal checks what the types cannot promise at run time.
    await expect(journal.append({ type: 'tally', n: 1.5 })).rejects.toBeInstanceOf(JournalEventError);
    expect((await journal.append({ type: 'tally', n: 1 })).seq).toBe(1);
    await journal.close();
    expect((await readJournal(file, FORMAT)).events.map((e) => e.seq)).toEqual([1]);
  });

  it('after a failed write, refuses every later append rather than writing past a damaged line', async () => {
    const file = await tempFile();
    const journal = await readAndOpenJournal(file, FORMAT);
    await journal.append({ type: 'note', text: 'kept' });
    const probe = await open(file + '.probe', 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    vi.spyOn(proto, 'write').mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    const failed = await journal.append({ type: 'note', text: 'lost' }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(JournalWriteError);
    expect((failed as Error).message).toMatchInlineSnapshot(`"${file}: could not be written (ENOSPC); the sweep stops here and every step journalled before is kept: fix the disk, then run the same command to resume"`);
    await expect(journal.append({ type: 'note', text: 'after' })).rejects.toBe(failed);
    await journal.close();
    expect((await readJournal(file, FORMAT)).events.map((e) => e.type === 'note' && e.text)).toEqual(['kept']);
  });

  it('tells durable listeners about each event in seq order, only once it is on disk', async () => {
    const file = await tempFile();
    const seen: number[] = [];
    const journal = await readAndOpenJournal(file, FORMAT, { onDurable: (e) => seen.push(e.seq) });
    await Promise.all([1, 2, 3].map((n) => journal.append({ type: 'tally', n })));
    await journal.close();
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('journal: one writer per file', () => {
  it('refuses a second writer while the first holds the journal, and admits one once it closed', async () => {
    const file = await tempFile();
    const first = await readAndOpenJournal(file, FORMAT);
    const second = await readAndOpenJournal(file, FORMAT).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(JournalBusyError);
    expect((second as Error).message.replace(file, 'run/journal.jsonl').replace(file, 'run/journal.jsonl')).toMatchInlineSnapshot(
      `"run/journal.jsonl: this process already has it open; wait for that run to finish, or if no harness is running, delete run/journal.jsonl.lock"`,
    );
    await first.close();
    const third = await readAndOpenJournal(file, FORMAT);
    await third.close();
  });

  it('takes over a lock left by a process that is gone', async () => {
    const file = await tempFile();
    const deadPid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    await writeFile(`${file}.lock`, `${deadPid}\n`);
    const journal = await readAndOpenJournal(file, FORMAT);
    await journal.append({ type: 'note', text: 'mine now' });
    await journal.close();
  });

  it('takes over a lock that names this pid but that this process does not hold (a container restarted as pid 1)', async () => {
    const file = await tempFile();
    await writeFile(`${file}.lock`, `${process.pid} ${hostname()}\n`);
    const journal = await readAndOpenJournal(file, FORMAT);
    await journal.close();
  });

  it('refuses a lock held from another machine, whose liveness it cannot check', async () => {
    const file = await tempFile();
    await writeFile(`${file}.lock`, `4242 other-host\n`);
    const error = await readAndOpenJournal(file, FORMAT, { shownAs: 'run/journal.jsonl' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalBusyError);
    expect((error as Error).message.replace(file, 'run/journal.jsonl')).toMatchInlineSnapshot(`"run/journal.jsonl: process 4242 on other-host is writing it; wait for that run to finish, or if no harness is running, delete run/journal.jsonl.lock"`);
  });

  it('refuses to append to a file that changed after it was read (a second writer)', async () => {
    const file = await tempFile();
    await writeFile(file, note(1));
    const contents = await readJournal(file, FORMAT);
    await appendFile(file, note(2));
    const journal = await openJournal(contents);
    const error = await journal.append({ type: 'note', text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalInvalidError);
    expect((error as Error).message.replace(file, 'run/journal.jsonl')).toMatchInlineSnapshot(`"run/journal.jsonl: changed on disk after it was read (another writer?); stop the other run and resume again"`);
    expect((await readFile(file, 'utf8')).split('\n').length).toBe(3);
    await journal.close();
  });
});

describe('journal: reading what a crash, a truncation, a retry or another version left', () => {
  it('tolerates a torn last line, reports it, and cuts it off before the next append', async () => {
    const file = await tempFile();
    await writeFile(file, note(1) + note(2) + note(3).slice(0, 25));
    const contents = await readJournal(file, FORMAT);
    expect(contents.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(contents.tornTail).toEqual({ line: 3, bytes: 25 });
    // Reading alone writes nothing: a refused resume leaves the file as it was.
    expect((await readFile(file, 'utf8')).endsWith(note(3).slice(0, 25))).toBe(true);
    const journal = await openJournal(contents, { now: fixedClock });
    expect((await journal.append({ type: 'note', text: 'n3' })).seq).toBe(3);
    await journal.close();
    expect(await readFile(file, 'utf8')).toBe(note(1) + note(2) + note(3));
  });

  it('tolerates a torn multi-byte character in the last line', async () => {
    const file = await tempFile();
    const full = Buffer.from(note(2, 'naïve €'));
    await writeFile(file, Buffer.concat([Buffer.from(note(1)), full.subarray(0, full.indexOf('€') + 1)]));
    expect((await readJournal(file, FORMAT)).events).toHaveLength(1);
  });

  it('refuses a truncated file: a gap in the sequence', async () => {
    const file = await tempFile();
    await writeFile(file, note(1) + note(2) + note(5));
    const error = await refusal(file);
    expect([error.problem, error.line]).toEqual(['gap', 3]);
    expect(error.message).toMatchInlineSnapshot(`"run/journal.jsonl line 3: sequence jumps from 2 to 5 (events 3-4 are missing), so lines were lost or removed; restore the journal from a copy, or record into a new --out"`);
  });

  it('refuses a file whose first lines are gone', async () => {
    const file = await tempFile();
    await writeFile(file, note(2) + note(3));
    expect((await refusal(file)).message).toMatchInlineSnapshot(`"run/journal.jsonl line 1: sequence jumps from 0 to 2 (event 1 is missing), so lines were lost or removed; restore the journal from a copy, or record into a new --out"`);
  });

  it('reads a duplicated event once (same seq, same content), wherever it repeats', async () => {
    const file = await tempFile();
    await writeFile(file, note(1) + note(2) + note(2) + note(3) + note(1));
    const contents = await readJournal(file, FORMAT);
    expect(contents.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(contents.duplicates).toBe(2);
  });

  it('refuses a second, different event under one seq', async () => {
    const file = await tempFile();
    await writeFile(file, note(1) + note(2) + note(2, 'other'));
    const error = await refusal(file);
    expect(error.problem).toBe('conflict');
    expect(error.message).toMatchInlineSnapshot(`"run/journal.jsonl line 3: a second, different event 2 (the first is line 2), so two histories were written into one file; restore the journal from a copy, or record into a new --out"`);
  });

  it('refuses an event of a version this harness does not read', async () => {
    const file = await tempFile();
    await writeFile(file, note(1) + line(2, { type: 'tally', version: 3, n: 1 }));
    const error = await refusal(file);
    expect([error.code, error.problem, error.line]).toEqual(['journal_invalid', 'unknown_version', 2]);
    expect(error.message).toMatchInlineSnapshot(`"run/journal.jsonl line 2: tally event version 3 is not one this harness reads (it reads version 2); resume with the harness version that wrote it (see the header), or record into a new --out"`);
  });

  it('refuses an event type it does not know', async () => {
    const file = await tempFile();
    await writeFile(file, line(1, { type: 'teleport', version: 1 }));
    expect((await refusal(file)).message).toMatchInlineSnapshot(`"run/journal.jsonl line 1: event type "teleport" is not one this harness reads (note, tally); resume with the harness version that wrote it (see the header), or record into a new --out"`);
  });

  it('refuses an event whose fields do not match its schema', async () => {
    const file = await tempFile();
    await writeFile(file, line(1, { type: 'tally', version: 2, n: -1 }));
    expect((await refusal(file)).message).toMatchInlineSnapshot(`"run/journal.jsonl line 1: tally event field n: Too small: expected number to be >=0; the line was edited or written by a broken harness; restore the journal from a copy, or record into a new --out"`);
  });

  it('refuses damage before the last line: not JSON, blank, not UTF-8', async () => {
    const file = await tempFile();
    await writeFile(file, note(1) + '{"type":"no\n' + note(2));
    expect((await refusal(file)).message).toMatch(/^run\/journal\.jsonl line 2: is not JSON \(.*\), and it is not the last line, so it is damage rather than an interrupted write; restore the journal from a copy, or record into a new --out$/);
    await writeFile(file, note(1) + '\n' + note(2));
    expect((await refusal(file)).message).toMatchInlineSnapshot(`"run/journal.jsonl line 2: is blank, which the harness never writes, so the file was edited; restore the journal from a copy, or record into a new --out"`);
    await writeFile(file, Buffer.concat([Buffer.from(note(1)), Buffer.from([0xff, 0x0a])]));
    expect((await refusal(file)).problem).toBe('not_utf8');
  });

  it('reads a missing file as a new, empty journal', async () => {
    const contents = await readJournal(await tempFile(), FORMAT);
    expect([contents.exists, contents.events.length]).toEqual([false, 0]);
  });
});
