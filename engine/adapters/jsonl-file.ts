import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface JsonlFileOptions {
  /** fsync after every line, so a line that returned is on disk. Default false. */
  fsync?: boolean;
}

export interface JsonlDirectoryOptions extends JsonlFileOptions {
  /**
   * The file name of a key. Default: the key with every character outside `[A-Za-z0-9_.-]`
   * made `_`, plus `.jsonl` (keys that differ only there share a file: pass an injective
   * naming, such as the run folder's, where that can happen).
   */
  fileName?: (key: string) => string;
}

/**
 * The single writer of one JSONL file. Every append goes through one queue and one open
 * handle, so concurrent callers can never interleave or tear a line (an earlier system lost
 * 3-8% of transcript lines to concurrent taps).
 */
export class JsonlFile {
  private handle: Promise<FileHandle> | null = null;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly file: string,
    private readonly options: JsonlFileOptions = {},
  ) {}

  private open(): Promise<FileHandle> {
    this.handle ??= mkdir(path.dirname(this.file), { recursive: true }).then(() => open(this.file, 'a'));
    return this.handle;
  }

  /** Appends one value as one line. Resolves once written (and synced, if asked). */
  append(value: unknown): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.file} is closed`));
    const line = `${JSON.stringify(value)}\n`;
    const write = this.queue.then(async () => {
      const fh = await this.open();
      await fh.write(line);
      if (this.options.fsync) await fh.sync();
    });
    // A failed write must not wedge every later one; the caller still sees its own failure.
    this.queue = write.catch(() => undefined);
    return write;
  }

  /** Waits for queued lines, then closes; closing again does nothing. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    const handle = this.handle;
    this.handle = null;
    if (handle) await (await handle).close();
  }
}

/** One JsonlFile per path, so a directory of per-session files still has one writer each. */
export class JsonlDirectory {
  private readonly files = new Map<string, JsonlFile>();
  constructor(
    readonly dir: string,
    private readonly options: JsonlDirectoryOptions = {},
  ) {}

  file(name: string): JsonlFile {
    const fileName = this.options.fileName?.(name) ?? `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.jsonl`;
    let f = this.files.get(fileName);
    if (!f) {
      f = new JsonlFile(path.join(this.dir, fileName), { fsync: this.options.fsync });
      this.files.set(fileName, f);
    }
    return f;
  }

  async close(): Promise<void> {
    await Promise.all([...this.files.values()].map((f) => f.close()));
  }
}
