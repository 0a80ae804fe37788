import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import PQueue from 'p-queue';
import { VIEWS } from './views.js';

/**
 * The long texts of every run's transcripts (transcript-texts.ts), each stored once for the site
 * by its content hash, published as `texts/KEY.txt` beside the pages that link them. Copied into
 * the built site after `astro build` (make-site.ts), not rendered by it: a route per text cost
 * Astro about a millisecond each, a sixth of a run's build.
 */

/** Where the loader keeps the texts, under the data folder. */
const STORED = path.join(VIEWS, 'texts');
/** Texts copied at once. */
const AT_ONCE = 16;

/**
 * A text as served: one with any character beyond ASCII starts with a byte-order mark, so a
 * browser reads it as UTF-8 even from a host that sends .txt without a charset.
 */
export function servedText(text: string): string {
  return /^[\x00-\x7F]*$/.test(text) ? text : `\uFEFF${text}`;
}

/** Writes every stored text of `dataDir` into `outDir/texts/`; returns how many. */
export async function publishTexts(dataDir: string, outDir: string): Promise<number> {
  const names = (await readdir(path.join(dataDir, STORED)).catch(() => [] as string[])).filter((n) => n.endsWith('.txt')).sort();
  if (!names.length) return 0;
  await mkdir(path.join(outDir, 'texts'), { recursive: true });
  const queue = new PQueue({ concurrency: AT_ONCE });
  await Promise.all(names.map((name) => queue.add(async () => writeFile(path.join(outDir, 'texts', name), servedText(await readFile(path.join(dataDir, STORED, name), 'utf8'))))));
  return names.length;
}
