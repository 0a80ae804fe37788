/**
 * The schemas of a run's recorded files, as data only: this module and everything it imports is
 * zod and plain data (no file, no process, no engine logic), so a reader of a run folder (the
 * results site) validates what the harness wrote without loading the engine. The architecture
 * test checks its import graph (tests/architecture.test.ts).
 *
 * | file (under runs/NAME/) | schema |
 * |---|---|
 * | pairs/PAIR/events.jsonl, cells/CELL/events.jsonl | `EngineEvent`, one per line |
 * | cells/CELL/result.json | `NodeResult` (the node tree) |
 * | cells/CELL/grade.json | `GradeResult` |
 * | report/report.json | `Report` |
 * | cells/CELL/transcripts/SESSION.jsonl | `TranscriptLine`, one per line (and the message shapes it holds) |
 */

// The engine's records, from the schema files themselves (zod only), not through engine/index.ts, which loads the engine.
export { EngineEvent, EVENT_VERSION } from '../engine/ports/events.js';
export { NodeResult } from '../engine/tree/node-result.js';
export { Check, CheckResult } from '../engine/base/check.js';
export { TRANSCRIPT_VERSION, TranscriptLine } from '../engine/adapters/transcript-line.js';
export { ChatMessage, ToolCall } from '../engine/ports/model-client.js';
export { Usage } from '../engine/base/usage.js';
// The harness's records.
export { GradeResult } from './grading/grading-report.js';
export * from './report/schemas.js';
