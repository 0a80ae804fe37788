/**
 * The sweep's storage: the journal and its header pins, the sweep's events, the measured
 * cell's payload, the run folder and its transcripts. harness/index.ts re-exports this.
 */
export * from './journal.js';
export { JournalPins, PinnedFolder, PinnedPair, JournalMismatchError, assertPinsMatch, collectPins, comparePins, firstDifference, pinPair, readHarnessVersion, type ComparePinsOptions, type PinComparison, type PinField, type PinSources } from './journal-header.js';
export { CodeIdentity, readCodeIdentity, type CodeIdentityOptions } from './code-identity.js';
export { FolderDigest, digestFolder } from './folder-digest.js';
export { JsonData, type JsonValue } from './json-value.js';
export * from './cell-measurement.js';
export { CellOutcome, SessionStop, SessionTokens, StopReason, SWEEP_JOURNAL, headerOf, readSweepJournal, type SweepEvent, type SweepEventInput, type SweepEventOf, type SweepEventType } from './sweep-events.js';
export * from './run-folder.js';
export { completedCalls, readTranscripts, type RecordedCall } from './transcripts.js';
