import { CHARTS } from '../../../harness/run-files.js';
import { ChartLinkError, rowAnchor, tableAnchor, type LinkedChart } from './linked-charts.js';
import { RunFileInvalidError } from './run-file-read.js';

/**
 * report.md, rendered to HTML, made into the body of a sweep page. report.md is a pure function
 * of report.json written by the harness, so the page says exactly what the report says; this
 * only (1) refuses anything but the plain document markdown produces, (2) wraps tables so they
 * scroll on a phone, (3) links every cell id in a table to its cell page, (4) replaces each
 * chart's image with the chart drawn inline, every figure a link (linked-charts.ts), and (5)
 * gives the table before each chart, and its rows, the ids those links name. Links stay
 * relative (`charts/...`, `cells/...`, `#row-...`), which resolve from the sweep page under any
 * base path.
 */

const TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 'code', 'a', 'img', 'blockquote', 'br', 'hr', 'del']);
const ATTRIBUTES: Record<string, RegExp> = {
  id: /^[A-Za-z0-9_-]*$/,
  align: /^(left|right|center)$/,
  style: /^text-align:\s*(left|right|center);?$/,
  src: /^charts\/[A-Za-z0-9._-]+\.svg$/,
  alt: /^[^"<>]*$/,
  href: /^(#[A-Za-z0-9_-]*|charts\/[A-Za-z0-9._-]+\.svg)$/,
};

/** Refuses any tag or attribute a report.md could not have produced (raw HTML smuggled in a text field). */
export function assertPlainReportHtml(html: string, shownAs: string): void {
  for (const m of html.matchAll(/<\/?([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    const tag = m[1]!.toLowerCase();
    if (!TAGS.has(tag)) throw new RunFileInvalidError(`${shownAs}: its text holds HTML (a <${tag}> element); report text must be plain (re-run harness report)`);
    for (const a of m[2]!.matchAll(/\s+([^\s=>]+)(?:="([^"]*)")?/g)) {
      const rule = ATTRIBUTES[a[1]!.toLowerCase()];
      if (!rule || !rule.test(a[2] ?? '')) throw new RunFileInvalidError(`${shownAs}: its text holds HTML (a ${a[1]} attribute on <${tag}>); report text must be plain (re-run harness report)`);
    }
  }
  // A "<" that starts no tag the pattern above read (a malformed tag) is refused as well.
  const stripped = html.replace(/<\/?([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g, '');
  if (stripped.includes('<')) throw new RunFileInvalidError(`${shownAs}: its text holds markup the site cannot read as plain text; re-run harness report`);
}

export interface ReportHtmlOptions {
  /** Cell ids that have a page. */
  cellPages: ReadonlySet<string>;
  /** The report's charts drawn for the page, every figure a link (linked-charts.ts), shown in place of the report's images. */
  charts: readonly LinkedChart[];
  shownAs: string;
  /**
   * Where a claim killed at a merge is read: the anchor, on its cell's page, of the merge attempt
   * that stood (node-tree.ts's mergeAttemptAnchor); null when the cell has no page or no such node.
   */
  killedAt?: (cell: string, node: string) => string | null;
  /**
   * The page shows the headline strip above the report (Headline.astro, its rows carrying the
   * ids the survival chart links to, `row-pooled-LEVEL`): the report's own Headline section is
   * then not printed again, only its chart, under a heading of its own, so each figure is on
   * the page once and one section is called Headline.
   */
  headlineShown?: boolean;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const cellText = (html: string) => html.replace(/<[^>]*>/g, '').trim();

/**
 * Ids on the table report.md prints before a chart (`table-NAME`, on its scroll wrapper) and
 * on each of its body rows (`row-NAME-KEY`), which the chart's figures link to. A table whose
 * rows have fewer cells than its key is a report.md the charts no longer describe: a bug.
 */
function anchorTable(table: string, name: string, keys: number, shownAs: string): string {
  const body = table.replace(/<tbody>([\s\S]*?)<\/tbody>/, (_whole, rows: string) => `<tbody>${rows.replace(/<tr>([\s\S]*?)<\/tr>/g, (_row, cells: string) => {
    const texts = [...cells.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => cellText(m[1]!));
    if (texts.length < keys) throw new ChartLinkError(`${shownAs}: the table before the ${name} chart has a row of ${texts.length} cells, fewer than its ${keys} key columns; harness/report and the site disagree on report.md (this is a bug)`);
    return `<tr id="${rowAnchor(name, texts.slice(0, keys).join('-'))}">${cells}</tr>`;
  })}</tbody>`);
  return body.replace(/^<div class="table-wrap"/, `<div id="${tableAnchor(name)}" class="table-wrap"`);
}

/** A chart as the page shows it: its title and notes as a caption, the drawing scaled to the width (narrow-chart.ts), and the report's own SVG to take away. */
function figure(chart: LinkedChart, src: string): string {
  const notes = chart.notes.map((n) => `<span class="chart-note">${escapeHtml(n)}</span>`).join(' ');
  return `<figure class="chart" id="chart-${chart.name}"><figcaption><span class="chart-title">${escapeHtml(chart.title)}</span> ${notes} <span class="chart-note">Each figure links to the table row that prints its number${chart.name === 'cells' ? ' (a cell with a page, to its page)' : ''}; <a href="${src}">the chart as an SVG image</a>.</span></figcaption><div class="chart-frame">${chart.svg}</div></figure>`;
}

const TABLE_WRAP = '<div class="table-wrap" tabindex="0" role="region" aria-label="Table ';

/**
 * The table of claims that did not survive (report.md's "killed at" column): each row's merge
 * linked to the attempt on its cell's page, where the review that let it through is one tap on.
 */
function linkKilledAt(html: string, killedAt: NonNullable<ReportHtmlOptions['killedAt']>): string {
  return html.replace(/<table>([\s\S]*?)<\/table>/g, (whole, inner: string) => {
    const heads = [...(/<thead>([\s\S]*?)<\/thead>/.exec(inner)?.[1] ?? '').matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => cellText(m[1]!));
    const cellAt = heads.indexOf('cell');
    const nodeAt = heads.indexOf('killed at');
    if (cellAt < 0 || nodeAt < 0) return whole;
    return whole.replace(/<tr>([\s\S]*?)<\/tr>/g, (row, cells: string) => {
      const tds = [...cells.matchAll(/<td([^>]*)>([\s\S]*?)<\/td>/g)];
      if (tds.length <= Math.max(cellAt, nodeAt)) return row;
      const anchor = killedAt(cellText(tds[cellAt]![2]!), cellText(tds[nodeAt]![2]!));
      if (!anchor) return row;
      const cell = cellText(tds[cellAt]![2]!);
      const target = tds[nodeAt]!;
      return `<tr>${cells.slice(0, target.index)}<td${target[1]}><a href="cells/${cell}/#${anchor}" data-killed-at>${target[2]}</a></td>${cells.slice(target.index! + target[0].length)}</tr>`;
    });
  });
}

/**
 * Every table made to stack on a phone (site.css's `table.stack`): each cell carries its
 * column's header as `data-label`, which a narrow screen prints above the value, row by row,
 * instead of scrolling the table sideways.
 */
export function stackTables(html: string): string {
  return html.replace(/<table>([\s\S]*?)<\/table>/g, (_whole, inner: string) => {
    const heads = [...(/<thead>([\s\S]*?)<\/thead>/.exec(inner)?.[1] ?? '').matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => escapeHtml(cellText(m[1]!)));
    const body = inner.replace(/<tr([^>]*)>([\s\S]*?)<\/tr>/g, (row, attrs: string, cells: string) => {
      if (!cells.includes('<td')) return row;
      let i = 0;
      return `<tr${attrs}>${cells.replace(/<td([^>]*)>/g, (_td, attrs: string) => `<td${attrs} data-label="${heads[i++] ?? ''}">`)}</tr>`;
    });
    return `<table class="stack">${body}</table>`;
  });
}

/** The report's pooled Headline section: its heading and its table, whose rows the strip prints (see headlineShown). */
const HEADLINE_SECTION = /<h2[^>]*>Headline: survival by achieved level, pooled over caps<\/h2>([\s\S]*?)<table>[\s\S]*?<\/table>/;

/** The headline's section, its table dropped (the strip prints those rows, with the ids its chart links to). */
function dropHeadlineTable(html: string): string {
  return html.replace(HEADLINE_SECTION, (_whole, between: string) => `<h2 id="survival-pooled">Survival by achieved level, pooled over caps</h2>${between}<p>The figures are the headline's, at the top of this page; each point of the chart links to its row there.</p>`);
}

/** What a newcomer needs before the section's detail: what "work beyond the claims" means and why it matters. */
export const BEYOND_CLAIMS_LEAD = 'In short: a leaf that also makes requirements pass that it was never asked for did more than its share, and the more of that there is, the less the survival figures above say about splitting work, since the deliverable then survives whatever the tree did.';

export function reportHtml(html: string, options: ReportHtmlOptions): string {
  assertPlainReportHtml(html, options.shownAs);
  if (options.headlineShown) html = dropHeadlineTable(html);
  html = html.replace(/(<h2[^>]*>Work beyond the claims<\/h2>)/, `$1<p class="lead" data-beyond-claims-lead>${BEYOND_CLAIMS_LEAD}</p>`);
  if (options.killedAt) html = linkKilledAt(html, options.killedAt);
  const charts = new Map(options.charts.map((c) => [c.name, c]));
  // Each table's region is named by its number and the heading above it: landmarks need names of their own.
  let tables = 0;
  let heading = '';
  let out = html
    .replace(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>|<table>/g, (whole, text?: string) => {
      if (text !== undefined) {
        heading = cellText(text);
        return whole;
      }
      tables += 1;
      return `${TABLE_WRAP}${escapeHtml(`${tables}${heading ? `, ${heading}` : ''}`)} (stacks on a phone)"><table>`;
    })
    .replace(/<\/table>/g, '</table></div>');
  out = out.replace(/<td([^>]*)>(cap[1-9][0-9]*-rep[1-9][0-9]*-(?:gated|ungated))<\/td>/g, (whole, attrs: string, id: string) => (options.cellPages.has(id) ? `<td${attrs}><a href="cells/${id}/">${id}</a></td>` : whole));
  // Each chart image, and the last table before it (since the previous image): that table's rows get the ids the chart links to.
  const image = /<p><img src="(charts\/([A-Za-z0-9._-]+)\.svg)" alt="([^"]*)"\s*\/?><\/p>/g;
  let result = '';
  let from = 0;
  for (const m of out.matchAll(image)) {
    let before = out.slice(from, m.index);
    const [, src, name, alt] = m as unknown as [string, string, string, string];
    const listing = CHARTS.find((c) => c.name === name);
    const chart = charts.get(name);
    const at = before.lastIndexOf(TABLE_WRAP);
    // The strip carries the pooled rows' ids when the report's table was dropped: no other table takes them.
    const stripRows = options.headlineShown && listing?.table.name === 'pooled';
    if (listing && chart && at >= 0 && !stripRows) {
      const end = before.indexOf('</table></div>', at) + '</table></div>'.length;
      before = before.slice(0, at) + anchorTable(before.slice(at, end), listing.table.name, listing.table.keys, options.shownAs) + before.slice(end);
    }
    result += before + (chart ? figure(chart, src) : `<figure class="chart"><div class="chart-frame"><img src="${src}" alt="${alt}; the table above gives its numbers" loading="lazy" decoding="async"></div></figure>`);
    from = m.index + m[0].length;
  }
  return stackTables(result + out.slice(from));
}
