import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeReport } from '../../harness/index.js';
import { writeSweepJournalFixture } from '../support/sweep-fixture.js';

/**
 * SYNTHETIC: the report of a sweep of `copies` whole copies of the committed example's cells
 * (tests/support/sweep-fixture.ts), written by `harness report`'s own code into `dir`'s run
 * folder. With `reportOnly` it is then published as a run of report/ only (no cell folders, so
 * no cell or session pages to crawl), at `reportOnly`: a sweep page with long tables, cheap.
 */
export async function writeWideReport(dir: string, example: string, repo: string, copies: number, reportOnly?: string): Promise<{ cells: number }> {
  // The fixture makes whole copies of the example's journal: as many as these sessions need.
  const perCopy = (await readFile(path.join(example, 'journal.jsonl'), 'utf8')).split('\n').filter((l) => l.includes('"type":"session_finished"')).length;
  const made = await writeSweepJournalFixture(dir, example, copies * perCopy, repo);
  if (made.copies !== copies) throw new Error(`the sweep fixture made ${made.copies} copies, not ${copies}`);
  const written = await writeReport(dir, { shownAs: path.basename(dir) });
  // report.md and the specs stay behind, as make_site.sh does not stage them.
  if (reportOnly) await cp(path.join(dir, 'report'), path.join(reportOnly, 'report'), { recursive: true, filter: (f) => !f.endsWith('.vl.json') && !f.endsWith('.md') });
  return { cells: written.report.cells.length };
}
