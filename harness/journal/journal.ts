import { mkdir, open, stat, truncate, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fsyncPath } from './fsync-path.js';
import { JournalEventError, JournalInvalidError, JournalWriteError } from './journal-error.js';
import type { JournalEnvelope, JournalFormat, JournalInput } from './journal-format.js';
import { lockJournal, type JournalLock } from './journal-lock.js';
import { readJournal, type JournalContents } from './journal-read.js';

export * from './journal-error.js';
export * from './journal-format.js';
export { readJournal, type JournalContents, type ReadJournalOptions } from './journal-read.js';

export interface OpenJournalOptions<E extends JournalEnvelope> {
  /** Clock for each event's `at`. Default: the system clock. */
  now?: () => Date;
  /** Called with each event once it is durable (after fsync), in seq order: where live progress listens. Default none. */
  onDurable?: (event: E) => void;
}

/** Largest batch written with one write and one fsync; bigger queues take several rounds. */
const BATCH_BYTES = 16 * 1024 * 1024;

interface Pending<E> {
  event: E;
  bytes: Buffer;
  resolve: (event: E) => void;
  reject: (error: Error) => void;
}

/**
 * The one writer of a journal file. `append` validates the event, gives it the next `seq`
 * and resolves only once its line is on disk (written in full and fsynced): until then the
 * step it records has not happened, as far as a resume is concerned. Appends are serialized
 * through one queue and one handle, so concurrent callers can neither interleave nor tear a
 * line; appends queued while a write is in flight go out together with one fsync (group
 * commit), so a burst costs one sync rather than one each.
 */
export class Journal<E extends JournalEnvelope> {
  private nextSeq: number;
  private readonly pending: Array<Pending<E>> = [];
  private draining = false;
  private handle: FileHandle | undefined;
  private failure: Error | undefined;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;

  /** Use `openJournal`. */
  constructor(
    /** The journal as read when it was opened: the events a resume continues from. */
    readonly contents: JournalContents<E>,
    private readonly lock: JournalLock,
    private readonly options: OpenJournalOptions<E>,
  ) {
    this.nextSeq = contents.events.length + 1;
  }

  get file(): string {
    return this.contents.file;
  }

  /** The seq the last accepted append was given (0 for an empty journal). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /**
   * Appends one event; resolves with it (seq and time filled in) once it is durable. Its seq
   * is fixed at the call, so events land in the order `append` was called. Rejects, without
   * writing, an event its schema refuses; after a failed write every later append rejects too.
   */
  append(input: JournalInput<E>): Promise<E> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new JournalWriteError(`${this.contents.shownAs}: append after close`));
    const { format } = this.contents;
    const { type } = input as { type: string };
    // The schema's output puts the envelope first, so every line reads type, version, seq, at, payload.
    const candidate = { ...input, version: format.versions.get(type), seq: this.nextSeq, at: (this.options.now?.() ?? new Date()).toISOString() };
    const parsed = format.schema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return Promise.reject(new JournalEventError(`refused to journal a ${type} event: ${issue.path.join('.') || '(the event)'}: ${issue.message}`, { cause: parsed.error }));
    }
    this.nextSeq++;
    const event = parsed.data;
    const bytes = Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');
    return new Promise<E>((resolve, reject) => {
      this.pending.push({ event, bytes, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        void this.drain();
      }
    });
  }

  /** Waits for every queued append, then releases the file and its lock. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await this.lock.release();
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      let size = 0;
      let count = 0;
      while (count < this.pending.length && (count === 0 || size + this.pending[count]!.bytes.length <= BATCH_BYTES)) size += this.pending[count++]!.bytes.length;
      const batch = this.pending.splice(0, count);
      try {
        const fh = await this.ensureOpen();
        await writeAll(fh, batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((p) => p.bytes), size));
        await fh.sync();
      } catch (error) {
        // A refusal (the file changed under us) keeps its own class; anything else is the disk.
        this.failure = error instanceof JournalInvalidError ? error : new JournalWriteError(
          `${this.contents.shownAs}: could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the sweep stops here and every step journalled before is kept: fix the disk, then run the same command to resume`,
          { cause: error },
        );
        for (const p of [...batch, ...this.pending.splice(0)]) p.reject(this.failure);
        break;
      }
      for (const p of batch) {
        p.resolve(p.event);
        // Decoupled, so a listener's bug surfaces loudly instead of wedging the writer.
        const listener = this.options.onDurable;
        if (listener) queueMicrotask(() => listener(p.event));
      }
    }
    // Checked and cleared in one synchronous step, so an append arriving now starts a new drain.
    this.draining = false;
    this.markIdle();
  }

  private async ensureOpen(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    const { file, shownAs, exists, fileBytes, durableBytes } = this.contents;
    // The file must still be what was read: anything else means a second writer.
    const now = await stat(file).then((s) => s.size, () => undefined);
    if ((exists ? fileBytes : undefined) !== now) {
      throw new JournalInvalidError('changed', 0, `${shownAs}: changed on disk after it was read (another writer?); stop the other run and resume again`);
    }
    // A torn tail is cut only now, at the first append, so a refused resume writes nothing.
    if (exists && durableBytes < fileBytes) await truncate(file, durableBytes);
    await mkdir(path.dirname(file), { recursive: true });
    this.handle = await open(file, 'a');
    if (!exists) await fsyncPath(path.dirname(file));
    return this.handle;
  }
}

async function writeAll(fh: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/**
 * Opens a journal for appending, from what `readJournal` returned (so a caller can compare
 * the header and refuse before anything is written or locked). Takes the journal's lock;
 * refuses a file that changed since it was read. A missing file is created at the first append.
 */
export async function openJournal<E extends JournalEnvelope>(contents: JournalContents<E>, options: OpenJournalOptions<E> = {}): Promise<Journal<E>> {
  await mkdir(path.dirname(contents.file), { recursive: true });
  const lock = await lockJournal(contents.file, contents.shownAs);
  return new Journal(contents, lock, options);
}

/** Reads (validating every line) and opens for appending in one step, for callers with nothing to compare first. */
export async function readAndOpenJournal<E extends JournalEnvelope>(file: string, format: JournalFormat<E>, options: OpenJournalOptions<E> & { shownAs?: string } = {}): Promise<Journal<E>> {
  return openJournal(await readJournal(file, format, { shownAs: options.shownAs }), options);
}
