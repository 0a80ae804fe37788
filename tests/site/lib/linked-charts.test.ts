import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createMarkdownProcessor } from '@astrojs/markdown-remark';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartSpecs, renderMarkdown, runFiles } from '../../../harness/index.js';
import { ChartLinkError, figureHref, linkedCharts, linkedSpec, rowAnchor, type LinkedChart } from '../../../site/src/lib/linked-charts.js';
import { reportHtml } from '../../../site/src/lib/report-html.js';

/**
 * The sweep page's charts: every figure links to its cell's page (a cell that has one) or to
 * the row of the page's table that prints it, and the page gives those rows the ids the links
 * name. report.md is rendered as the site renders it (Astro's markdown processor, the site's
 * settings).
 */

const GOLDEN = path.resolve(import.meta.dirname, '..', '..', 'harness', 'report', '__snapshots__', 'golden', 'report.json');
let report: runFiles.Report;
let html: string;
let charts: LinkedChart[];
const PAGES = new Set(['cap1-rep1-gated', 'cap2-rep1-ungated']);

beforeAll(async () => {
  report = runFiles.Report.parse(JSON.parse(await readFile(GOLDEN, 'utf8')));
  const markdown = await createMarkdownProcessor({ syntaxHighlight: false, smartypants: false });
  html = (await markdown.render(renderMarkdown(report))).code;
  charts = await linkedCharts(report, PAGES, 'runs/golden/report/report.json');
}, 60_000);

describe('figureHref', () => {
  it('links a cell with a page to it, a cell without one and any other figure to its table row', () => {
    expect(figureHref({ table: 'cells', row: 'cap1-rep1-gated' }, PAGES)).toBe('cells/cap1-rep1-gated/');
    expect(figureHref({ table: 'cells', row: 'cap1-rep2-gated' }, PAGES)).toBe('#row-cells-cap1-rep2-gated');
    expect(figureHref({ table: 'by-cap', row: '2-1' }, PAGES)).toBe('#row-by-cap-2-1');
    expect(figureHref({ table: 'cells' }, PAGES)).toBeNull();
    expect(rowAnchor('depth', '1-gated-0')).toBe('row-depth-1-gated-0');
  });
});

describe('linkedSpec', () => {
  it('puts a link on every figure with a tooltip and only there, and takes the title off for the caption', () => {
    for (const { name, spec } of chartSpecs(report)) {
      const { spec: linked, hrefs } = linkedSpec(spec, PAGES);
      expect(linked.title, name).toBeUndefined();
      const text = JSON.stringify(linked);
      expect((text.match(/"href":\{"field":"href"/g) ?? []).length, name).toBe((text.match(/"tooltip":\{"field":"tip"/g) ?? []).length);
      expect((text.match(/"tip":"/g) ?? []).length, name).toBe(hrefs.length);
      expect(hrefs.length, name).toBeGreaterThan(0);
    }
  });

  it('refuses a figure with a tooltip and no row to link to, and a chart with no linkable mark (the harness and the site disagree)', () => {
    const bare = { data: { values: [{ tip: 'x: 1' }] }, mark: 'bar', encoding: { tooltip: { field: 'tip' } } };
    expect(() => linkedSpec(bare, PAGES)).toThrow(ChartLinkError);
    expect(() => linkedSpec({ data: { values: [{ tip: 'x: 1', table: 'cells', row: 'cap1-rep1-gated' }] }, mark: 'bar', encoding: {} }, PAGES)).toThrow(/no mark with a tooltip/);
  });

  it('draws a chart with no figure yet (a sweep with one arm measured has no pair to difference) without links, never refusing the site', () => {
    expect(linkedSpec({ data: { values: [] }, mark: 'bar', encoding: {} }, PAGES).hrefs).toEqual([]);
  });
});

describe('the sweep page\'s charts and tables', () => {
  it('draws every chart inline with its caption, frame and a link to the report\'s SVG, and no image is left', () => {
    const page = reportHtml(html, { cellPages: PAGES, charts, shownAs: 'runs/golden/report/report.json' });
    for (const chart of report.charts) {
      expect(page).toContain(`<figure class="chart" id="chart-${chart.name}">`);
      expect(page).toContain(`<a href="${chart.svg}">the chart as an SVG image</a>`);
    }
    expect(page).not.toContain('<img');
    // A frame that scales its drawing to the width: nothing in it scrolls, so it needs no focus or label of its own.
    expect((page.match(/<div class="chart-frame"><svg/g) ?? []).length).toBe(report.charts.length);
  });

  it('gives the rows every figure links to their ids, each id once on the page', () => {
    const page = reportHtml(html, { cellPages: PAGES, charts, shownAs: 'runs/golden/report/report.json' });
    const ids = [...page.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
    expect(new Set(ids).size).toBe(ids.length);
    const hrefs = charts.flatMap((c) => c.hrefs);
    expect([...new Set(hrefs.filter((h) => h.startsWith('cells/')))].sort()).toEqual(report.cells.filter((c) => c.result && PAGES.has(c.id)).map((c) => `cells/${c.id}/`).sort());
    for (const href of hrefs.filter((h) => h.startsWith('#'))) expect(ids, href).toContain(href.slice(1));
    // Every body row of the six tables has an id: the cells table one per cell of the design.
    for (const cell of report.cells) expect(ids).toContain(`row-cells-${cell.id}`);
    for (const row of report.survival.byCap) expect(ids).toContain(`row-by-cap-${row.cap}-${row.level}`);
  });

  it('refuses a report.md whose table before a chart has fewer cells than its key', () => {
    const broken = html.replace(/(<h2[^>]*>Achieved depth<\/h2>[\s\S]*?<tbody>\s*<tr>)[\s\S]*?(<\/tr>)/, '$1\n<td>1</td>\n$2');
    expect(broken).not.toBe(html);
    expect(() => reportHtml(broken, { cellPages: PAGES, charts, shownAs: 'runs/golden/report/report.json' })).toThrow(ChartLinkError);
  });
});
