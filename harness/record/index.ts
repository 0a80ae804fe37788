/**
 * `harness record`: the sweep loop (its simulated population passed in by harness/commands/record.ts), a pair's model sessions, the ceilings and the session
 * gate, the recorded-call client, the live progress and the summary. harness/index.ts
 * re-exports this.
 */
export * from './ceilings.js';
export { duration, eta, initialProgress, oneLine, progressFrom, reduceProgress, renderFrame, renderLine, type CellStatus, type FrameOptions, type ProgressSetup, type ProgressState } from './progress.js';
export { createProgressDisplay, type ProgressDisplay, type ProgressDisplayOptions, type ProgressStream } from './progress-display.js';
export { recordRun, type RecordFlags, type RecordResult, type RecordSeams } from './record.js';
export { endLine, exitOfEnd, resumeTable, sweepEnd, type SweepCounts, type SweepEnd } from './sweep-exit.js';
export { countsLine, stagedCounts } from './run-summary.js';
export { leftoversLine, newRunId, removeLeftovers, type Leftovers } from './run-leftovers.js';
export { RecordedCallClient, ReplayDivergenceError, mismatch, normaliseText, type RecordedCallClientOptions, type ReplayMode } from './recorded-client.js';
export { SessionGate, SessionRefusedError } from './session-gate.js';
export { openRunFolder, type OpenRunOptions, type OpenedRun } from './run-opening.js';
export { sweepModels, type SimulatedPopulation, type SweepModels } from './sweep-models.js';
