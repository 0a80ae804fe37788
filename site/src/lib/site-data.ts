import { readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { EngineEvent, GradeResult, NodeResult, Report } from '../../../harness/run-file-schemas.js';
import { TranscriptLine } from '../../../harness/run-file-schemas.js';
import { CellId, pairOfCell, parseCellId, runPaths, sessionFileName } from '../../../harness/run-files.js';
import { linkedCharts, type LinkedChart } from './linked-charts.js';
import { blockSize, conversation, paginate, sessionTotals, type Block, type SessionTotals } from './conversation.js';
import { SessionPacker, getsPage, killedLeavesByPair } from './session-pages.js';
import { TextStore, blockTexts, countSections, storeLongTexts } from './transcript-texts.js';
import { cellStories, type CellRead } from './cell-story.js';
import type { CellView, SessionView } from './site-views.js';

export type { CellView, SessionCounts, SessionView } from './site-views.js';
import { RunFileInvalidError, parseJsonl, readJson, readJsonl } from './run-file-read.js';
import { sessionSlug } from './slug.js';
import { reviewFields } from './merge-story.js';
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

/** A session's conversation, cut into pages. */
export interface SessionPages {
  session: SessionView;
  pages: Block[][];
}

/** One run, every file of it validated: the run, its cells, and each session's pages (unless a hook took them). */
export interface RunData {
  run: RunView;
  cells: CellView[];
  sessions: SessionPages[];
}

/**
 * Where readRun hands what it derives as it goes, so a sweep of thousands of sessions is never
 * held whole: each session's pages, each long text (once per key), each cell's transcripts.
 * Without hooks, sessions are collected in RunData.sessions and texts and transcripts dropped.
 */
export interface RunHooks {
  session?(pages: SessionPages): Promise<void>;
  /** A long text of the run's transcripts, told once per key (see transcript-texts.ts). */
  text?(key: string, text: string): void;
  /** A cell's transcript files as read (validated, byte for byte), in file-name order. */
  transcripts?(cell: string, files: Array<{ name: string; text: string }>): Promise<void>;
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
export async function readRun(dataDir: string, name: string, hooks: RunHooks = {}): Promise<RunData> {
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
  const sink = new TextStore(hooks.text);
  const read: CellRead[] = [];
  const killed = killedLeavesByPair(report.claims, pairOfCell);
  for (const id of cellIds) read.push(await readCell(dataDir, name, id, report, { out, hooks, sink, killedLeaves: killed.get(pairOfCell(id)) ?? new Set() }));
  // A cell's page links the sessions its partner's folder holds, so trees are drawn once every cell is read.
  out.cells.push(...cellStories(read, report));
  return out;
}

async function readCell(dataDir: string, run: string, id: string, report: Report, to: { out: RunData; hooks: RunHooks; sink: TextStore; killedLeaves: ReadonlySet<string> }): Promise<CellRead> {
  const paths = runPaths(path.join(dataDir, 'runs', run)).cell(id);
  const shown = `runs/${run}/cells/${id}`;
  const torn: string[] = [];
  const result = (await exists(paths.result)) ? await readJson(paths.result, NodeResult, `${shown}/result.json`) : null;
  const grade = (await exists(paths.grade)) ? await readJson(paths.grade, GradeResult, `${shown}/grade.json`) : null;
  // The cell's own arm's events, and its pair's shared build (one file both cells of the pair read).
  const pairEventsFile = runPaths(path.join(dataDir, 'runs', run)).pair(pairOfCell(id)).events;
  const pairShown = `runs/${run}/pairs/${pairOfCell(id)}/events.jsonl`;
  const readEvents = async (file: string, shownAs: string, tornAs: string): Promise<EngineEvent[]> => {
    if (!(await exists(file))) return [];
    const read = await readJsonl(file, EngineEvent, shownAs);
    if (read.torn) torn.push(tornAs);
    return read.records;
  };
  const own = await readEvents(paths.events, `${shown}/events.jsonl`, 'events.jsonl');
  const shared = await readEvents(pairEventsFile, pairShown, `pairs/${pairOfCell(id)}/events.jsonl`);
  const events = [...shared, ...own];
  const row = report.cells.find((c) => c.id === id) ?? null;
  const cost = new Map<string, number>();
  for (const e of events) if (e.type === 'charge') cost.set(e.sessionId, (cost.get(e.sessionId) ?? 0) + e.costUsd);
  // A session without a charge event: the report's spend is the one definition, so a cell it says cost nothing shows $0, not "unknown".
  const costOf = (sessionId: string): number | null => cost.get(sessionId) ?? (row && row.spend.costUsd === 0 && row.spend.unpricedSessions === 0 ? 0 : null);
  const sessions: SessionView[] = [];
  const slugs = new Set<string>();
  const raw: Array<{ name: string; text: string }> = [];
  // A session without a transcript shown (session-pages.ts) needs its figures only, not its conversation.
  const parsed: Array<{ file: string; first: TranscriptLine; cut: boolean; blocks: Block[] | null; totals: SessionTotals }> = [];
  for (const file of (await readdir(paths.transcripts).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort()) {
    const shownFile = `${shown}/transcripts/${file}`;
    // Read synchronously: the loader has nothing else to do meanwhile, and each asynchronous read was four round trips to the thread pool that the loader sat idle through.
    const text = readFileSync(path.join(paths.transcripts, file), 'utf8');
    const { records, torn: cut } = parseJsonl(text, TranscriptLine, shownFile);
    if (cut) torn.push(`transcripts/${file}`);
    const first = records[0];
    if (!first) continue;
    if (records.some((r) => r.sessionId !== first.sessionId)) throw new RunFileInvalidError(`${shownFile}: holds lines of more than one session; one file is one session`);
    if (sessionFileName(first.sessionId) !== file) throw new RunFileInvalidError(`${shownFile}: its lines belong to a session whose transcript is named ${sessionFileName(first.sessionId)}; the file was renamed or copied by hand`);
    const slug = sessionSlug(first.sessionId);
    if (slugs.has(slug)) throw new RunFileInvalidError(`${shownFile}: two transcripts share one session`);
    slugs.add(slug);
    raw.push({ name: file, text });
    parsed.push({ file, first, cut, ...(getsPage(first.sessionId, first.nodeId, to.killedLeaves) ? conversation(records) : { blocks: null, totals: sessionTotals(records) }) });
  }
  // Two passes: the shown sessions' sections are counted first, so a text they share is cut the same way in each (transcript-texts.ts).
  const counts = countSections(parsed.flatMap((r) => (r.blocks ? [...blockTexts(r.blocks)] : [])));
  const packer = new SessionPacker();
  for (const { file, first, cut, blocks, totals } of parsed.splice(0)) {
    // A session without a transcript shown stores no texts: nothing would link them.
    const pages = blocks ? paginate(storeLongTexts(blocks, to.sink, counts)) : [];
    const { packs, ordinal } = packer.place(pages.map((blocks) => blocks.reduce((n, b) => n + blockSize(b), 0)));
    const session: SessionView = {
      run, cell: id, slug: sessionSlug(first.sessionId), sessionId: first.sessionId, nodeId: first.nodeId, role: first.role, attempt: first.attempt, calls: totals.calls, models: totals.models,
      costUsd: costOf(first.sessionId), file: path.relative(dataDir, path.join(paths.transcripts, file)), packs, pack: packs[0] ?? 0, ordinal, totals, torn: cut,
      review: reviewFields(events, { nodeId: first.nodeId, role: first.role, attempt: first.attempt }),
    };
    sessions.push(session);
    if (pages.length === 0) continue;
    if (to.hooks.session) await to.hooks.session({ session, pages });
    else to.out.sessions.push({ session, pages });
  }
  if (raw.length > 0) await to.hooks.transcripts?.(id, raw);
  const key = parseCellId(id)!;
  return { key, id, run, result, grade, row, sessions, events, sharedCharged: chargedSessions(shared), torn };
}

/** The sessions a file's charge events name. */
function chargedSessions(events: readonly EngineEvent[]): Set<string> {
  return new Set(events.flatMap((e) => (e.type === 'charge' ? [e.sessionId] : [])));
}

/** The staged runs' names. */
export async function stagedRuns(dataDir: string): Promise<string[]> {
  return dirs(path.join(dataDir, 'runs'));
}
