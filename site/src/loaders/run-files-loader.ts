import type { Loader, LoaderContext } from 'astro/loaders';
import path from 'node:path';
import { pairOfCell, renderMarkdown, type Report, type Spend } from '../../../harness/run-files.js';
import { dataDir, siteRepository } from '../lib/data-dir.js';
import { stagedCellFiles, stagedPairEvents, type CellDownload } from '../lib/run-downloads.js';
import { reportHtml } from '../lib/report-html.js';
import { moveLongTables, type MovedTable } from '../lib/long-tables.js';
import { stagedSpecs, type SpecFile } from '../lib/chart-specs.js';
import { headline, isSimulated, type Headline } from '../lib/headline.js';
import { readRun, stagedRuns, type CellView, type ChartView, type SessionPages } from '../lib/site-data.js';
import { LICENCE_NOTICE_FILE, TranscriptArchive } from '../lib/transcript-bundle.js';
import { TextBundle, textsBundle } from '../lib/published-texts.js';
import { cellView, clearViews, filesView, runView, sessionsView, transcriptsView, writeView, type RunFiles } from '../lib/views.js';

/**
 * The content loader of the site's two collections (runs, cells). Astro 5 bundles
 * zod 3 and the harness writes its files with zod 4, so nothing is validated by a collection
 * schema: readRun validates every staged file with the harness's own schemas. The loader
 * stores a small index entry per run and cell, and writes each one's view (see views.ts) for its
 * pages, a cell's sessions in one view beside it. One pass over the runs serves both collections.
 */

export interface RunEntry {
  name: string;
  sweep: Report['sweep'];
  /** The task the sweep ran: its spec folder's name (the manifest's \`spec\`). */
  task: string;
  simulated: boolean;
  cells: Report['counts']['cells'];
  spend: Spend;
  /** What the run paid across every invocation, each live call once (report.cost.paid, the figure harness record shows); null when the report predates it. */
  paid: NonNullable<Report['cost']['paid']> | null;
  charts: ChartView[];
  view: string;
  /** The strip a reviewer reads first: headline figures, ruling, how to reproduce (lib/headline.ts). */
  headline: Headline;
  /** SIMULATED runs: the planted parameters in one line (report.simulated.text); null for a real run. */
  planted: string | null;
  /** The staged vega-lite specs, published as downloads. */
  specs: SpecFile[];
  /** The staged report.json, relative to the data folder: published byte for byte. */
  reportFile: string;
  /** The report's long tables, each moved to a page of its own (long-tables.ts). */
  tables: Array<{ slug: string; title: string }>;
  /** How many cells have a page: a run with none gets no cells page. */
  cellPageCount: number;
  /** The pairs whose shared build's events.jsonl is published (run-downloads.ts). */
  pairEvents: string[];
  /** Whether the run's raw transcripts are published (transcripts.tar.br). */
  transcripts: boolean;
  /** The licence notices of the texts the brief carried beside SPEC.md (report.licenceNotices): every page of the run and its transcripts' archive carry them. */
  licenceNotices: string[];
}
export interface CellEntry {
  run: string;
  id: string;
  view: string;
  /** The cell's run files published as downloads (run-downloads.ts). */
  files: CellDownload[];
}
export interface RunPage {
  name: string;
  report: Report;
  reportHtml: string;
  cellPages: string[];
  /** The long tables moved off the page (long-tables.ts), each served by tables/[table].astro. */
  moved: MovedTable[];
}

type Collection = 'runs' | 'cells';
interface Index {
  runs: RunEntry[];
  cells: CellEntry[];
}

let once: Promise<Index> | undefined;

async function prepare(context: LoaderContext): Promise<Index> {
  const dir = dataDir();
  await clearViews(dir);
  const index: Index = { runs: [], cells: [] };
  const written = new Set<string>();
  for (const name of await stagedRuns(dir)) {
    const files: RunFiles = { transcripts: 0 };
    const writes: Array<Promise<void>> = [];
    const archive = await TranscriptArchive.create(path.join(dir, transcriptsView(name)));
    const texts = await TextBundle.create(path.join(dir, textsBundle(name)));
    // One cell's sessions, written as one view once the next cell's first session arrives (readRun reads a cell's sessions together).
    let cellSessions: { file: string; sessions: Record<string, SessionPages> } | null = null;
    const writtenCells = new Set<string>();
    const writeCellSessions = async () => {
      if (!cellSessions) return;
      await writeView(dir, cellSessions.file, cellSessions.sessions);
      writtenCells.add(cellSessions.file);
      cellSessions = null;
    };
    const { run, cells } = await readRun(dir, name, {
      session: async ({ session, pages }) => {
        // This session's new texts, written before its view: never more than one session's open at once.
        await Promise.all(writes.splice(0));
        const file = sessionsView(name, session.cell);
        if (cellSessions?.file !== file) {
          await writeCellSessions();
          // Rewriting a written view would drop the sessions it holds: fail rather than publish a cell without them.
          if (writtenCells.has(file)) throw new Error(`the loader was given the sessions of ${session.cell} (run ${name}) apart, not together; this is a bug`);
          cellSessions = { file, sessions: {} };
        }
        cellSessions.sessions[session.slug] = { session, pages };
      },
      text: (key, text) => {
        // Named by its content hash, so a text another run already stored is the same file: written once for the site.
        if (written.has(key)) return;
        written.add(key);
        writes.push(texts.add(key, text));
      },
      transcripts: async (cell, raw) => {
        for (const file of raw) await archive.add(`cells/${cell}/transcripts/${file.name}`, file.text);
      },
    });
    await writeCellSessions();
    const notices = run.report.licenceNotices ?? [];
    // The raw transcripts carry the brief's texts too: the archive holds their notice beside them.
    const transcripts = archive.count;
    if (transcripts > 0 && notices.length > 0) await archive.add(LICENCE_NOTICE_FILE, `${notices.join('\n\n')}\n`);
    await archive.close();
    files.transcripts = transcripts;
    await Promise.all(writes);
    await texts.close();
    await writeView(dir, filesView(name), files);
    const rendered = await context.renderMarkdown(renderMarkdown(run.report));
    const full = reportHtml(rendered.html ?? '', {
      cellPages: new Set(run.cellPages),
      charts: run.linkedCharts,
      shownAs: `runs/${run.name}/report/report.json`,
      killedAt: killedAnchors(cells),
      headlineShown: true,
    });
    const { html, moved } = moveLongTables(full);
    const view = runView(name);
    await writeView(dir, view, { name, report: run.report, reportHtml: html, cellPages: run.cellPages, moved } satisfies RunPage);
    const r = run.report;
    index.runs.push({
      name, sweep: r.sweep, task: path.basename(r.design.spec), simulated: isSimulated(r), cells: r.counts.cells, spend: r.cost.actual, paid: r.cost.paid ?? null, charts: run.charts, view,
      headline: headline(r, siteRepository()), planted: r.simulated?.text ?? null, specs: await stagedSpecs(dir, name, r), reportFile: path.join('runs', name, 'report', 'report.json'),
      tables: moved.map((t) => ({ slug: t.slug, title: t.title })),
      cellPageCount: run.cellPages.length,
      pairEvents: await stagedPairEvents(dir, name, [...new Set(run.cellPages.map(pairOfCell))]),
      transcripts: transcripts > 0,
      licenceNotices: notices,
    });
    for (const cell of cells) {
      const file = cellView(name, cell.id);
      await writeView(dir, file, cell);
      index.cells.push({ run: name, id: cell.id, view: file, files: await stagedCellFiles(dir, name, cell.id) });
    }
  }
  return index;
}

/** Where each cell's page puts the merge a claim died at (its claims' marks): the sweep page's killed claims link there. */
function killedAnchors(cells: readonly CellView[]): (cell: string, node: string) => string | null {
  const anchors = new Map<string, string>();
  for (const c of cells) for (const m of c.claims) if (m.diedAt && m.diedAnchor) anchors.set(`${c.id} ${m.diedAt}`, m.diedAnchor);
  return (cell, node) => anchors.get(`${cell} ${node}`) ?? null;
}

async function load(collection: Collection, context: LoaderContext): Promise<void> {
  once ??= prepare(context);
  const index = await once;
  context.store.clear();
  if (collection === 'runs') for (const e of index.runs) context.store.set({ id: e.name, data: { ...e } });
  else for (const e of index.cells) context.store.set({ id: `${e.run}/${e.id}`, data: { ...e } });
  context.logger.info(`${index[collection].length} ${collection} validated`);
}

export function runFilesLoader(collection: Collection): Loader {
  return { name: `run-files:${collection}`, load: (context) => load(collection, context) };
}
