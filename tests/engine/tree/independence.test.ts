import { describe, expect, it } from 'vitest';
import { ModelRateLimitedError, type ModelSpec } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { helloHandlers, taskOf } from '../../support/scripted-model.js';

const GOAL = 'Write hello.py that prints hello';
const THREE: ModelSpec[] = [
  { name: 'alpha-medium', model: 'alpha-m', endpoint: 'alpha', family: 'alpha', tier: 'medium' },
  { name: 'beta-medium', model: 'beta-m', endpoint: 'beta', family: 'beta', tier: 'medium' },
  { name: 'gamma-medium', model: 'gamma-m', endpoint: 'gamma', family: 'gamma', tier: 'medium' },
];
const base = helloHandlers();

describe('independence is judged on who actually answered, and fails closed (fake sandbox)', () => {
  it('a worker answered by another family (a gateway serving another model than the one asked) disqualifies that family', async () => {
    const { root, model } = await runSolve({
      goal: GOAL,
      roster: THREE,
      fake: HELLO_COMMANDS,
      handlers: { ...base, worker: async (req, turn) => ({ ...(await base.worker!(req, turn)), model: 'beta-m' }) },
    });
    expect(model.byRole('worker').every((r) => r.model === 'alpha-m')).toBe(true);
    expect(root.contributorFamilies.sort()).toEqual(['alpha', 'beta']);
    expect(model.byRole('verifier').every((r) => r.model === 'gamma-m')).toBe(true);
    expect(root.verdict).toBe('DONE');
    expect(root.verifiedBy).toEqual(['gamma']);
  });

  it('with no uninvolved family left, even the meta-verifier cannot be asked: NOT_DONE with that reason, never a silent "adequate"', async () => {
    const { root, model, events } = await runSolve({
      goal: GOAL,
      roster: THREE.slice(0, 2),
      fake: HELLO_COMMANDS,
      handlers: { ...base, worker: async (req, turn) => ({ ...(await base.worker!(req, turn)), model: 'beta-m' }) },
    });
    expect(model.byRole('verifier')).toEqual([]);
    expect(events.ofType('meta_verified')).toEqual([]);
    expect(root.verdict).toBe('NOT_DONE');
    expect(root.reasons).toEqual([
      'no family that contributed nothing could judge whether the checks prove the goal: no model can serve as verifier: every configured model is of an excluded family (alpha, beta)',
    ]);
    expect(root.repairStop).toBe('settled');
  });

  it('a worker the roster cannot place contributes to every family: nobody may judge the node', async () => {
    const { root, model } = await runSolve({
      goal: GOAL,
      fake: HELLO_COMMANDS,
      // A gateway answers with a suffixed id it was never asked for.
      handlers: { ...base, worker: async (req, turn) => ({ ...(await base.worker!(req, turn)), model: 'alpha-m:free' }) },
    });
    expect(root.contributorFamilies.sort()).toEqual(['alpha', 'unplaced:alpha-m:free']);
    expect(model.byRole('verifier')).toEqual([]);
    expect(root.verdict).toBe('NOT_DONE');
    expect(root.reasons[0]).toMatch(/a model that produced this work \(alpha-m:free\) cannot be placed in a family/);
  });

  it('a verifier answering as a model nobody can place never signs off: its answer is paid for and discarded', async () => {
    const { root, events } = await runSolve({
      goal: GOAL,
      fake: HELLO_COMMANDS,
      handlers: { ...base, verifier: async (req, turn) => ({ ...(await base.verifier!(req, turn)), model: 'beta-m-preview' }) },
    });
    expect(root.verdict).toBe('NOT_DONE');
    expect(root.verifiedBy).toEqual([]);
    const discarded = events.ofType('charge').filter((c) => c.role === 'verifier');
    expect(discarded.map((c) => c.family)).toEqual(['unplaced:beta-m-preview']);
    expect(root.tokens).toBe(events.ofType('charge').reduce((s, c) => s + c.usage.inputTokens + c.usage.outputTokens, 0));
  });

  it('re-checks the answering family after the call: a verifier endpoint that answers as a contributor family is refused', async () => {
    const { root, model } = await runSolve({
      goal: GOAL,
      // The judge's fallback stays in its own family: beta's second model.
      roster: [...THREE, { name: 'beta-small', model: 'beta-s', endpoint: 'beta', family: 'beta', tier: 'small' }],
      fake: HELLO_COMMANDS,
      // beta-m's endpoint routes the judge to alpha's model; beta-s answers honestly.
      handlers: { ...base, verifier: async (req, turn) => ({ ...(await base.verifier!(req, turn)), model: req.model === 'beta-m' ? 'alpha-m' : req.model }) },
    });
    expect(model.byRole('verifier').filter((r) => taskOf(r).startsWith('is the work done')).map((r) => r.model)).toEqual(['beta-m', 'beta-s']);
    expect(root.verdict).toBe('DONE');
    expect(root.verifiedBy).toEqual(['beta']);
  });

  it('never moves the judge to another family when its own family fails: the node is not DONE, naming the judge', async () => {
    const { root, model } = await runSolve({
      goal: GOAL,
      roster: THREE,
      fake: HELLO_COMMANDS,
      handlers: { ...base, verifier: (req, turn) => (req.model === 'beta-m' ? Promise.reject(new ModelRateLimitedError('beta-m', null, 'HTTP 429')) : base.verifier!(req, turn)) },
    });
    expect(model.byRole('verifier').some((r) => r.model === 'gamma-m')).toBe(false);
    expect(root.verdict).not.toBe('DONE');
    expect(root.verifiedBy).toEqual([]);
    expect(JSON.stringify(root)).toContain('beta-m');
  });
});
