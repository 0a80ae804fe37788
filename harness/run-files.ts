/**
 * The files of a recorded run as data: the zod schema of every file a reader of a run folder
 * parses, the folder's layout, and the catalogue of what those files must never contain.
 *
 * This is the one module of harness/ and engine/ that the results site (site/) may import
 * (tests/architecture.test.ts holds that rule). It does no IO and holds no logic of its own:
 * it only names, in one place, the schemas the harness writes each file with (and the pure
 * functions that draw the report's charts from report.json), so the site validates a file
 * against exactly what wrote it.
 *
 * | file (under runs/NAME/) | schema |
 * |---|---|
 * | journal.jsonl | `SWEEP_JOURNAL.schema`, one event per line |
 * | pairs/PAIR/events.jsonl | `EngineEvent`, one per line: a pair's shared build (no `arm`) |
 * | cells/CELL/events.jsonl | `EngineEvent`, one per line: the cell's own arm |
 * | cells/CELL/transcripts/SESSION.jsonl | `TranscriptLine`, one per line |
 * | cells/CELL/result.json | `NodeResult` (the node tree) |
 * | cells/CELL/grade.json | `GradeResult` |
 * | report/report.json | `Report` |
 * | report/charts/NAME.vl.json | a vega-lite spec (`report.charts` names each chart and its SVG) |
 */

// The engine's records: events, transcripts, the node tree, and the secret catalogue.
export {
  EngineEvent,
  EVENT_VERSION,
  TranscriptLine,
  TRANSCRIPT_VERSION,
  ChatMessage,
  ToolCall,
  Role,
  Usage,
  Verdict,
  Check,
  CheckResult,
  NodeResult,
  NodeStop,
  flatten,
  SecretCatalogue,
  SECRET_SHAPES,
  SECRET_KINDS,
  MIN_KNOWN_LENGTH,
  type EngineEventType,
  type SecretHit,
  type SecretKind,
} from '../engine/index.js';

// The harness's records: the journal, the oracle's grade, and where each file lives.
export { SWEEP_JOURNAL, CellOutcome, type SweepEvent, type SweepEventType } from './journal/sweep-events.js';
export { JournalEnvelope } from './journal/journal-format.js';
export { CellId, PairId, cellId, pairId, pairOfCell, parseCellId, runPaths, sessionFileName, type CellKey, type CellPaths, type PairPaths, type RunPaths } from './journal/run-folder.js';
export { GradeResult } from './grading/grading-report.js';
export { Arm, ARMS } from './manifest/manifest.js';
export * from './report/schemas.js';

// The pure code report.md and the charts are written with, so the site's sweep page says exactly
// what the report says, and its linked copy of the cells chart (every dot a link to its cell) is
// drawn from report.json exactly as the report drew it.
export { CHARTS, chartSpecs } from './report/chart-list.js';
export { renderMarkdown } from './report/report-markdown.js';
export { renderSvg, type RenderedChart } from './report/render-svg.js';
// How the report prints a figure, so the site's headline strip prints each one exactly as report.md does.
export { estimateText, truthText, percent, share, IDENTICAL_BY_DESIGN } from './report/report-format.js';
