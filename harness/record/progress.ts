import { count, tokens as tokenFigure, usd } from '../internal/figures.js';
import { reduceSessionCeiling, sessionCeiling, type SessionCeiling } from './ceilings.js';
import type { CellId } from '../journal/run-folder.js';
import type { StopReason, SweepEvent, SweepEventOf } from '../journal/sweep-events.js';
import { rateShare, type RateView } from './rate-watch.js';

/**
 * What a person watching `harness record` sees, as pure functions of journal events: the
 * state is a fold over the same events a resume reads (so a resumed sweep shows the whole
 * sweep's spend at once), and a frame or a line is a function of that state and the time.
 * Only progress-display.ts writes to a terminal.
 */

export interface ProgressSetup {
  /** The manifest's name, shown as the heading. */
  readonly title: string;
  /** True when any pair is the simulated provider: the display says SIMULATED on its face. */
  readonly simulated: boolean;
  /** The cells this invocation records, in recording order. */
  readonly cells: readonly CellId[];
  /** The manifest file's max_sessions (a `ceiling_lowered` event lowers it for one invocation). */
  readonly manifestMaxSessions: number;
  /** Sessions this invocation is projected to start (from `plan`); the ETA uses it when given. Default: the room under the ceiling. */
  readonly projectedSessions?: number;
}

export type CellStatus = 'pending' | 'running' | 'measured' | 'unavailable' | 'unmeasured';

export interface ProgressState {
  readonly setup: ProgressSetup;
  readonly ceiling: SessionCeiling;
  /** Status of each cell of this invocation; the latest start or finish wins (a resume may start an unmeasured cell again). */
  readonly cells: Readonly<Record<CellId, CellStatus>>;
  /** Tokens of every finished session since the journal began. */
  readonly tokens: { readonly input: number; readonly cached: number; readonly output: number };
  /**
   * What the sweep paid, across every invocation, each live call once (journal/paid.ts): set by
   * the shell from the session gate ({@link withPaid}), never summed from sessions, whose spend
   * includes the calls a resume answered from transcripts.
   */
  readonly paidUsd: number;
  /** Finished sessions whose price is unknown: their calls are not in paidUsd. */
  readonly unpricedSessions: number;
  /** Each distinct cause of an unavailable cell, in the order first seen, and the cell it was first told for: a cause is told once, then referenced. */
  readonly causes: ReadonlyArray<{ readonly text: string; readonly cellId: CellId }>;
  /** This invocation: when it began (ms since the epoch) and what it has done since, for the rate. */
  readonly run: { readonly startedAt?: number; readonly started: number; readonly finished: number };
  readonly stopped?: { readonly reason: StopReason; readonly detail: string };
}

export function initialProgress(setup: ProgressSetup): ProgressState {
  return {
    setup,
    ceiling: sessionCeiling(setup.manifestMaxSessions),
    cells: Object.fromEntries(setup.cells.map((id) => [id, 'pending' as const])),
    tokens: { input: 0, cached: 0, output: 0 },
    paidUsd: 0,
    unpricedSessions: 0,
    causes: [],
    run: { started: 0, finished: 0 },
  };
}

/** One event's effect on what the display shows. */
export function reduceProgress(state: ProgressState, event: SweepEvent): ProgressState {
  const ceiling = reduceSessionCeiling(state.ceiling, event);
  const next = ceiling === state.ceiling ? state : { ...state, ceiling };
  switch (event.type) {
    case 'run_started': {
      const { stopped: _, ...rest } = next;
      return { ...rest, run: { startedAt: Date.parse(event.at), started: 0, finished: 0 } };
    }
    case 'cell_started':
      return event.cellId in state.cells ? { ...next, cells: { ...state.cells, [event.cellId]: 'running' } } : next;
    case 'cell_finished': {
      const { outcome } = event;
      const cause = outcome.status === 'unavailable' ? causeText(outcome) : undefined;
      const causes = cause !== undefined && !state.causes.some((c) => c.text === cause) ? [...state.causes, { text: cause, cellId: event.cellId }] : state.causes;
      return event.cellId in state.cells ? { ...next, causes, cells: { ...state.cells, [event.cellId]: outcome.status } } : { ...next, causes };
    }
    case 'session_started':
      return { ...next, run: { ...state.run, started: state.run.started + (event.reopened ? 0 : 1) } };
    case 'session_finished':
      return {
        ...next,
        tokens: { input: state.tokens.input + event.tokens.input, cached: state.tokens.cached + event.tokens.cached, output: state.tokens.output + event.tokens.output },
        unpricedSessions: state.unpricedSessions + (event.costUsd === null ? 1 : 0),
        run: { ...state.run, finished: state.run.finished + 1 },
      };
    case 'sweep_stopped':
      return { ...next, stopped: { reason: event.reason, detail: event.detail } };
    default:
      return next;
  }
}

/** The state with what the sweep has paid so far (the session gate's figure: every invocation's live calls). */
export function withPaid(state: ProgressState, paidUsd: number): ProgressState {
  return paidUsd === state.paidUsd ? state : { ...state, paidUsd };
}

/** An unavailable cell's cause as told: its reason and detail on one line. */
function causeText(outcome: { reason: string; detail: string }): string {
  return `${outcome.reason}: ${oneLine(outcome.detail)}`;
}

export function progressFrom(setup: ProgressSetup, events: readonly SweepEvent[]): ProgressState {
  return events.reduce(reduceProgress, initialProgress(setup));
}

/** 4s, 3m 07s, 2h 05m; a span past 99 hours is not worth a figure. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return h > 99 ? 'over 99h' : `${h}h ${String(m % 60).padStart(2, '0')}m`;
}

/**
 * The ETA line: sessions left over the rate measured in this invocation (so a resume after
 * a night away is not averaged over the night). Sessions left are the plan's projection
 * for this invocation when given and not yet used up, else the room under the ceiling;
 * the basis is printed beside the figure. Honest about having no rate yet.
 */
export function eta(state: ProgressState, now: number): string {
  const { run, ceiling, setup } = state;
  const n = tally(state);
  const elapsed = run.startedAt === undefined ? 0 : now - run.startedAt;
  if (run.finished === 0 || elapsed <= 0) return 'measuring (no session has finished yet)';
  const perMs = run.finished / elapsed;
  const rate = `${(perMs * 60_000).toPrecision(3)} sessions/min`;
  if (n.pending + n.running === 0) return `finishing (${rate})`;
  const room = Math.max(0, ceiling.maxSessions - ceiling.counted);
  const projected = setup.projectedSessions === undefined ? undefined : setup.projectedSessions - run.started;
  const useProjection = projected !== undefined && projected > 0 && projected < room;
  // Sessions in flight are part of what is left to wait for.
  const left = (useProjection ? projected : room) + ceiling.inFlight;
  const basis = useProjection ? 'projected to go' : projected !== undefined && projected <= 0 ? 'left under the ceiling; the projection is used up' : 'left under the ceiling';
  return `${duration(left / perMs)} at ${rate} (${count(left)} sessions ${basis})`;
}

const BAR = 24;

function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR, Math.round((BAR * done) / total)) : BAR;
  return `${'█'.repeat(filled)}${'░'.repeat(BAR - filled)}`;
}

function tally(state: ProgressState): Record<CellStatus, number> {
  const n: Record<CellStatus, number> = { pending: 0, running: 0, measured: 0, unavailable: 0, unmeasured: 0 };
  for (const status of Object.values(state.cells)) n[status]++;
  return n;
}

function spend(state: ProgressState): string {
  return `${usd(state.paidUsd)} paid${state.unpricedSessions > 0 ? ` + ${count(state.unpricedSessions)} unpriced sessions` : ''}`;
}

/** Cells that are done: measured. An unavailable or unmeasured cell is not done (a resume records it). */
function cellsLine(state: ProgressState, n: Record<CellStatus, number>): string {
  const notes = [n.unavailable > 0 ? `${n.unavailable} unavailable` : '', n.unmeasured > 0 ? `${n.unmeasured} unmeasured` : ''].filter(Boolean);
  return `${n.measured} measured · ${n.running} running · ${state.setup.cells.length} total${notes.length ? ` (${notes.join(', ')})` : ''}`;
}

export interface FrameOptions {
  /** Milliseconds since the epoch. */
  now: number;
  /** Terminal columns; lines are cut to fit so nothing wraps. Default 80. */
  width?: number;
  /** The rate controllers of an adaptive sweep, as last polled. Default none: a fixed sweep shows none. */
  rates?: readonly RateView[];
}

const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

/** One line per rate controller: its limit within its bounds, calls in flight and waiting, how it paces, and its 429s lately and overall. */
export function rateLines(views: readonly RateView[]): string[] {
  return views.map(({ status: s, recent }) => {
    const lately = recent.attempts > 0 ? `${percent(rateShare(recent.rateLimited, recent.attempts))} last ${Math.round(recent.seconds)}s` : 'none lately';
    const episodes = `${count(s.episodes)} episode${s.episodes === 1 ? '' : 's'}`;
    return `rate      ${oneLine(s.provider)}: limit ${count(s.limit)} (${count(s.min)}-${count(s.max)}) · ${count(s.inFlight)} in flight, ${count(s.waiting)} waiting · ${s.pacing} · 429s ${lately}, ${percent(rateShare(s.rateLimited, s.attempts))} of ${count(s.attempts)} overall · ${episodes}`;
  });
}

/** The plain line of a journaled controller change (coalesced by rate-watch.ts, so a pipe is never flooded). */
function rateChangeLine(e: SweepEventOf<'rate_control_changed'>): string {
  return `rate ${oneLine(e.provider)}${e.final ? ' final' : ''}: limit ${count(e.limit)} (${count(e.min)}-${count(e.max)}), ${e.pacing}, ${count(e.episodes)} episode${e.episodes === 1 ? '' : 's'}, 429s ${count(e.rateLimited)} of ${count(e.attempts)} (${percent(rateShare(e.rateLimited, e.attempts))})`;
}

/**
 * An unavailable cell's cause, said once: in full for the first cell it stopped, and as a
 * reference ("the cause given for cap1-rep1-gated") for every later cell it stopped too, so an
 * outage does not print one long cause in every row.
 */
function causeOf(state: ProgressState, cellId: CellId, outcome: { reason: string; detail: string }): string {
  const text = causeText(outcome);
  const first = state.causes.find((c) => c.text === text);
  return !first || first.cellId === cellId ? text : `${outcome.reason}: the cause given for ${first.cellId}`;
}

/** A stop's detail with any cause already told for a cell replaced by a reference to it. */
function toldOnce(state: ProgressState, detail: string): string {
  let out = detail;
  for (const c of state.causes) {
    const told = c.text.slice(c.text.indexOf(': ') + 2);
    if (told.length > 40 && out.includes(told)) out = out.replace(told, `the cause given for ${c.cellId}`);
  }
  return out;
}

/** The live block a terminal redraws in place. */
export function renderFrame(state: ProgressState, options: FrameOptions): string {
  const n = tally(state);
  const { ceiling } = state;
  const running = Object.entries(state.cells).filter(([, s]) => s === 'running').map(([id]) => id);
  const lowered = ceiling.maxSessions < ceiling.manifestMaxSessions ? ` (lowered from ${count(ceiling.manifestMaxSessions)})` : '';
  const lines = [
    `${state.setup.title}${state.setup.simulated ? ' · SIMULATED providers (planted parameters)' : ''}`,
    `cells     ${cellsLine(state, n)}`,
    ...(running.length ? [`          running ${running.join(', ')}`] : []),
    `sessions  ${bar(ceiling.counted, ceiling.maxSessions)}  ${count(ceiling.counted)} / ${count(ceiling.maxSessions)} ceiling${lowered} · ${count(ceiling.inFlight)} in flight`,
    `tokens    input ${tokenFigure(state.tokens.input)} (cached ${tokenFigure(state.tokens.cached)}) · output ${tokenFigure(state.tokens.output)}`,
    `spend     ${spend(state)}`,
    ...rateLines(options.rates ?? []),
    !state.stopped
      ? `eta       ${eta(state, options.now)}`
      : state.stopped.reason === 'completed'
        ? `finished  ${oneLine(state.stopped.detail)}`
        : `stopped   ${state.stopped.reason}: ${oneLine(state.stopped.detail)}`,
  ];
  const width = Math.max(20, options.width ?? 80);
  return lines.map((line) => (line.length < width ? line : `${line.slice(0, width - 2)}…`)).join('\n');
}

const clock = (iso: string) => iso.slice(11, 19);

/** Text from a provider or an error, made safe for a terminal: no control characters (an escape sequence could rewrite the screen), one line. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

/**
 * Off a terminal (CI, a pipe): one plain line per cell start and end, per journaled rate
 * controller change, and one when the sweep stops; undefined for every other event. `state` is the state AFTER the event.
 */
export function renderLine(state: ProgressState, event: SweepEvent): string | undefined {
  const total = state.setup.cells.length;
  const n = tally(state);
  const sessions = `${count(state.ceiling.counted)}/${count(state.ceiling.maxSessions)} sessions, ${spend(state)}`;
  const at = `[${clock(event.at)}]`;
  switch (event.type) {
    case 'cell_started': {
      const index = state.setup.cells.indexOf(event.cellId);
      return `${at} ${event.cellId} started (cell ${index >= 0 ? index + 1 : '?'} of ${total}) · ${sessions}`;
    }
    case 'cell_finished': {
      const { outcome } = event;
      const how = outcome.status === 'measured' ? 'measured' : outcome.status === 'unavailable' ? `unavailable (${causeOf(state, event.cellId, outcome)})` : 'unmeasured: the session ceiling was reached';
      return `${at} ${event.cellId} ${how} · ${n.measured} of ${total} measured · ${sessions}`;
    }
    case 'rate_control_changed':
      return `${at} ${rateChangeLine(event)}`;
    case 'sweep_stopped':
      return `${at} sweep ${event.reason === 'completed' ? 'finished' : `stopped (${event.reason})`}: ${toldOnce(state, oneLine(event.detail))}${event.unmeasured.length ? `; unmeasured: ${event.unmeasured.join(', ')}` : ''}`;
    default:
      return undefined;
  }
}
