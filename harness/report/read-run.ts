import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../exit-codes.js';
import { readDataFile, shownPath } from '../internal/data-file.js';
import { Manifest } from '../manifest/manifest.js';
import { ManifestInvalidError } from '../manifest/manifest-loader.js';
import { inspectRunFolder, runPaths } from '../journal/run-folder.js';
import { readSweepJournal, type SweepEvent, type SweepEventOf } from '../journal/sweep-events.js';

/**
 * Reading a recorded run folder for `harness report` and `plan --from`: its journal (every line
 * validated) and the manifest it keeps, checked against the bytes the journal pins. Read only;
 * nothing is locked, so a report can be built while `harness record` is still appending.
 */

export interface RecordedRun {
  /** The run folder's name (its last path segment). */
  name: string;
  /** The folder as the user wrote it, for messages. */
  shownAs: string;
  events: readonly SweepEvent[];
  header: SweepEventOf<'header'>;
  manifest: Manifest;
}

export async function readRecordedRun(dir: string, shownAs = dir): Promise<RecordedRun> {
  const shown = shownPath(shownAs);
  const state = await inspectRunFolder(dir);
  if (state !== 'run') {
    const what = state === 'absent' ? 'does not exist' : state === 'empty' ? 'is empty' : 'holds no journal.jsonl';
    throw new UsageError(`${shown} ${what}; point at a run folder written by harness record (runs/NAME)`);
  }
  const paths = runPaths(dir);
  const contents = await readSweepJournal(paths.journal, { shownAs: path.join(shown, 'journal.jsonl') });
  const header = contents.events[0];
  if (header?.type !== 'header') throw new UsageError(`${path.join(shown, 'journal.jsonl')} holds no durable event yet, so nothing was recorded; run harness record first`);
  const manifestShown = path.join(shown, 'manifest.yaml');
  const bytes = await readFile(paths.manifest).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`${manifestShown}: cannot read the run's manifest (${error.code ?? error.message}); harness record keeps it beside the journal, so restore it from the file the sweep was recorded with`);
  });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== header.pins.manifest.sha256) {
    throw new UsageError(`${manifestShown} is not the manifest the journal pins (sha256 ${sha256.slice(0, 12)}, pinned ${header.pins.manifest.sha256.slice(0, 12)} from ${header.pins.manifest.path}); restore the recorded file`);
  }
  const parsed = await readDataFile(paths.manifest, { shownAs: manifestShown, schema: Manifest, what: 'manifest', starter: 'the run keeps the exact bytes harness record was given' });
  if (!parsed.ok) throw new ManifestInvalidError(parsed.lines);
  return { name: path.basename(path.resolve(dir)), shownAs: shown, events: contents.events, header, manifest: parsed.value };
}
