import { describe, expect, it } from 'vitest';
import { type SweepEvent } from '../../../harness/index.js';
import { SessionGate, SessionRefusedError } from '../../../harness/testing.js';
import { runStarted, session, stamped } from '../journal/sweep-fixtures.js';

const started = (sessionId: string, reopened = false) => ({ type: 'session_started', cellIds: ['cap1-rep1-gated'], sessionId, role: 'worker', nodePath: 'root', attempt: 1, reopened, seq: 0, version: 1, at: '' }) as unknown as SweepEvent;

describe('the session gate (max_sessions, checked before every dispatch)', () => {
  it('admits sessions up to the ceiling and refuses the next one before it is dispatched', () => {
    const gate = new SessionGate([], 3);
    for (const id of ['a', 'b', 'c']) {
      gate.admit('m', ['cap1-rep1-gated'], false);
      gate.note(started(id));
    }
    expect(() => gate.admit('m', ['cap1-rep1-ungated'], false)).toThrow(SessionRefusedError);
    expect(gate.closed?.reason).toBe('ceiling');
    expect([...gate.refusedIn]).toEqual(['cap1-rep1-ungated']);
  });

  it('counts across resumes: the sessions of an earlier invocation stay counted, a re-opened one is not counted twice', () => {
    const history = stamped([runStarted(false), ...session('cap1-rep1-gated', 1), ...session('cap1-rep1-gated', 2), runStarted(true)]);
    const gate = new SessionGate(history, 3);
    expect(gate.ceiling.counted).toBe(2);
    gate.admit('m', ['cap1-rep1-gated'], false);
    gate.note(started('c'));
    // A session re-opened by the resume was counted when it first started.
    expect(() => gate.admit('m', ['cap1-rep1-gated'], true)).not.toThrow();
    expect(() => gate.admit('m', ['cap1-rep1-gated'], false)).toThrow(/session ceiling is reached: 3 sessions/);
  });

  it('once closed (Ctrl-C, a fatal failure) admits nothing new', () => {
    const gate = new SessionGate([], 100);
    gate.close({ reason: 'interrupted', detail: 'Ctrl-C' });
    expect(() => gate.admit('m', ['cap1-rep1-gated'], false)).toThrow(/the sweep is stopping \(Ctrl-C\)/);
  });
});
