import { ModelConfigurationError } from '../../engine/index.js';
import { costCeiling, mayCall, mayDispatch, reduceCost, reduceSessionCeiling, sessionCeilingFrom, type CostCeiling, type SessionCeiling } from './ceilings.js';
import type { SweepEvent } from '../journal/sweep-events.js';

/**
 * The one place a sweep decides whether another session may start. Every session's first call
 * asks `admit` BEFORE it is dispatched; the state is folded synchronously from each journal
 * event as it is appended, so two sessions can never both pass a check only one fits.
 *
 * Once closed (ceiling reached, Ctrl-C, a fatal failure, the quota) it admits nothing new,
 * while the sessions already in flight finish. A refused session throws SessionRefusedError,
 * which the engine's router treats as a configuration failure (true of every later call, no
 * fallback), so the cell ends quickly; the sweep reads the gate to know why.
 */
export class SessionRefusedError extends ModelConfigurationError {
  constructor(
    model: string,
    readonly why: 'ceiling' | 'stopping',
    detail: string,
  ) {
    super(model, detail);
  }
}

export type GateClosure = { reason: 'ceiling'; detail: string } | { reason: 'interrupted' | 'fatal' | 'unreachable' | 'quota'; detail: string };

export interface SessionGateOptions {
  /** The manifest's max_cost_usd. Default none. */
  maxCostUsd?: number;
  /** US dollars the sweep's earlier invocations paid (every live call in its transcripts). Default 0. */
  paidUsd?: number;
}

/** A call admitted under the cost ceiling: what it could cost at most, released when it is answered. */
export interface CallTicket {
  readonly worstUsd: number;
}

export class SessionGate {
  private state: SessionCeiling;
  private cost: CostCeiling;
  private closure: GateClosure | undefined;
  /** Cells (by id) in which a session was refused. */
  readonly refusedIn = new Set<string>();

  constructor(history: readonly SweepEvent[], manifestMaxSessions: number, options: SessionGateOptions = {}) {
    this.state = sessionCeilingFrom(history, manifestMaxSessions);
    this.cost = costCeiling(options.maxCostUsd ?? null, options.paidUsd ?? 0);
  }

  get ceiling(): SessionCeiling {
    return this.state;
  }

  /** The cost ceiling as it stands: what was paid, what is in flight. */
  get spend(): CostCeiling {
    return this.cost;
  }

  get closed(): GateClosure | undefined {
    return this.closure;
  }

  /** Folds one event (call it synchronously for every event appended). */
  note(event: SweepEvent): void {
    this.state = reduceSessionCeiling(this.state, event);
  }

  close(closure: GateClosure): void {
    this.closure ??= closure;
  }

  /**
   * May a session start? `reopened`: it already started in an earlier invocation (not counted
   * again). Returns nothing when it may; throws SessionRefusedError when it may not.
   */
  admit(model: string, cellIds: readonly string[], reopened: boolean, firstCallWorstUsd?: number): void {
    // A new session's first call is live: when the cost ceiling could not admit it, the session
    // is refused before it is counted (a sweep whose max_cost_usd is below one call's worst case
    // stops with 0 sessions, not 1 session that made no call).
    if (firstCallWorstUsd !== undefined) this.check(model, cellIds, 'call', mayCall(this.cost, firstCallWorstUsd));
    this.check(model, cellIds, 'session', mayDispatch(this.state, { reopened }));
  }

  /**
   * May a live call be dispatched, whose worst case is `worstUsd`? Checked before every live call
   * (a call answered from a transcript costs nothing): the cost ceiling counts what was paid and
   * the worst case of every call in flight. Throws SessionRefusedError when it may not.
   */
  admitCall(model: string, cellIds: readonly string[], worstUsd: number): CallTicket {
    this.check(model, cellIds, 'call', mayCall(this.cost, worstUsd));
    this.cost = reduceCost(this.cost, { dispatched: worstUsd });
    return { worstUsd };
  }

  /** Refuses (throws SessionRefusedError, noting the cells) when the gate is closed or the ceiling's decision is no; a no closes it. */
  private check(model: string, cellIds: readonly string[], what: 'session' | 'call', decision: ReturnType<typeof mayDispatch>): void {
    const refuse = (why: 'ceiling' | 'stopping', message: string): never => {
      cellIds.forEach((c) => this.refusedIn.add(c));
      throw new SessionRefusedError(model, why, message);
    };
    if (this.closure) refuse(this.closure.reason === 'ceiling' ? 'ceiling' : 'stopping', `the sweep is stopping (${this.closure.detail}); no new ${what} is dispatched`);
    if (!decision.ok) {
      this.close({ reason: 'ceiling', detail: decision.message });
      refuse('ceiling', decision.message);
    }
  }

  /** A live call ended: what it cost is paid (0 when it failed before any reply could have been billed), its worst case released. */
  callEnded(ticket: CallTicket, paidUsd: number): void {
    this.cost = reduceCost(this.cost, { answered: { worstUsd: ticket.worstUsd, paidUsd } });
  }
}
