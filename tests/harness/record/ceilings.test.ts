import { describe, expect, it } from 'vitest';
import { type SweepEventInput } from '../../../harness/index.js';
import { mayContinue, mayDispatch, NO_SPEND, reduceSessionCeiling, reduceUnit, sessionCeilingFrom, type UnitCall, unitCeilings } from '../../../harness/testing.js';
import { header, runStarted, session, stamped } from '../journal/sweep-fixtures.js';

const CELL = 'cap1-rep1-gated';
const sessions = (n: number, from = 1, reopened = false) => Array.from({ length: n }, (_, i) => session(CELL, from + i, { reopened })).flat();

describe('the session ceiling', () => {
  it('is checked before dispatch: the session that would cross it is never dispatched', () => {
    const events = stamped([header(), runStarted(), ...sessions(2)]);
    let state = sessionCeilingFrom(events, 3);
    expect(mayDispatch(state)).toEqual({ ok: true, remaining: 1 });
    // The runner folds the start in as it appends it, before awaiting, so a second check sees it.
    const [started] = session(CELL, 3);
    state = reduceSessionCeiling(state, stamped([started], events.length + 1)[0]!);
    expect(state).toMatchObject({ counted: 3, inFlight: 1 });
    expect(mayDispatch(state)).toMatchInlineSnapshot(`
      {
        "message": "the session ceiling is reached: 3 sessions started since this sweep began, max_sessions 3; nothing more is dispatched",
        "ok": false,
      }
    `);
  });

  it('counts across resumes, each session once, however often a resume re-opens it', () => {
    const first: SweepEventInput[] = [header(), runStarted(), ...sessions(3), session(CELL, 4)[0]];
    // The process died with session 4 in flight; the resume re-opens it and finishes it.
    const resumed: SweepEventInput[] = [runStarted(true), ...session(CELL, 4, { reopened: true }), ...sessions(1, 5)];
    const state = sessionCeilingFrom(stamped([...first, ...resumed]), 10);
    expect(state).toEqual({ manifestMaxSessions: 10, maxSessions: 10, counted: 5, inFlight: 0 });
    // At the ceiling, new sessions are refused, but one a resume re-opens may still finish its work.
    const full = sessionCeilingFrom(stamped([...first, runStarted(true)]), 4);
    expect(mayDispatch(full).ok).toBe(false);
    expect(mayDispatch(full, { reopened: true }).ok).toBe(true);
  });

  it('takes a lowered ceiling for one invocation only, and says so when it stops', () => {
    const lowered: SweepEventInput = { type: 'ceiling_lowered', maxSessions: 2, manifestMaxSessions: 100 };
    const state = sessionCeilingFrom(stamped([header(), runStarted(), lowered, ...sessions(2)]), 100);
    expect(mayDispatch(state)).toMatchInlineSnapshot(`
      {
        "message": "the session ceiling is reached: 2 sessions started since this sweep began, max_sessions 2, lowered by --max-sessions from 100; nothing more is dispatched",
        "ok": false,
      }
    `);
    const next = sessionCeilingFrom(stamped([header(), runStarted(), lowered, ...sessions(2), runStarted(true)]), 100);
    expect(mayDispatch(next)).toEqual({ ok: true, remaining: 98 });
  });
});

describe('unit ceilings', () => {
  const ceilings = unitCeilings({ unit: { max_turns: 3, token_ceiling: 1000, cost_ceiling_usd: 0.5 } });
  const call = (over: Partial<UnitCall> = {}): UnitCall => ({ inputTokens: 100, cachedTokens: 50, outputTokens: 10, costUsd: 0.01, ...over });

  it('fold calls into a session spend', () => {
    const spend = [call(), call({ costUsd: null })].reduce(reduceUnit, NO_SPEND);
    expect(spend).toEqual({ turns: 2, tokens: { input: 200, cached: 100, output: 20 }, costUsd: 0.01, unpricedCalls: 1 });
  });

  it('stop a session at its turn, token and cost ceilings, each with its reason', () => {
    const stop = (calls: UnitCall[]) => mayContinue(ceilings, calls.reduce(reduceUnit, NO_SPEND));
    expect(stop([call(), call()])).toEqual({ ok: true });
    expect(stop([call(), call(), call()])).toMatchInlineSnapshot(`
      {
        "detail": "took 3 turns, the unit's max_turns",
        "ok": false,
        "stop": "max_turns",
      }
    `);
    expect(stop([call({ inputTokens: 900, cachedTokens: 0, outputTokens: 100 })])).toMatchInlineSnapshot(`
      {
        "detail": "spent 1.00k tokens against the unit's token_ceiling of 1.00k",
        "ok": false,
        "stop": "token_ceiling",
      }
    `);
    expect(stop([call({ costUsd: 0.5 })])).toMatchInlineSnapshot(`
      {
        "detail": "spent $0.50 against the unit's cost_ceiling_usd of $0.50",
        "ok": false,
        "stop": "cost_ceiling",
      }
    `);
    // A flat-rate or unpriced provider: the cost ceiling cannot fire, the token ceiling still does.
    expect(stop([call({ costUsd: null, inputTokens: 2000, cachedTokens: 0 })])).toMatchObject({ ok: false, stop: 'token_ceiling' });
  });

  it('refuse figures that are not figures, rather than read them as zero', () => {
    expect(() => reduceUnit(NO_SPEND, call({ inputTokens: Number.NaN }))).toThrow(RangeError);
    expect(() => reduceUnit(NO_SPEND, call({ cachedTokens: 500 }))).toThrow(/cached within input/);
    expect(() => reduceUnit(NO_SPEND, call({ costUsd: Number.POSITIVE_INFINITY }))).toThrow(/unusable cost/);
    expect(() => reduceUnit(NO_SPEND, call({ outputTokens: -1 }))).toThrow(RangeError);
  });
});
