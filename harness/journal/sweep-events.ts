import { z } from 'zod';
import { ConcurrencyBounds } from '../manifest/concurrency.js';
import { Role } from '../../engine/index.js';
import { GradeResult } from '../grading/grading-report.js';
import { CodeIdentity } from './code-identity.js';
import { JsonData } from './json-value.js';
import { JournalPins } from './journal-header.js';
import { JournalInvalidError, journalEvent, journalFormat, readJournal, type JournalContents, type JournalInput, type ReadJournalOptions } from './journal.js';
import { CellMeasurement } from './cell-measurement.js';
import { CellId, parseCellId } from './run-folder.js';
import { SessionTokens } from './session-tokens.js';
import { LookPayload } from './look-taken.js';

export { SessionTokens };

/**
 * The sweep journal's vocabulary: one event per durable step of `harness record`. Every
 * event is version 1 (`rate_control_changed` is new with issue 22: a journal from before it
 * simply holds none) except `cell_finished` (2: its measured result got a schema) and
 * `grading_recorded` (2: GradeResult version 2); changing a
 * payload means a new version number, so an older harness refuses a journal it would misread.
 *
 * Payloads marked OPAQUE are produced by the engine or the cell runner and are not yet
 * pinned down here: they are any JSON, validated only as JSON. The cell runner's issue
 * replaces each with a real schema (and bumps that event's version).
 */

/** OPAQUE: any JSON value; the producer owns its shape for now. */
const Opaque = JsonData;
const Count = z.int().nonnegative();
const CellIds = z.array(CellId).min(1).describe('The cells this step serves: one, or both arms of a pair when planning and leaves are shared.');
/** Where a node sits in the tree, as the engine names it (the root is the empty path). OPAQUE format, engine-owned. */
const NodePath = z.string();
const Attempt = z.int().positive();


/**
 * Why a session ended. The unit ceilings (`max_turns`, `token_ceiling`, `cost_ceiling`) are
 * the harness's; `provider` means the provider stopped it (never the work's fault, so its
 * cell is unavailable rather than graded as a merge loss); `interrupted` is Ctrl-C or a
 * sweep stop; the engine's own brakes arrive as `engine` with its reason in `detail`.
 */
export const SessionStop = z.enum(['completed', 'max_turns', 'token_ceiling', 'cost_ceiling', 'provider', 'quota', 'interrupted', 'engine', 'error']);
export type SessionStop = z.infer<typeof SessionStop>;

const Header = journalEvent('header', 1, {
  manifestName: z.string(),
  pins: JournalPins,
});

/** One invocation of `harness record` began (the first, or a resume). */
const RunStarted = journalEvent('run_started', 1, {
  resume: z.boolean(),
  /** The caps this invocation records (`--depths`), ascending. */
  depths: z.array(z.int().positive()).min(1),
  /** A whole number: fixed sessions in flight; bounds: the adaptive controller's (see harness/manifest/concurrency.ts). */
  concurrency: z.union([z.int().positive(), ConcurrencyBounds]),
  /** The code this invocation runs; differs from the header's only under --allow-code-change. */
  code: CodeIdentity,
  harnessVersion: z.string().min(1),
  /** Caveats this invocation adds (e.g. CODE CHANGED); they travel to every artifact. */
  caveats: z.array(z.string()),
});

/** `--max-sessions` lowered the ceiling for this invocation (the manifest file is untouched). */
const CeilingLowered = journalEvent('ceiling_lowered', 1, {
  maxSessions: z.int().positive(),
  manifestMaxSessions: z.int().positive(),
}).refine((e) => e.maxSessions <= e.manifestMaxSessions, { message: 'a lowered ceiling cannot be above the manifest’s max_sessions', path: ['maxSessions'] });

const CellStarted = journalEvent('cell_started', 1, { cellId: CellId });

const PlanningRecorded = journalEvent('planning_recorded', 1, {
  cellIds: CellIds,
  /** OPAQUE: the planned tree, as the engine returns it; reused as is on resume. */
  tree: Opaque,
});

const SessionIdentity = {
  cellIds: CellIds,
  /** The engine's sessionId: one role's conversation for one node and attempt; spend and transcript are keyed by it. */
  sessionId: z.string().min(1),
  role: Role,
  nodePath: NodePath,
  attempt: Attempt,
};

const SessionStarted = journalEvent('session_started', 1, {
  ...SessionIdentity,
  /**
   * True when this session already started in an earlier invocation (a resume re-running
   * an interrupted cell): it is not counted against max_sessions a second time.
   */
  reopened: z.boolean(),
});

const SessionFinished = journalEvent('session_finished', 1, {
  ...SessionIdentity,
  turns: Count,
  tokens: SessionTokens,
  /** US dollars; null when the model's price is unknown (never read as free). */
  costUsd: z.number().nonnegative().nullable(),
  stop: SessionStop,
  /** For a stop other than `completed`: what happened, in one line. */
  detail: z.string().optional(),
});

const LeafBuilt = journalEvent('leaf_built', 1, {
  cellIds: CellIds,
  nodePath: NodePath,
  /** OPAQUE: the leaf's outcome (verdict, claims, delivery), engine-owned. */
  leaf: Opaque,
});

const MergeAttempt = journalEvent('merge_attempt', 1, {
  cellId: CellId,
  nodePath: NodePath,
  attempt: Attempt,
  /** OPAQUE: the merge's outcome (interface changes, artifacts), engine-owned. */
  merge: Opaque,
});

const Review = journalEvent('review', 1, {
  cellId: CellId,
  nodePath: NodePath,
  attempt: Attempt,
  /** `independent`: the gated arm's judge. `self`: the ungated arm's self-review, whose verdict is not used. */
  kind: z.enum(['independent', 'self']),
  /** `escalate` is recorded, never resolved: there is no person in a sweep. */
  verdict: z.enum(['approve', 'reject', 'escalate']),
  /** OPAQUE: findings and reasons, engine-owned. */
  review: Opaque,
});

/** The recorded-call client met a request that differs from the recorded one and went live for the rest of the session. */
const ReplaySwitch = journalEvent('replay_switch', 1, {
  cellIds: CellIds,
  sessionId: z.string().min(1),
  /** 0-based index of the first call answered live. */
  call: Count,
  /** What differed, in one line. */
  reason: z.string(),
});

/**
 * A sandbox host of the pair stopped answering mid-pair (a host pool drained it). The pair is
 * run again from the top on the hosts left, as a resume would: its completed model calls are
 * answered from its transcripts, and only the sandbox work is redone.
 */
const SandboxHostLost = journalEvent('sandbox_host_lost', 1, {
  cellIds: CellIds,
  /** The failure, in the lost host's own words (its URL and what the connection said). */
  detail: z.string(),
  /** Which re-run of the pair this loss starts (1 for the first). */
  rerun: z.number().int().positive(),
});

/** Version 2: the grade is a GradeResult version 2 (skipped entries, undeliverable, mode, compile; reasons never quote the oracle). */
const GradingRecorded = journalEvent('grading_recorded', 2, { cellId: CellId, grade: GradeResult });

/** How a cell ended. `unmeasured` is final only for this invocation: a later one with room under the ceiling may start the cell again. */
export const CellOutcome = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('measured'),
    /** The cell's leaves with their achieved levels and claims, its grade, merges, escalations and spend (cell-measurement.ts). */
    result: CellMeasurement,
  }),
  z.strictObject({
    status: z.literal('unavailable'),
    reason: z.enum(['provider', 'quota', 'ungradable', 'error']),
    detail: z.string(),
    /**
     * True when another try may cure it (a provider that stayed unreachable, or kept answering
     * 429s, for its whole patience): the same command re-runs the cell, answering every call it
     * transcribed from the record. False or absent (journals from before it existed): permanent,
     * re-run only with `--retry-unavailable`.
     */
    transient: z.boolean().optional(),
  }),
  z.strictObject({ status: z.literal('unmeasured'), reason: z.literal('ceiling') }),
]);
export type CellOutcome = z.infer<typeof CellOutcome>;

/** Version 2: a measured outcome carries a CellMeasurement (version 1 carried opaque JSON). */
const CellFinished = journalEvent('cell_finished', 2, { cellId: CellId, outcome: CellOutcome }).superRefine((event, ctx) => {
  if (event.outcome.status !== 'measured') return;
  const { cap, arm, repetition } = event.outcome.result;
  const named = parseCellId(event.cellId);
  if (named && (named.cap !== cap || named.arm !== arm || named.repetition !== repetition)) {
    ctx.addIssue({ code: 'custom', path: ['outcome', 'result'], message: `measures cap${cap}-rep${repetition}-${arm}, not the event's cell ${event.cellId}` });
  }
});

/** `unreachable`: a provider failed for its whole patience, so the sweep stopped (the same command resumes it once the provider answers). */
export const StopReason = z.enum(['completed', 'ceiling', 'quota', 'fatal', 'unreachable', 'interrupted']);
export type StopReason = z.infer<typeof StopReason>;

/** The invocation ended: every cell done, or a ceiling, the quota, a failure true of every cell, or Ctrl-C. */
const SweepStopped = journalEvent('sweep_stopped', 1, {
  reason: StopReason,
  detail: z.string(),
  /** Cells of this invocation left without a measurement. */
  unmeasured: z.array(CellId),
});

/**
 * What a rate controller (engine/ports/rate-control.ts, one per provider key) stood at, copied
 * from its own status so the journal and the controller never disagree. Written COALESCED by
 * harness/record/rate-watch.ts: when its limit or pacing moved, at most once per controller
 * per interval, plus one `final` at the end of the invocation. Counts run from the
 * controller's start, i.e. this invocation (a resume starts a new controller).
 */
const RateControlChanged = journalEvent('rate_control_changed', 1, {
  /** The provider's name, as the configuration gives it (never its key). */
  provider: z.string().min(1),
  /** Calls in flight it allows, within [min, max]. */
  limit: z.int().positive(),
  min: z.int().positive(),
  max: z.int().positive(),
  pacing: z.enum(['headers', 'aimd', 'fixed']),
  /** Rate-limit episodes (429s within one cool-down count once), attempts reported and 429s among them. */
  episodes: Count,
  attempts: Count,
  rateLimited: Count,
  /** True for the invocation's last figures (the sweep ended, or was stopped). */
  final: z.boolean(),
}).refine((e) => e.min <= e.limit && e.limit <= e.max, { message: 'the limit lies outside [min, max]', path: ['limit'] })
  .refine((e) => e.rateLimited <= e.attempts, { message: 'more 429s than attempts', path: ['rateLimited'] });

/**
 * `harness report --look` ruled on the pre-registered hypothesis (look-taken.ts): the one
 * event a command other than `record` appends, under the same lock. New with issue 30: a
 * journal from before it holds none, and record, resume and replay pass over it.
 */
const LookTaken = journalEvent('look_taken', 1, LookPayload);

export const SWEEP_JOURNAL = journalFormat('sweep journal', [
  Header,
  RunStarted,
  CeilingLowered,
  CellStarted,
  PlanningRecorded,
  SessionStarted,
  SessionFinished,
  LeafBuilt,
  MergeAttempt,
  Review,
  ReplaySwitch,
  SandboxHostLost,
  GradingRecorded,
  CellFinished,
  SweepStopped,
  RateControlChanged,
  LookTaken,
]);

export type SweepEvent = z.output<(typeof SWEEP_JOURNAL)['schema']>;
export type SweepEventType = SweepEvent['type'];
/** What a caller appends: an event without version, seq and time. */
export type SweepEventInput = JournalInput<SweepEvent>;
export type SweepEventOf<T extends SweepEventType> = Extract<SweepEvent, { type: T }>;

/**
 * Reads a sweep journal: every line validated, plus the sweep's own structure (the header is
 * event 1 and appears once). A journal without a header, e.g. one interrupted before its
 * first fsync, holds nothing durable and reads as new.
 */
export async function readSweepJournal(file: string, options: ReadJournalOptions = {}): Promise<JournalContents<SweepEvent>> {
  const contents = await readJournal(file, SWEEP_JOURNAL, options);
  const shownAs = options.shownAs ?? file;
  const first = contents.events[0];
  if (first && first.type !== 'header') {
    throw new JournalInvalidError('structure', 1, `${shownAs} line 1: begins with a ${first.type} event, not the header, so it was not written by harness record; record into a new --out`);
  }
  const second = contents.events.find((e, i) => i > 0 && e.type === 'header');
  if (second) {
    throw new JournalInvalidError('structure', 0, `${shownAs}: event ${second.seq} is a second header, so two sweeps were written into one file; restore the journal from a copy, or record into a new --out`);
  }
  return contents;
}

/** The header of a read journal; undefined for a new one. */
export function headerOf(contents: JournalContents<SweepEvent>): SweepEventOf<'header'> | undefined {
  const first = contents.events[0];
  return first?.type === 'header' ? first : undefined;
}
