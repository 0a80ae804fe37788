import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMarkdownProcessor } from '@astrojs/markdown-remark';
import { afterAll, describe, expect, it } from 'vitest';
import { renderMarkdown, runFiles } from '../../harness/index.js';
import { linkedCharts } from '../../site/src/lib/linked-charts.js';
import { moveLongTables } from '../../site/src/lib/long-tables.js';
import { reportHtml } from '../../site/src/lib/report-html.js';
import { writeWideReport } from './wide-report.js';

/**
 * The sweep page must not grow with the cells (issue 22: at most 500 KB at 528 cells). Two
 * SYNTHETIC sweeps of the committed example's cells repeated (8 and 16 copies of its 4 cells: 32 and 64 cells),
 * their reports written by `harness report`'s own code and made into the sweep page's report
 * body as the site makes it (report-html.ts, then long-tables.ts). Before the long tables
 * moved, the body grew by about 2.3 KB a cell (74 KB between these two); now by about 54 B a
 * cell (the paired-difference chart's dot per pair). The page's list of cells is bounded apart (cell-list.ts, its unit test).
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
const EXAMPLE = path.join(REPO, 'runs', 'example-sim');
const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-page-scale-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function pageBody(copies: number): Promise<{ cells: number; bytes: number; before: number; moved: number }> {
  const dir = path.join(tmp, `copies-${copies}`, 'runs', 'sweep');
  await writeWideReport(dir, EXAMPLE, REPO, copies);
  const report = runFiles.Report.parse(JSON.parse(await readFile(path.join(dir, 'report', 'report.json'), 'utf8')));
  const cellPages = new Set(report.cells.map((c) => c.id));
  const markdown = await createMarkdownProcessor({ syntaxHighlight: false, smartypants: false });
  const html = reportHtml((await markdown.render(renderMarkdown(report))).code, { cellPages, charts: await linkedCharts(report, cellPages, 'sweep'), shownAs: 'sweep' });
  const page = moveLongTables(html);
  const out = { cells: report.cells.length, bytes: Buffer.byteLength(page.html), before: Buffer.byteLength(html), moved: page.moved.length };
  console.log(`sweep page body at ${out.cells} cells: ${out.bytes} bytes (${out.before} before the long tables moved), ${out.moved} tables moved`);
  return out;
}

describe('the sweep page at scale', () => {
  it('weighs about the same at 64 cells as at 32: its per-cell tables and their charts are on pages of their own', async () => {
    const small = await pageBody(8);
    const large = await pageBody(16);
    expect([small.cells, large.cells]).toEqual([32, 64]);
    expect(large.moved).toBeGreaterThanOrEqual(2); // the every-cell table and the killed claims
    // What still grows (the paired-difference chart's dot per pair, about 54 B a cell) is under a tenth of the growth before.
    expect(large.before - small.before).toBeGreaterThan(50_000);
    expect(Math.abs(large.bytes - small.bytes)).toBeLessThan((large.before - small.before) / 10);
  }, 240_000);
});
