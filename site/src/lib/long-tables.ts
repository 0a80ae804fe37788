/**
 * Keeps a sweep page's weight flat in the number of cells. report.md prints some tables with a
 * row per cell or per killed claim (every cell, the claims that did not survive), and the chart
 * after such a table draws a figure per row; at 528 cells those two alone weigh over 1 MB. A
 * table of more than `maxRows` body rows is moved, with the chart drawn right after it, to a page
 * of its own under the sweep page (`tables/SLUG/`); the sweep page keeps a line in its place
 * naming the rows and linking there. Nothing is dropped: the moved HTML is the same, its relative
 * links rewritten for the deeper page. A short table (the committed example's) stays in place.
 */

export interface MovedTable {
  /** The sub-page's path segment: the table's id (`table-cells`) or its number (`table-7`). */
  slug: string;
  /** The heading the table sat under on the sweep page. */
  title: string;
  rows: number;
  /** The table (and its chart), its links relative to `tables/SLUG/`. */
  html: string;
}

export interface LongTablesOptions {
  /** Most body rows a table keeps on the sweep page. Default: MAX_ROWS. */
  maxRows?: number;
}

/** Above the committed example's longest table (14 rows over 8 cells), far below a sweep's (hundreds). */
export const MAX_ROWS = 24;

export class LongTableError extends Error {
  readonly code = 'LONG_TABLE';
}

// report-html.ts wraps every table so; a table a chart links to carries its id first.
const WRAP = /<div (?:id="[A-Za-z0-9_-]+" )?class="table-wrap"/g;
const END = '</table></div>';
const plain = (html: string) => html.replace(/<[^>]*>/g, '').trim();

/** The relative links of moved HTML, from `tables/SLUG/`: cells and charts two folders up, row anchors on the same page. */
function deeper(html: string): string {
  return html.replace(/(href|src)="((?:cells|charts)\/)/g, '$1="../../$2');
}

/** The heading last opened before `at`. */
function headingBefore(html: string, at: number): string {
  let title = '';
  for (const m of html.slice(0, at).matchAll(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/g)) title = plain(m[1]!);
  return title;
}

/** The sweep page's HTML with its long tables moved out, and the moved tables. */
export function moveLongTables(html: string, options: LongTablesOptions = {}): { html: string; moved: MovedTable[] } {
  const maxRows = options.maxRows ?? MAX_ROWS;
  const moved: MovedTable[] = [];
  let out = '';
  let from = 0;
  let number = 0;
  for (const m of html.matchAll(WRAP)) {
    const at = m.index;
    if (at < from) continue; // already taken along with the table before it
    number += 1;
    const close = html.indexOf(END, at);
    if (close === -1) throw new LongTableError('a table of the sweep page does not close; report-html.ts and long-tables.ts disagree (this is a bug)');
    let end = close + END.length;
    const table = html.slice(at, end);
    const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table)?.[1] ?? '';
    const rows = (body.match(/<tr[\s>]/g) ?? []).length;
    if (rows <= maxRows) {
      out += html.slice(from, end);
      from = end;
      continue;
    }
    // The chart drawn from this table follows it directly: it goes along, as its figures link to the rows.
    const next = /^\s*<figure class="chart"[^>]*>[\s\S]*?<\/figure>/.exec(html.slice(end));
    if (next) end += next[0].length;
    const id = /^<div id="([A-Za-z0-9_-]+)"/.exec(table)?.[1];
    const slug = id ?? `table-${number}`;
    const title = headingBefore(html, at);
    moved.push({ slug, title, rows, html: deeper(html.slice(at, end)) });
    const chart = next ? ' and the chart drawn from it' : '';
    out += `${html.slice(from, at)}<p class="moved-table" id="${id ?? slug}">This table has ${rows.toLocaleString('en-US')} rows; it is on <a href="tables/${slug}/">a page of its own</a>${chart}, so that this page stays light at any number of cells. Its figures are also in the report (report.json) under Data below.</p>`;
    from = end;
  }
  out += html.slice(from);
  // A link of what stays to a row that moved (none today: every figure links within its own table) follows it to its page.
  for (const t of moved) {
    out = out.replace(new RegExp(`href="#(row-${t.slug.replace(/^table-/, '')}-[A-Za-z0-9_-]*)"`, 'g'), `href="tables/${t.slug}/#$1"`);
  }
  return { html: out, moved };
}
