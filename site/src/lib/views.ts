import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What the content loader derives from the validated run files, kept as JSON beside the
 * staged data (`<data>/.views/`) for the pages to read. Astro bundles its content store into
 * the build as one JavaScript module, so the store holds only small index entries and each
 * page reads its own view: a run's report as HTML, a cell's node tree, a session's pages.
 * Written by this build's loader from files it validated, so read back without a schema.
 */

export const VIEWS = '.views';

export const runView = (run: string): string => path.join(VIEWS, 'runs', `${run}.json`);
export const cellView = (run: string, cell: string): string => path.join(VIEWS, 'cells', run, `${cell}.json`);
/**
 * Every session of a cell that has pages, in one file keyed by slug: a file per session cost a
 * folder and a file each, and creating files is most of what the loader's system time goes to.
 */
export const sessionsView = (run: string, cell: string): string => path.join(VIEWS, 'sessions', run, `${cell}.json`);

/** A run's raw transcripts, one compressed archive (transcript-bundle.ts). */
export const transcriptsView = (run: string): string => path.join(VIEWS, 'transcripts', `${run}.tar.br`);
/** What a run publishes besides pages: how many transcripts its archive holds. */
export const filesView = (run: string): string => path.join(VIEWS, 'files', `${run}.json`);

export interface RunFiles {
  transcripts: number;
}

export async function clearViews(dataDir: string): Promise<void> {
  await rm(path.join(dataDir, VIEWS), { recursive: true, force: true });
}

export async function writeView(dataDir: string, file: string, value: unknown): Promise<void> {
  const target = path.join(dataDir, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, JSON.stringify(value));
}

export async function readView<T>(dataDir: string, file: string): Promise<T> {
  return JSON.parse(await readFile(path.join(dataDir, file), 'utf8')) as T;
}

let last: { key: string; value: Promise<unknown> } | undefined;

/**
 * readView, keeping the last file read: a cell's paged sessions share one view, and its pages
 * are built one after another. The promise is kept, not the value, so pages of one cell built
 * at once (astro's build.concurrency) read the file once between them.
 */
export function readViewKept<T>(dataDir: string, file: string): Promise<T> {
  const key = path.join(dataDir, file);
  if (last?.key !== key) last = { key, value: readView<T>(dataDir, file) };
  return last.value as Promise<T>;
}
