import { count, tokens as tokenFigure, usd } from '../internal/figures.js';
import type { Manifest } from '../manifest/manifest.js';
import { cellSessions, treeShape } from '../plan/plan-arithmetic.js';
import type { SessionTokens, SweepEvent } from '../journal/sweep-events.js';

/**
 * The sweep's ceilings, as pure state and pure transitions: no clock, no files. The sweep
 * runner folds journal events into the session ceiling and asks `mayDispatch` before every
 * session; the session runner folds model calls into a unit's spend and asks `mayContinue`
 * before every call.
 */

/** max_sessions, counted across every invocation of one journal. */
export interface SessionCeiling {
  /** The manifest file's max_sessions. */
  readonly manifestMaxSessions: number;
  /** The ceiling in force for the current invocation: the manifest's, or what `--max-sessions` lowered it to. */
  readonly maxSessions: number;
  /** Sessions started since the journal began, each counted once however often a resume re-opens it. */
  readonly counted: number;
  /** Sessions started and not yet finished in the current invocation. */
  readonly inFlight: number;
}

export function sessionCeiling(manifestMaxSessions: number): SessionCeiling {
  return { manifestMaxSessions, maxSessions: manifestMaxSessions, counted: 0, inFlight: 0 };
}

/**
 * One journal event's effect on the session ceiling. Apply each event when it is appended,
 * synchronously, before awaiting the append: then two dispatches can never both pass a
 * check that only one of them fits. Each invocation (`run_started`) starts at the
 * manifest's ceiling; a `ceiling_lowered` after it lowers that invocation's ceiling only.
 */
export function reduceSessionCeiling(state: SessionCeiling, event: SweepEvent): SessionCeiling {
  switch (event.type) {
    case 'run_started':
      // Sessions in flight when the last invocation died will not finish; their count stays.
      return { ...state, maxSessions: state.manifestMaxSessions, inFlight: 0 };
    case 'ceiling_lowered':
      return { ...state, manifestMaxSessions: event.manifestMaxSessions, maxSessions: event.maxSessions };
    case 'session_started':
      return { ...state, counted: state.counted + (event.reopened ? 0 : 1), inFlight: state.inFlight + 1 };
    case 'session_finished':
      return { ...state, inFlight: Math.max(0, state.inFlight - 1) };
    default:
      return state;
  }
}

/** The session ceiling after every event of a journal (what a resume starts from). */
export function sessionCeilingFrom(events: readonly SweepEvent[], manifestMaxSessions: number): SessionCeiling {
  return events.reduce(reduceSessionCeiling, sessionCeiling(manifestMaxSessions));
}

export type DispatchDecision = { ok: true; remaining: number } | { ok: false; message: string };

/**
 * May one more session be dispatched? Checked BEFORE dispatch, never after: when the next
 * session would pass the ceiling, nothing more is dispatched, and the sessions in flight
 * finish. A session re-opened by a resume was counted when it first started and is
 * always allowed to finish its work.
 */
export function mayDispatch(state: SessionCeiling, session: { reopened?: boolean } = {}): DispatchDecision {
  const remaining = Math.max(0, state.maxSessions - state.counted);
  if (session.reopened || remaining > 0) return { ok: true, remaining };
  const lowered = state.maxSessions < state.manifestMaxSessions ? `, lowered by --max-sessions from ${count(state.manifestMaxSessions)}` : '';
  return {
    ok: false,
    message: `the session ceiling is reached: ${count(state.counted)} sessions started since this sweep began, max_sessions ${count(state.maxSessions)}${lowered}; nothing more is dispatched`,
  };
}

/**
 * max_cost_usd, across every invocation of one journal: what the sweep has paid (every live
 * call, from the transcripts, which hold each call once however often a resume answers it
 * again) and the most the calls in flight could still cost.
 */
export interface CostCeiling {
  /** The manifest's max_cost_usd; null when it names none. */
  readonly maxUsd: number | null;
  /** US dollars of every live call answered so far, this invocation's and earlier ones'. */
  readonly paidUsd: number;
  /** The worst case of the calls dispatched and not yet answered. */
  readonly inFlightUsd: number;
}

export function costCeiling(maxUsd: number | null, paidUsd: number): CostCeiling {
  return { maxUsd, paidUsd, inFlightUsd: 0 };
}

/**
 * May one more call be dispatched, whose worst case is `worstUsd`? Checked BEFORE the call,
 * against what was paid plus the worst case of every call in flight, so the bill can never pass
 * the ceiling even when the calls in flight all cost their most.
 */
export function mayCall(state: CostCeiling, worstUsd: number): DispatchDecision {
  if (state.maxUsd === null) return { ok: true, remaining: Infinity };
  const committed = state.paidUsd + state.inFlightUsd;
  if (committed + worstUsd <= state.maxUsd) return { ok: true, remaining: state.maxUsd - committed - worstUsd };
  return {
    ok: false,
    message: `the cost ceiling is reached: ${usd(state.paidUsd)} paid and up to ${usd(state.inFlightUsd)} in flight, and the next call could cost ${usd(worstUsd)}, against max_cost_usd ${usd(state.maxUsd)}; nothing more is dispatched`,
  };
}

/** A call dispatched (its worst case now in flight), or answered (paid what it cost, its worst case released). */
export function reduceCost(state: CostCeiling, change: { dispatched: number } | { answered: { worstUsd: number; paidUsd: number } }): CostCeiling {
  if ('dispatched' in change) return { ...state, inFlightUsd: state.inFlightUsd + change.dispatched };
  return { ...state, inFlightUsd: Math.max(0, state.inFlightUsd - change.answered.worstUsd), paidUsd: state.paidUsd + change.answered.paidUsd };
}

/** One session's ceilings (the manifest's `unit`). */
export interface UnitCeilings {
  readonly maxTurns: number;
  /** Input + output tokens. */
  readonly tokenCeiling: number;
  readonly costCeilingUsd: number;
}

export function unitCeilings(manifest: Pick<Manifest, 'unit'>): UnitCeilings {
  return { maxTurns: manifest.unit.max_turns, tokenCeiling: manifest.unit.token_ceiling, costCeilingUsd: manifest.unit.cost_ceiling_usd };
}

/** What one session has spent so far. */
export interface UnitSpend {
  readonly turns: number;
  readonly tokens: SessionTokens;
  /** US dollars of the calls whose price is known. */
  readonly costUsd: number;
  /** Calls whose price was unknown: the cost ceiling cannot see them, the token ceiling still does. */
  readonly unpricedCalls: number;
}

export const NO_SPEND: UnitSpend = { turns: 0, tokens: { input: 0, cached: 0, output: 0 }, costUsd: 0, unpricedCalls: 0 };

/** One model call, as the unit ceilings count it. */
export interface UnitCall {
  readonly inputTokens: number;
  /** The part of inputTokens served from the prompt cache. */
  readonly cachedTokens: number;
  readonly outputTokens: number;
  /** null when the price is unknown. */
  readonly costUsd: number | null;
}

const whole = (n: number) => Number.isInteger(n) && n >= 0;

/** Adds one call (one turn) to a session's spend. Refuses figures that are not figures: a missing usage is never read as zero. */
export function reduceUnit(spend: UnitSpend, call: UnitCall): UnitSpend {
  if (!whole(call.inputTokens) || !whole(call.cachedTokens) || !whole(call.outputTokens) || call.cachedTokens > call.inputTokens) {
    throw new RangeError(`a model call reported unusable token counts (input ${call.inputTokens}, cached ${call.cachedTokens}, output ${call.outputTokens}); usage must be whole numbers with cached within input`);
  }
  if (call.costUsd !== null && !(Number.isFinite(call.costUsd) && call.costUsd >= 0)) throw new RangeError(`a model call reported an unusable cost (${call.costUsd})`);
  return {
    turns: spend.turns + 1,
    tokens: { input: spend.tokens.input + call.inputTokens, cached: spend.tokens.cached + call.cachedTokens, output: spend.tokens.output + call.outputTokens },
    costUsd: spend.costUsd + (call.costUsd ?? 0),
    unpricedCalls: spend.unpricedCalls + (call.costUsd === null ? 1 : 0),
  };
}

export type UnitVerdict = { ok: true } | { ok: false; stop: 'max_turns' | 'token_ceiling' | 'cost_ceiling'; detail: string };

/**
 * May the session make another call? Checked before each call; a `false` ends the session
 * with that stop reason in its record. Turns first, then tokens (which hold on every
 * provider), then cost (a flat-rate provider reports $0, so it may never fire).
 */
export function mayContinue(ceilings: UnitCeilings, spend: UnitSpend): UnitVerdict {
  if (spend.turns >= ceilings.maxTurns) return { ok: false, stop: 'max_turns', detail: `took ${count(spend.turns)} turns, the unit's max_turns` };
  const used = spend.tokens.input + spend.tokens.output;
  if (used >= ceilings.tokenCeiling) return { ok: false, stop: 'token_ceiling', detail: `spent ${tokenFigure(used)} tokens against the unit's token_ceiling of ${tokenFigure(ceilings.tokenCeiling)}` };
  if (spend.costUsd >= ceilings.costCeilingUsd) return { ok: false, stop: 'cost_ceiling', detail: `spent ${usd(spend.costUsd)} against the unit's cost_ceiling_usd of ${usd(ceilings.costCeilingUsd)}` };
  return { ok: true };
}

/**
 * Whether the session ceiling is below the next cell before it begins: the sessions the court
 * always opens for it (`harness plan`'s required count at projected_branching, the shared build
 * included when its pair has not begun) against what the ceiling leaves. A cell that cannot fit
 * would spend sessions and measure nothing, so the sweep stops before dispatching any. Returns
 * the reason, or undefined when the next cell fits or has already begun (a resume then stops at
 * a session boundary instead).
 */
export function ceilingBelowNextCell(
  state: SessionCeiling,
  history: readonly SweepEvent[],
  pairs: ReadonlyArray<{ cap: number; repetition: number; arms: readonly string[] }>,
  manifest: Pick<Manifest, 'projected_branching' | 'merge_attempts'>,
): string | undefined {
  const finished = new Set(history.flatMap((e) => (e.type === 'cell_finished' ? [e.cellId] : [])));
  const begun = new Set(history.flatMap((e) => (e.type === 'session_started' ? e.cellIds : [])));
  const pair = pairs.find((p) => p.arms.some((arm) => !finished.has(`cap${p.cap}-rep${p.repetition}-${arm}`)));
  if (!pair) return undefined;
  const ids = pair.arms.map((arm) => `cap${pair.cap}-rep${pair.repetition}-${arm}`);
  if (ids.some((id) => begun.has(id))) return undefined;
  const needed = cellSessions(treeShape(manifest.projected_branching, pair.cap), manifest.merge_attempts).required;
  const remaining = Math.max(0, state.maxSessions - state.counted);
  if (remaining >= needed) return undefined;
  return `the session ceiling leaves ${count(remaining)} session(s), below the ${count(needed)} the next cell (${ids[0]}) opens at projected_branching ${manifest.projected_branching} (harness plan); no session was dispatched`;
}
