import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CellId, EngineEvent, GradeResult, NodeResult, Report, TranscriptLine, parseCellId, runPaths, sessionFileName, type CellKey } from '../../../harness/run-files.js';
import { linkedCharts, type LinkedChart } from './linked-charts.js';
import { conversation, paginate, type Block, type SessionTotals } from './conversation.js';
import { cellTree, type CellTree, type SessionLink } from './node-tree.js';
import { RunFileInvalidError, readJson, readJsonl } from './run-file-read.js';
import { sessionSlug } from './slug.js';
import { assertPlainSvg } from './svg-check.js';

/**
 * Everything the site shows, read from the staged data folder (`<data>/runs/<run>/...`, the
 * allowlisted copy make_site.sh made) and validated file by file against the harness's own
 * schemas, one run at a time. The content loader turns what this returns into index entries
 * and views (see views.ts).
 */

export interface ChartView {
  name: string;
  title: string;
  /** Path of the report's SVG, relative to the data folder. */
  file: string;
  width: number | null;
  height: number | null;
}

export interface RunView {
  name: string;
  report: Report;
  charts: ChartView[];
  /** Every chart drawn again for the sweep page, each figure a link (a cell's page, or its table row); see linked-charts.ts. */
  linkedCharts: LinkedChart[];
  /** Cells with a folder, so with a page. */
  cellPages: string[];
}

export interface SessionView extends SessionLink {
  run: string;
  cell: string;
  nodeId: string;
  /** The transcript, relative to the data folder. */
  file: string;
  pages: number;
  totals: SessionTotals;
  torn: boolean;
}

export interface CellView extends CellKey {
  run: string;
  id: string;
  tree: CellTree | null;
  grade: GradeResult | null;
  row: Report['cells'][number] | null;
  sessions: SessionView[];
  /** Files of the cell that were cut short by a stop (a torn last line, dropped). */
  torn: string[];
}

/** A session's conversation, cut into pages. */
export interface SessionPages {
  session: SessionView;
  pages: Block[][];
}

/** One run, every file of it validated: the run, its cells, and each session's pages. */
export interface RunData {
  run: RunView;
  cells: CellView[];
  sessions: SessionPages[];
}

const exists = (file: string) => stat(file).then(() => true, () => false);

async function dirs(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** Width and height from an SVG's root element, so an <img> reserves its space before it loads. */
function svgSize(svg: string): { width: number | null; height: number | null } {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const num = (name: string) => {
    const m = new RegExp(`\\s${name}="([0-9.]+)"`).exec(root);
    return m ? Math.round(Number(m[1])) : null;
  };
  return { width: num('width'), height: num('height') };
}

/** Every file of the staged run `name`, validated. A file that does not match its schema stops the build with its name, line and field. */
export async function readRun(dataDir: string, name: string): Promise<RunData> {
  const root = path.join(dataDir, 'runs', name);
  const shown = `runs/${name}`;
  const paths = runPaths(root);
  const report = await readJson(path.join(paths.report, 'report.json'), Report, `${shown}/report/report.json`);
  const charts: ChartView[] = [];
  for (const chart of report.charts) {
    const file = path.join(paths.report, chart.svg);
    if (!file.startsWith(paths.report + path.sep) || !(await exists(file))) continue;
    const svg = await readFile(file, 'utf8');
    assertPlainSvg(svg, `${shown}/report/${chart.svg}`);
    charts.push({ name: chart.name, title: chart.title, file: path.relative(dataDir, file), ...svgSize(svg) });
  }
  const cellIds = (await dirs(paths.cells)).filter((id) => CellId.safeParse(id).success);
  const out: RunData = { run: { name, report, charts, linkedCharts: await linkedCharts(report, new Set(cellIds), `${shown}/report/report.json`), cellPages: cellIds }, cells: [], sessions: [] };
  for (const id of cellIds) out.cells.push(await readCell(dataDir, name, id, report, out));
  return out;
}

async function readCell(dataDir: string, run: string, id: string, report: Report, out: RunData): Promise<CellView> {
  const paths = runPaths(path.join(dataDir, 'runs', run)).cell(id);
  const shown = `runs/${run}/cells/${id}`;
  const torn: string[] = [];
  const result = (await exists(paths.result)) ? await readJson(paths.result, NodeResult, `${shown}/result.json`) : null;
  const grade = (await exists(paths.grade)) ? await readJson(paths.grade, GradeResult, `${shown}/grade.json`) : null;
  let events: EngineEvent[] = [];
  if (await exists(paths.events)) {
    const read = await readJsonl(paths.events, EngineEvent, `${shown}/events.jsonl`);
    events = read.records;
    if (read.torn) torn.push('events.jsonl');
  }
  const cost = new Map<string, number>();
  for (const e of events) if (e.type === 'charge') cost.set(e.sessionId, (cost.get(e.sessionId) ?? 0) + e.costUsd);
  const sessions: SessionView[] = [];
  const slugs = new Set<string>();
  for (const file of (await readdir(paths.transcripts).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort()) {
    const shownFile = `${shown}/transcripts/${file}`;
    const { records, torn: cut } = await readJsonl(path.join(paths.transcripts, file), TranscriptLine, shownFile);
    if (cut) torn.push(`transcripts/${file}`);
    const first = records[0];
    if (!first) continue;
    if (records.some((r) => r.sessionId !== first.sessionId)) throw new RunFileInvalidError(`${shownFile}: holds lines of more than one session; one file is one session`);
    if (sessionFileName(first.sessionId) !== file) throw new RunFileInvalidError(`${shownFile}: its lines belong to a session whose transcript is named ${sessionFileName(first.sessionId)}; the file was renamed or copied by hand`);
    const slug = sessionSlug(first.sessionId);
    if (slugs.has(slug)) throw new RunFileInvalidError(`${shownFile}: two transcripts share one session`);
    slugs.add(slug);
    const { blocks, totals } = conversation(records);
    const pages = paginate(blocks);
    const session: SessionView = {
      run, cell: id, slug, sessionId: first.sessionId, nodeId: first.nodeId, role: first.role, attempt: first.attempt, calls: totals.calls, models: totals.models,
      costUsd: cost.get(first.sessionId) ?? null, file: path.relative(dataDir, path.join(paths.transcripts, file)), pages: pages.length, totals, torn: cut,
    };
    sessions.push(session);
    out.sessions.push({ session, pages });
  }
  const key = parseCellId(id)!;
  return {
    ...key, run, id,
    tree: result ? cellTree(result, events, sessions) : null,
    grade,
    row: report.cells.find((c) => c.id === id) ?? null,
    sessions,
    torn,
  };
}

/** The staged runs' names. */
export async function stagedRuns(dataDir: string): Promise<string[]> {
  return dirs(path.join(dataDir, 'runs'));
}
