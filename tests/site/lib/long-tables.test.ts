import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createMarkdownProcessor } from '@astrojs/markdown-remark';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown, runFiles } from '../../../harness/index.js';
import { cellGroups, listsEveryCell } from '../../../site/src/lib/cell-list.js';
import { linkedCharts } from '../../../site/src/lib/linked-charts.js';
import { MAX_ROWS, moveLongTables } from '../../../site/src/lib/long-tables.js';
import { reportHtml } from '../../../site/src/lib/report-html.js';

/**
 * The sweep page's long tables move to pages of their own (with the chart drawn from them), so
 * the page does not grow with the cells; short ones stay. The golden report is rendered as the
 * site renders it, and `maxRows` is lowered to make its tables "long".
 */

const GOLDEN = path.resolve(import.meta.dirname, '..', '..', 'harness', 'report', '__snapshots__', 'golden', 'report.json');
let html: string;
const PAGES = new Set(['cap1-rep1-gated', 'cap2-rep1-ungated']);

beforeAll(async () => {
  const report = runFiles.Report.parse(JSON.parse(await readFile(GOLDEN, 'utf8')));
  const markdown = await createMarkdownProcessor({ syntaxHighlight: false, smartypants: false });
  const rendered = (await markdown.render(renderMarkdown(report))).code;
  html = reportHtml(rendered, { cellPages: PAGES, charts: await linkedCharts(report, PAGES, 'golden'), shownAs: 'golden' });
}, 60_000);

const bodyRows = (table: string) => (/<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1]?.match(/<tr[\s>]/g) ?? []).length;

describe('moveLongTables', () => {
  it('leaves a page whose tables are all short as it is', () => {
    expect(MAX_ROWS).toBeGreaterThanOrEqual(14); // the committed example's longest table keeps its place
    expect(moveLongTables(html)).toEqual({ html, moved: [] });
  });

  it('moves the every-cell table with its chart to tables/table-cells/, leaving a linked line with its id', () => {
    const rows = bodyRows(html.slice(html.indexOf('<div id="table-cells"')));
    expect(rows).toBeGreaterThan(2);
    const { html: page, moved } = moveLongTables(html, { maxRows: rows - 1 });
    const cells = moved.find((t) => t.slug === 'table-cells')!;
    expect(cells.rows).toBe(rows);
    expect(cells.title).toMatch(/cell/i);
    expect(cells.html).toContain('<figure class="chart" id="chart-cells"');
    expect(page).not.toContain('id="chart-cells"');
    expect(page).not.toContain('id="row-cells-');
    expect(page).toContain(`<p class="moved-table" id="table-cells">This table has ${rows} rows; it is on <a href="tables/table-cells/">`);
    // Every row id the chart links to is on the page it moved to, and the links to cells and charts reach up two folders.
    for (const m of cells.html.matchAll(/href="#(row-cells-[^"]+)"/g)) expect(cells.html).toContain(`id="${m[1]}"`);
    expect(cells.html).toContain('href="../../cells/cap1-rep1-gated/"');
    expect(cells.html).toContain('href="../../charts/cells.svg"');
    expect(cells.html).not.toMatch(/(href|src)="(cells|charts)\//);
  });

  it('moves every table above the bound and nothing else: the page keeps its headings and prose', () => {
    const { html: page, moved } = moveLongTables(html, { maxRows: 1 });
    expect(moved.length).toBeGreaterThan(3);
    for (const t of moved) expect(t.rows).toBeGreaterThan(1);
    expect(page.match(/<h2/g)?.length).toBe(html.match(/<h2/g)?.length);
    // What moved plus what stayed holds every table row.
    const rowsOf = (s: string) => s.match(/<tr[\s>]/g)?.length ?? 0;
    expect(rowsOf(page) + moved.reduce((n, t) => n + rowsOf(t.html), 0)).toBe(rowsOf(html));
    expect(new Set(moved.map((t) => t.slug)).size).toBe(moved.length);
  });
});

describe('cellGroups', () => {
  it('groups cell ids by cap in cap order, each by repetition as a number, and lists every cell on the sweep page only while they are few', () => {
    const ids = ['cap2-rep1-gated', 'cap1-rep10-gated', 'cap1-rep1-ungated', 'cap10-rep1-gated', 'cap1-rep2-ungated', 'cap1-rep1-gated'];
    expect(cellGroups(ids)).toEqual([
      { label: 'cap 1', anchor: 'cells-cap1', cells: ['cap1-rep1-gated', 'cap1-rep1-ungated', 'cap1-rep2-ungated', 'cap1-rep10-gated'] },
      { label: 'cap 2', anchor: 'cells-cap2', cells: ['cap2-rep1-gated'] },
      { label: 'cap 10', anchor: 'cells-cap10', cells: ['cap10-rep1-gated'] },
    ]);
    expect(listsEveryCell(ids)).toBe(true);
    expect(listsEveryCell(Array.from({ length: MAX_ROWS + 1 }, (_, i) => `cap1-rep${i + 1}-gated`))).toBe(false);
  });
});
