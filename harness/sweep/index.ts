/**
 * The sweep's storage and progress: the journal and its header pins, the sweep's events,
 * the run folder, the ceilings and the live display. harness/index.ts re-exports this.
 */
export * from './journal.js';
export { JournalPins, PinnedFolder, PinnedPair, JournalMismatchError, assertPinsMatch, collectPins, comparePins, firstDifference, pinPair, readHarnessVersion, type ComparePinsOptions, type PinComparison, type PinField, type PinSources } from './journal-header.js';
export { CodeIdentity, readCodeIdentity, type CodeIdentityOptions } from './code-identity.js';
export { FolderDigest, digestFolder } from './folder-digest.js';
export { JsonData, type JsonValue } from './json-value.js';
export * from './cell-measurement.js';
export { CellOutcome, SessionStop, SessionTokens, StopReason, SWEEP_JOURNAL, headerOf, readSweepJournal, type SweepEvent, type SweepEventInput, type SweepEventOf, type SweepEventType } from './sweep-events.js';
export * from './run-folder.js';
export * from './ceilings.js';
export { duration, eta, initialProgress, oneLine, progressFrom, reduceProgress, renderFrame, renderLine, type CellStatus, type FrameOptions, type ProgressSetup, type ProgressState } from './progress.js';
export { createProgressDisplay, type ProgressDisplay, type ProgressDisplayOptions, type ProgressStream } from './progress-display.js';
export { runRecord, type RecordFlags, type RecordResult, type RecordSeams } from './record.js';
export { RecordedCallClient, ReplayDivergenceError, mismatch, normaliseText, type RecordedCallClientOptions, type ReplayMode } from './recorded-client.js';
export { completedCalls, readTranscripts, type RecordedCall } from './transcripts.js';
export { SessionGate, SessionRefusedError } from './session-gate.js';
