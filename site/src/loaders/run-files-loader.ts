import type { Loader, LoaderContext } from 'astro/loaders';
import { renderMarkdown, type Report, type Spend } from '../../../harness/run-files.js';
import { dataDir } from '../lib/data-dir.js';
import { reportHtml } from '../lib/report-html.js';
import { readRun, stagedRuns, type ChartView } from '../lib/site-data.js';
import { cellView, clearViews, runView, sessionView, writeView } from '../lib/views.js';

/**
 * The content loader of the site's three collections (runs, cells, sessions). Astro 5 bundles
 * zod 3 and the harness writes its files with zod 4, so nothing is validated by a collection
 * schema: readRun validates every staged file with the harness's own schemas. The loader
 * stores a small index entry per run, cell and session, and writes each one's view (see
 * views.ts) for its page. One pass over the runs serves the three collections.
 */

export interface RunEntry {
  name: string;
  sweep: Report['sweep'];
  simulated: boolean;
  cells: Report['counts']['cells'];
  spend: Spend;
  charts: ChartView[];
  view: string;
}
export interface CellEntry {
  run: string;
  id: string;
  view: string;
}
export interface SessionEntry {
  run: string;
  cell: string;
  slug: string;
  pages: number;
  view: string;
}
export interface RunPage {
  name: string;
  report: Report;
  reportHtml: string;
  cellPages: string[];
}

type Collection = 'runs' | 'cells' | 'sessions';
interface Index {
  runs: RunEntry[];
  cells: CellEntry[];
  sessions: SessionEntry[];
}

let once: Promise<Index> | undefined;

async function prepare(context: LoaderContext): Promise<Index> {
  const dir = dataDir();
  await clearViews(dir);
  const index: Index = { runs: [], cells: [], sessions: [] };
  for (const name of await stagedRuns(dir)) {
    const { run, cells, sessions } = await readRun(dir, name);
    const rendered = await context.renderMarkdown(renderMarkdown(run.report));
    const html = reportHtml(rendered.html ?? '', {
      cellPages: new Set(run.cellPages),
      charts: run.linkedCharts,
      shownAs: `runs/${run.name}/report/report.json`,
    });
    const view = runView(name);
    await writeView(dir, view, { name, report: run.report, reportHtml: html, cellPages: run.cellPages } satisfies RunPage);
    const r = run.report;
    index.runs.push({ name, sweep: r.sweep, simulated: r.simulated !== null, cells: r.counts.cells, spend: r.cost.actual, charts: run.charts, view });
    for (const cell of cells) {
      const file = cellView(name, cell.id);
      await writeView(dir, file, cell);
      index.cells.push({ run: name, id: cell.id, view: file });
    }
    for (const { session, pages } of sessions) {
      const file = sessionView(name, session.cell, session.slug);
      await writeView(dir, file, { session, pages });
      index.sessions.push({ run: name, cell: session.cell, slug: session.slug, pages: pages.length, view: file });
    }
  }
  return index;
}

async function load(collection: Collection, context: LoaderContext): Promise<void> {
  once ??= prepare(context);
  const index = await once;
  context.store.clear();
  if (collection === 'runs') for (const e of index.runs) context.store.set({ id: e.name, data: { ...e } });
  else if (collection === 'cells') for (const e of index.cells) context.store.set({ id: `${e.run}/${e.id}`, data: { ...e } });
  else for (const e of index.sessions) context.store.set({ id: `${e.run}/${e.cell}/${e.slug}`, data: { ...e } });
  context.logger.info(`${index[collection].length} ${collection} validated`);
}

export function runFilesLoader(collection: Collection): Loader {
  return { name: `run-files:${collection}`, load: (context) => load(collection, context) };
}
