import type { BrowserContext } from 'playwright-core';
import type { runFiles } from '../../../harness/index.js';

/**
 * Browser checks of a sweep page's charts, for any recorded run: at a phone's width (390 px),
 * every chart of report.json is drawn inline and scaled to the width (its frame never scrolls
 * sideways); its tick labels are at least 11 px tall as
 * rendered (getBoundingClientRect, which a computed font size would not show: it ignores the
 * SVG's scaling); every figure is a link with a <title> tooltip and a target at least 24 px
 * each way; every link names a page that exists (fetched) or an element of the sweep page, and
 * the tooltip's value is printed where it leads; and no chart's drawing leaves more than 15%
 * of its canvas empty on the right. Each check returns what it found wrong, so a test can
 * assert the list is empty and print it when not.
 */

export interface ChartCheckInput {
  context: BrowserContext;
  /** The site's root URL, ending in "/". */
  baseUrl: string;
  run: string;
  report: runFiles.Report;
}

export interface ChartFindings {
  charts: number;
  links: number;
  tickLabels: number;
  problems: string[];
}

export const PHONE = { width: 390, height: 844 };
const MIN_TEXT_PX = 11;
const MIN_TARGET_PX = 24;
const MAX_EMPTY_RIGHT = 0.15;
const RAW_FIELD = /\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z]+_[a-z_]+\b/;

interface Drawn {
  name: string;
  labels: number[];
  /** Every accessible label in the drawing (axes, legends, figures). */
  ariaLabels: string[];
  links: Array<{ href: string; title: string; width: number; height: number }>;
  width: number;
  right: number;
  /** How far the chart's frame scrolls sideways (0: it fits the width). */
  overflow: number;
}

/** Measures every chart in the page (a string, so the harness's types need no DOM). */
const MEASURE = `(() => Array.from(document.querySelectorAll('article.report figure.chart')).filter((f) => f.querySelector('svg')).map((figure) => {
  const svg = figure.querySelector('svg');
  const box = svg.getBoundingClientRect();
  let right = box.left;
  for (const e of svg.querySelectorAll('path, line, text, rect, circle')) {
    if (e.parentElement === svg) continue; // the background
    if (e.closest('a') || getComputedStyle(e).opacity === '0' || e.getAttribute('display') === 'none') continue; // hit columns draw nothing
    const r = e.getBoundingClientRect();
    if (r.width > 0 || r.height > 0) right = Math.max(right, r.right);
  }
  return {
    name: (figure.id || '').replace(/^chart-/, ''),
    labels: Array.from(svg.querySelectorAll('.role-axis-label text, .role-legend-label text')).map((t) => t.getBoundingClientRect().height),
    ariaLabels: Array.from(svg.querySelectorAll('[aria-label]')).map((e) => e.getAttribute('aria-label')),
    links: Array.from(svg.querySelectorAll('a')).map((a) => {
      const r = a.getBoundingClientRect();
      const title = a.querySelector('title');
      return { href: a.getAttribute('href') || a.getAttribute('xlink:href') || '', title: title ? title.textContent : '', width: r.width, height: r.height };
    }),
    width: box.width,
    right: right - box.left,
    overflow: Math.max(0, svg.parentElement.scrollWidth - svg.parentElement.clientWidth, box.right - svg.parentElement.getBoundingClientRect().right),
  };
}))()`;

/** The figure a tooltip states: the first number after its first ": " (0.949, +0.051, 131, 709k). */
export function tooltipValue(title: string): string | null {
  const after = title.slice(title.indexOf(': ') + 2);
  return /[+−-]?\d[\d,]*(?:\.\d+)?[kMG]?/.exec(after)?.[0] ?? null;
}

export async function checkCharts({ context, baseUrl, run, report }: ChartCheckInput): Promise<ChartFindings> {
  const page = await context.newPage();
  const problems: string[] = [];
  const found: ChartFindings = { charts: 0, links: 0, tickLabels: 0, problems };
  try {
    await page.setViewportSize(PHONE);
    const url = `${baseUrl}runs/${run}/`;
    await page.goto(url);
    const drawn = await page.evaluate<Drawn[]>(MEASURE);
    found.charts = drawn.length;
    const names = drawn.map((d) => d.name).sort();
    const expected = report.charts.map((c) => c.name).sort();
    if (JSON.stringify(names) !== JSON.stringify(expected)) problems.push(`inline charts ${names.join(', ')}; report.json has ${expected.join(', ')}`);
    const fetched = new Map<string, number>();
    const rows: Array<{ where: string; rowId: string; value: string; title: string }> = [];
    for (const chart of drawn) {
      found.tickLabels += chart.labels.length;
      if (chart.labels.length === 0) problems.push(`${chart.name}: no tick label`);
      if (chart.overflow > 1) problems.push(`${chart.name}: its frame scrolls sideways by ${Math.round(chart.overflow)} px at ${PHONE.width} px`);
      const small = chart.labels.filter((h) => h < MIN_TEXT_PX);
      if (small.length) problems.push(`${chart.name}: ${small.length} labels under ${MIN_TEXT_PX} px tall (smallest ${Math.min(...small).toFixed(1)} px)`);
      const empty = (chart.width - chart.right) / chart.width;
      if (empty > MAX_EMPTY_RIGHT) problems.push(`${chart.name}: ${Math.round(empty * 100)}% of its ${Math.round(chart.width)} px canvas is empty on the right`);
      if (chart.links.length === 0) problems.push(`${chart.name}: no figure is a link`);
      // Labels in words: a field name (cellPage, survival_lo) in what a screen reader says is a spec showing through.
      for (const label of chart.ariaLabels) if (RAW_FIELD.test(label)) problems.push(`${chart.name}: an accessible label shows a field name: "${label}"`);
      for (const link of chart.links) {
        found.links += 1;
        const where = `${chart.name} ${link.href}`;
        if (link.width < MIN_TARGET_PX || link.height < MIN_TARGET_PX) problems.push(`${where}: a ${link.width.toFixed(1)} × ${link.height.toFixed(1)} px target`);
        const value = tooltipValue(link.title);
        if (!link.title || value === null) {
          problems.push(`${where}: no tooltip holding a value ("${link.title}")`);
          continue;
        }
        const target = new URL(link.href, url);
        if (target.origin !== new URL(url).origin) {
          problems.push(`${where}: links outside the site`);
          continue;
        }
        const hash = decodeURIComponent(target.hash.slice(1));
        target.hash = '';
        if (target.href !== url) {
          if (!fetched.has(target.href)) fetched.set(target.href, (await fetch(target.href)).status);
          if (fetched.get(target.href) !== 200) problems.push(`${where}: ${target.href} answers ${fetched.get(target.href)}`);
        }
        // A figure's number is printed where it leads: its table row, or for a cell with a page, that cell's row of the cells table.
        const cell = /^cells\/([^/]+)\/$/.exec(link.href)?.[1];
        const rowId = target.href === url && hash ? hash : cell ? `row-cells-${cell}` : null;
        if (rowId === null) {
          problems.push(`${where}: leads neither to a row of the sweep page nor to a cell page`);
          continue;
        }
        rows.push({ where, rowId, value, title: link.title });
      }
    }
    // Every row a figure leads to, read in one round trip to the page.
    const ids = [...new Set(rows.map((r) => r.rowId))];
    const texts = await page.evaluate<Array<string | null>>(`${JSON.stringify(ids)}.map((id) => { const e = document.getElementById(id); return e ? e.textContent : null; })`);
    const textOf = new Map(ids.map((id, i) => [id, texts[i] ?? null] as const));
    for (const { where, rowId, value, title } of rows) {
      const text = textOf.get(rowId) ?? null;
      if (text === null) problems.push(`${where}: no element #${rowId} on the sweep page`);
      else if (!text.includes(value)) problems.push(`${where}: the tooltip's value ${value} ("${title}") is not in #${rowId} ("${text.replace(/\s+/g, ' ').trim()}")`);
    }
  } finally {
    await page.close();
  }
  return found;
}
