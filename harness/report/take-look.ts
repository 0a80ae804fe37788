import path from 'node:path';
import { shownPath } from '../internal/data-file.js';
import { survivalTally } from '../journal/cell-measurement.js';
import type { Look } from '../journal/look-taken.js';
import { openJournal } from '../journal/journal.js';
import { JournalInvalidError } from '../journal/journal-error.js';
import { runPaths } from '../journal/run-folder.js';
import { readSweepJournal } from '../journal/sweep-events.js';
import { completePairs } from './build-report.js';
import { sweepCells } from './journal-cells.js';
import { LookRefusedError } from './look-refused-error.js';
import { readRecordedRun } from './read-run.js';
import { registrationProblem } from './ruling.js';
import { takeLook } from './sequential-look.js';

/**
 * The IO shell of `harness report --look`: read the run (journal and its checked manifest),
 * take the next look (pure, sequential-look.ts) and append it to the journal under the
 * journal's lock, so a sweep still recording refuses it (journal busy) rather than race it.
 * The look is computed from the very events the journal was opened on; a journal that
 * changed in between is refused by the writer. A refusal writes nothing.
 */
export async function takeLookAt(runDir: string, shownAs = runDir): Promise<Look> {
  const shown = shownPath(shownAs);
  const run = await readRecordedRun(runDir, shownAs);
  const contents = await readSweepJournal(runPaths(runDir).journal, { shownAs: path.join(shown, 'journal.jsonl') });
  if (contents.events.length !== run.events.length) throw new JournalInvalidError('changed', 0, `${shown}: the journal changed while it was read (is harness record still running?); look again once it has stopped`);
  const { events } = contents;
  const sweep = sweepCells(events, run.manifest);
  const { complete } = completePairs(sweep, run.manifest);
  if (complete.length === 0) throw new LookRefusedError(`report --look: ${shown} has no complete measured pair yet, so there is nothing to rule on; nothing was written`);
  const look = takeLook({
    events,
    manifest: run.manifest,
    cells: complete.map(survivalTally),
    pairing: complete[0]!.pairing,
    notRegistered: registrationProblem(run.manifest.hypothesis, run.header.pins.hypothesis),
  });
  const journal = await openJournal(contents);
  try {
    const event = await journal.append({ type: 'look_taken', ...look });
    const { type: _type, version: _version, ...taken } = event as Extract<typeof event, { type: 'look_taken' }>;
    return taken;
  } finally {
    await journal.close();
  }
}
