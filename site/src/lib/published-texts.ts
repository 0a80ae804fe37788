import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import PQueue from 'p-queue';
import { TEXT_KEY } from './transcript-texts.js';
import { VIEWS } from './views.js';

/**
 * The long texts of every run's transcripts (transcript-texts.ts), each stored once for the site
 * by its content hash, published as `texts/KEY.txt` beside the pages that link them. Copied into
 * the built site after `astro build` (make-site.ts), not rendered by it: a route per text cost
 * Astro about a millisecond each, a sixth of a run's build. The loader keeps a run's new texts
 * in one bundle (a JSON line each), not a file each: creating files is most of the loader's
 * system time, so each text's file is created once, in the built site.
 */

/** Where the loader keeps the bundles, under the data folder. */
const STORED = path.join(VIEWS, 'texts');
/** Texts written at once. */
const AT_ONCE = 16;

/** The bundle of the texts `run` stored first, under the data folder. */
export const textsBundle = (run: string): string => path.join(STORED, `${run}.jsonl`);

/** A run's stored texts as the loader writes them: one JSON line `{key, text}` each. */
export class TextBundle {
  private failed: Error | undefined;
  /** The drain every caller that found the buffer full waits on: one listener, however many wait (Node warns past ten). */
  private drained: Promise<void> | null = null;

  private constructor(private readonly stream: WriteStream) {
    stream.on('error', (error) => (this.failed ??= error));
  }

  static async create(file: string): Promise<TextBundle> {
    await mkdir(path.dirname(file), { recursive: true });
    return new TextBundle(createWriteStream(file));
  }

  /**
   * Resolves at once while the stream's buffer has room, else once it has drained: a caller
   * that awaits it holds little, and is not made to wait on every write (each a round trip to
   * the thread pool, once per session).
   */
  async add(key: string, text: string): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.stream.write(`${JSON.stringify({ key, text })}\n`)) {
      this.drained ??= once(this.stream, 'drain').then(() => {
        this.drained = null;
      });
    }
    if (this.drained) await this.drained;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    if (this.failed) throw this.failed;
  }
}

/**
 * A text as served: one with any character beyond ASCII starts with a byte-order mark, so a
 * browser reads it as UTF-8 even from a host that sends .txt without a charset.
 */
export function servedText(text: string): string {
  return /^[\x00-\x7F]*$/.test(text) ? text : `\uFEFF${text}`;
}

/** A bundle line read as JSON, or null when it is not. */
function storedText(line: string): { key?: unknown; text?: unknown } | null {
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

/** Writes every text of `dataDir`'s bundles into `outDir/texts/KEY.txt`; returns how many. */
export async function publishTexts(dataDir: string, outDir: string): Promise<number> {
  const bundles = (await readdir(path.join(dataDir, STORED)).catch(() => [] as string[])).filter((n) => n.endsWith('.jsonl')).sort();
  const queue = new PQueue({ concurrency: AT_ONCE });
  let count = 0;
  let failed: unknown;
  for (const bundle of bundles) {
    const lines = createInterface({ input: createReadStream(path.join(dataDir, STORED, bundle), 'utf8'), crlfDelay: Infinity });
    let n = 0;
    for await (const line of lines) {
      n += 1;
      const { key, text } = storedText(line) ?? {};
      if (typeof key !== 'string' || !TEXT_KEY.test(key) || typeof text !== 'string') throw new Error(`${path.join(STORED, bundle)}: line ${n} is not a stored text ({key, text} with a 24-digit hex key)`);
      if (count === 0) await mkdir(path.join(outDir, 'texts'), { recursive: true });
      count += 1;
      queue.add(() => writeFile(path.join(outDir, 'texts', `${key}.txt`), servedText(text))).catch((error: unknown) => (failed ??= error));
      // Never more than a few texts held at once, however large the sweep.
      await queue.onSizeLessThan(AT_ONCE);
    }
  }
  await queue.onIdle();
  if (failed !== undefined) throw failed;
  return count;
}
