import { describe, expect, it } from 'vitest';
import { gate, type CheckResult, type VerifierOpinion } from '../../../engine/index.js';

const pass = (id: string): CheckResult => ({ id, passed: true, exitCode: 0, timedOut: false, output: '' });
const fail = (id: string): CheckResult => ({ id, passed: false, exitCode: 1, timedOut: false, output: 'boom' });
const beta: VerifierOpinion = { verdict: 'DONE', model: 'beta-m', family: 'beta', findings: [] };

describe('gate', () => {
  it('says DONE only with every check passing, an uninvolved family signing off, and no open question', () => {
    expect(gate({ checks: [pass('a'), pass('b')], verifier: beta, contributorFamilies: ['alpha'], openQuestions: [] })).toMatchInlineSnapshot(`
      {
        "overrides": [],
        "reasons": [
          "all 2 check(s) passed and beta (beta-m), which contributed nothing, signed off",
        ],
        "verdict": "DONE",
      }
    `);
  });

  it('forces a DONE opinion with a failing check to NOT_DONE and records the override', () => {
    expect(gate({ checks: [pass('a'), fail('b')], verifier: beta, contributorFamilies: ['alpha'], openQuestions: [] })).toMatchInlineSnapshot(`
      {
        "overrides": [
          {
            "detail": "1 of 2 check(s) failed: b",
            "from": "DONE",
            "rule": "failing_check",
            "to": "NOT_DONE",
          },
        ],
        "reasons": [
          "1 of 2 check(s) failed: b",
        ],
        "verdict": "NOT_DONE",
      }
    `);
  });

  it('refuses a verifier whose family contributed', () => {
    const out = gate({ checks: [pass('a')], verifier: { ...beta, family: 'alpha', model: 'alpha-m' }, contributorFamilies: ['alpha'], openQuestions: [] });
    expect(out.verdict).toBe('NOT_DONE');
    expect(out.overrides[0]?.rule).toBe('verifier_not_independent');
  });

  it('refuses a verifier, or a contributor, that nobody can place in a family', () => {
    const judgedByUnknown = gate({ checks: [pass('a')], verifier: { ...beta, family: 'unplaced:mystery' }, contributorFamilies: ['alpha'], openQuestions: [] });
    expect(judgedByUnknown.verdict).toBe('NOT_DONE');
    expect(judgedByUnknown.reasons).toEqual(['mystery cannot be placed in a family, so the verifier cannot be shown independent of the work']);
    const builtByUnknown = gate({ checks: [pass('a')], verifier: beta, contributorFamilies: ['alpha', 'unplaced:alpha-m:free'], openQuestions: [] });
    expect(builtByUnknown.overrides[0]?.rule).toBe('verifier_not_independent');
  });

  it('holds NEEDS_HUMAN over green checks and an approving verifier', () => {
    const out = gate({ checks: [pass('a')], verifier: beta, contributorFamilies: ['alpha'], openQuestions: ['which SMTP server?'] });
    expect(out.verdict).toBe('NEEDS_HUMAN');
    expect(out.reasons).toEqual(['open question(s) only a person can settle: which SMTP server?']);
  });

  it('refuses DONE with no checks or no verifier', () => {
    expect(gate({ checks: [], verifier: beta, contributorFamilies: [], openQuestions: [] }).verdict).toBe('NOT_DONE');
    expect(gate({ checks: [pass('a')], verifier: null, contributorFamilies: [], openQuestions: [] }).verdict).toBe('NOT_DONE');
  });

  it('passes the verifier through on its own NOT_DONE and CHECKS_INADEQUATE', () => {
    expect(gate({ checks: [pass('a')], verifier: { ...beta, verdict: 'NOT_DONE', findings: ['misses the header'] }, contributorFamilies: [], openQuestions: [] }).reasons).toContain('misses the header');
    expect(gate({ checks: [pass('a')], verifier: { ...beta, verdict: 'CHECKS_INADEQUATE' }, contributorFamilies: [], openQuestions: [] }).verdict).toBe('CHECKS_INADEQUATE');
  });
});
