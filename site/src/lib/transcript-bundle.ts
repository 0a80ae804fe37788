import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress } from 'node:zlib';
import tar from 'tar-stream';

/**
 * A run's raw transcripts as one download: every validated transcript file, byte for byte,
 * under its path in the run folder (`cells/CELL/transcripts/FILE.jsonl`), in a tar archive
 * compressed with Brotli. Brotli's 16 MB window sees what a sweep repeats from session to
 * session (the objective in every prompt, the files a worker wrote and its verifier reads),
 * which gzip's 32 KB window cannot: the committed example's 7.5 MB of transcripts come to
 * about 70 KB, against 2 MB as gzip. Open with run-downloads.ts UNPACK_TRANSCRIPTS (Node alone; no brotli command).
 * Written as a stream, so a sweep's gigabyte of transcripts is never held whole.
 */

/** The archive's one file that is not a transcript: the licence notices of the texts the brief carried, for a run whose task's brief carries any. */
export const LICENCE_NOTICE_FILE = 'LICENCE-NOTICE.txt';

/** Quality 5 of 11: within a third of the best size here, at a fortieth of the time. */
const QUALITY = 5;
/**
 * What the compressor is handed at once. The tar stream writes three small chunks per file
 * (header, bytes, padding), and each chunk is one job on Node's thread pool that the loader
 * waited on: a run's 200 transcripts were 600 round trips, most of the loader's idle time.
 */
const CHUNK_BYTES = 1 << 20;

/**
 * Passes its input on in chunks of at least CHUNK_BYTES (the last one shorter), holding up to
 * four of them while the compressor works, so the loader reads on meanwhile.
 */
class Coalesce extends Transform {
  private held: Buffer[] = [];
  private bytes = 0;

  constructor() {
    super({ readableHighWaterMark: 4 * CHUNK_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.held.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes >= CHUNK_BYTES) this.pass();
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.bytes > 0) this.pass();
    done();
  }

  private pass(): void {
    this.push(Buffer.concat(this.held, this.bytes));
    this.held = [];
    this.bytes = 0;
  }
}

export class TranscriptArchive {
  private readonly pack = tar.pack();
  private readonly written: Promise<void>;
  private files = 0;

  private constructor(file: string) {
    const brotli = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS } });
    this.written = pipeline(this.pack, new Coalesce(), brotli, createWriteStream(file));
  }

  static async create(file: string): Promise<TranscriptArchive> {
    await mkdir(path.dirname(file), { recursive: true });
    return new TranscriptArchive(file);
  }

  /** Adds one file under `name` (a `/`-separated path); a fixed time, so the same run makes the same archive. */
  add(name: string, text: string): Promise<void> {
    this.files += 1;
    return new Promise((resolve, reject) => {
      this.pack.entry({ name, mtime: new Date(0), mode: 0o644 }, Buffer.from(text, 'utf8'), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Files added so far. */
  get count(): number {
    return this.files;
  }

  /** Ends the archive; resolves with the number of files once it is written. */
  async close(): Promise<number> {
    this.pack.finalize();
    await this.written;
    return this.files;
  }
}
