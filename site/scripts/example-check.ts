import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SWEEP_JOURNAL, runPaths } from '../../harness/run-files.js';
import { parseJsonl, RunFileInvalidError } from '../src/lib/run-file-read.js';
import { readRun } from '../src/lib/site-data.js';

/**
 * The committed example run (runs/example-sim) goes stale whenever a run file's format
 * changes. This reads it exactly as the site build does (every file the site publishes,
 * validated with the harness's current schemas, the charts checked and the linked cells
 * chart drawn) and its journal with the current journal schema. A failure names the file, the
 * line and the field, then the fix.
 */

export const EXAMPLE_RUN = 'example-sim';
export const REGENERATE = 'regenerate with npm run example';

export class ExampleStaleError extends Error {
  readonly code = 'example_stale';
}

/** Checks `<runsParent>/runs/<name>`; resolves to what was read, or throws ExampleStaleError. */
export async function checkExample(runsParent: string, name: string = EXAMPLE_RUN): Promise<{ cells: number; sessions: number; journalEvents: number }> {
  const shown = `runs/${name}`;
  try {
    const paths = runPaths(path.join(runsParent, 'runs', name));
    const journal = parseJsonl(await readFile(paths.journal, 'utf8'), SWEEP_JOURNAL.schema, `${shown}/journal.jsonl`);
    if (journal.records[0]?.type !== 'header') throw new RunFileInvalidError(`${shown}/journal.jsonl: does not begin with its header`);
    const run = await readRun(runsParent, name);
    if (run.cells.length === 0) throw new RunFileInvalidError(`${shown}: has no cell folder, so the site would show no trace`);
    return { cells: run.cells.length, sessions: run.sessions.length, journalEvents: journal.records.length };
  } catch (error) {
    const detail = error instanceof RunFileInvalidError ? error.message : (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${shown}: ${path.basename((error as NodeJS.ErrnoException).path ?? 'a file')} is missing` : null;
    if (detail === null) throw error;
    throw new ExampleStaleError(`the committed example run no longer loads with the current schemas: ${detail}; ${REGENERATE}`, { cause: error });
  }
}

// `npm run example:check [PARENT]`: exit 0 when PARENT/runs/example-sim loads (PARENT: the
// repository), 1 (with the fix) when it does not. `npm run example` checks its scratch copy so.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  try {
    const read = await checkExample(process.argv[2] ? path.resolve(process.argv[2]) : repo);
    console.log(`example-check: runs/${EXAMPLE_RUN} loads with the current schemas (${read.journalEvents} journal events, ${read.cells} cells, ${read.sessions} sessions)`);
  } catch (error) {
    console.error(`example-check: ${error instanceof ExampleStaleError ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
