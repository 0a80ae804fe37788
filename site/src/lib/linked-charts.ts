import { createHash } from 'node:crypto';
import { CHARTS, renderSvg, type Report } from '../../../harness/run-files.js';
import { assertPlainSvg } from './svg-check.js';
import { narrowSpec } from './narrow-chart.js';

/**
 * The report's charts drawn again for the sweep page, by the report's own code, with every
 * figure a link: a cell's dot to its cell page (when the cell was published with a page), any
 * other figure to the row of the sweep page's table that prints its number (see rowAnchor; the
 * page gives those rows their ids, report-html.ts). The chart's title and notes leave the
 * drawing for the figure's caption, where they wrap as text; the drawing keeps the axes,
 * legends and marks, each figure's <title> tooltip and its hit column. Its panels are stacked
 * and its type a size up (narrow-chart.ts), so it scales to a phone's width and stays legible.
 */

export interface LinkedChart {
  name: string;
  title: string;
  /** The chart's notes (what is drawn and how), for its caption. */
  notes: string[];
  /** Inline SVG, checked to be drawing only. */
  svg: string;
  /** Every link a figure of the chart carries, in order of the data. */
  hrefs: string[];
}

/** The id of a table row of the sweep page: `row-<table>-<key>`, the key being the row's leading cells joined by "-". */
export function rowAnchor(table: string, key: string): string {
  return `row-${table}-${key}`.replace(/[^A-Za-z0-9_-]+/g, '-');
}

/** The id of a table as a whole, for a figure with no row of its own. */
export const tableAnchor = (table: string): string => `table-${table}`.replace(/[^A-Za-z0-9_-]+/g, '-');

export class ChartLinkError extends Error {
  readonly code = 'CHART_LINK';
}

type Json = Record<string, unknown>;

/** Every object of a spec, depth first. */
function* objects(node: unknown): Generator<Json> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) yield* objects(item);
    return;
  }
  yield node as Json;
  for (const value of Object.values(node)) yield* objects(value);
}

/** Where a figure links: its cell's page when it is a cell that has one, else its table row. */
export function figureHref(datum: { table?: unknown; row?: unknown }, cellPages: ReadonlySet<string>): string | null {
  if (typeof datum.table !== 'string' || typeof datum.row !== 'string') return null;
  if (datum.table === 'cells' && cellPages.has(datum.row)) return `cells/${datum.row}/`;
  return `#${rowAnchor(datum.table, datum.row)}`;
}

/** One chart's spec with links on the marks that carry a tooltip (the hit columns), its title taken off. */
export function linkedSpec(spec: object, cellPages: ReadonlySet<string>): { spec: Json; hrefs: string[] } {
  const out = structuredClone(spec) as Json;
  delete out.title;
  const hrefs: string[] = [];
  let linkedMarks = 0;
  for (const o of objects(out)) {
    const encoding = o.encoding as Json | undefined;
    if (encoding && typeof encoding === 'object' && 'tooltip' in encoding) {
      encoding.href = { field: 'href', type: 'nominal' };
      linkedMarks += 1;
    }
    const data = o.data as { values?: unknown } | undefined;
    if (data && Array.isArray(data.values)) {
      for (const value of data.values as Json[]) {
        if (!('tip' in value)) continue;
        const href = figureHref(value, cellPages);
        if (href === null) throw new ChartLinkError(`a figure of a chart has a tooltip but no table row to link to (${String(value.tip)}); harness/report and the site disagree on the charts (this is a bug)`);
        value.href = href;
        hrefs.push(href);
      }
    }
  }
  // A chart with no figure (a sweep with no complete pair yet draws an empty difference) has nothing to link; figures without a linked mark are a bug.
  if (linkedMarks === 0 && hrefs.length > 0) throw new ChartLinkError('a chart has figures but no mark with a tooltip to link; harness/report and the site disagree on the charts (this is a bug)');
  return { spec: out, hrefs };
}

/**
 * Charts drawn once per spec: runs of one manifest often draw the same chart (a re-run, copies of
 * a sweep), and vega's drawing is the costliest step of a sweep page. Keyed by the linked spec's
 * hash; the last MAX_KEPT drawings are kept.
 */
const MAX_KEPT = 64;
const drawings = new Map<string, Promise<{ svg: string }>>();
function drawOnce(spec: Json): Promise<{ svg: string }> {
  const key = createHash('sha256').update(JSON.stringify(spec)).digest('hex');
  let drawing = drawings.get(key);
  if (!drawing) {
    drawing = renderSvg(spec as never);
    drawings.set(key, drawing);
    if (drawings.size > MAX_KEPT) drawings.delete(drawings.keys().next().value!);
  }
  return drawing;
}

/** Every chart of the report, linked, in the report's order. */
export async function linkedCharts(report: Report, cellPages: ReadonlySet<string>, shownAs: string): Promise<LinkedChart[]> {
  const out: LinkedChart[] = [];
  for (const chart of CHARTS) {
    const spec = chart.spec(report);
    const meta = (spec as { usermeta?: { title?: unknown; notes?: unknown } }).usermeta;
    const { spec: linked, hrefs } = linkedSpec(narrowSpec(spec), cellPages);
    const rendered = await drawOnce(linked);
    assertPlainSvg(rendered.svg, `${shownAs} (chart ${chart.name}, drawn for the page)`);
    out.push({
      name: chart.name,
      title: typeof meta?.title === 'string' ? meta.title : chart.title,
      notes: Array.isArray(meta?.notes) ? meta.notes.filter((n): n is string => typeof n === 'string') : [],
      svg: rendered.svg,
      hrefs,
    });
  }
  return out;
}
