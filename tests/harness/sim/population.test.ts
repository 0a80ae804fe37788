import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../engine/index.js';
import { REPO_ROOT, SimParams, simSetup } from '../../../harness/index.js';
import { expectedSurvival, isolatedDefects, samplePair, specObjective } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

const objective = await specObjective(path.join(REPO_ROOT, 'spec', 'sqlcsv'));
const setupFor = (seed: number) => simSetup({ specDir: path.join(REPO_ROOT, 'spec', 'sqlcsv'), params: SimParams.parse({ seed }), maxDepth: 2, mergeAttempts: 2, requirements: objective.requirements });

const ask = (model: string, role: ModelRequest['role'], nodeId: string): ModelRequest => ({
  model, role, nodeId, sessionId: `t/${nodeId}/${role}`, attempt: 1, messages: [{ role: 'system', content: 'x' }, { role: 'user', content: '## Task: x' }],
});

describe('the SIMULATED population as a ModelClient', () => {
  it('answers as a pure function of the request: same seed, same replies, in any order', async () => {
    const [a, b] = [await setupFor(11), await setupFor(11)];
    const model = a.roster[0]!.model;
    const leafIds = a.world.tree(null).phase.leaves.map((l) => l.path.split('.').map((p, i) => (i === 0 ? p : String(Number(p) + 1))).join('.'));
    const requests = [ask(model, 'planner', 'root'), ...leafIds.map((id) => ask(model, 'worker', id)), ...leafIds.map((id) => ask(model, 'checker', id))];
    const forward = [];
    for (const r of requests) forward.push(await a.clients.sim!.complete(r));
    const backward = [];
    for (const r of [...requests].reverse()) backward.push(await b.clients.sim!.complete(r));
    expect(backward.reverse()).toEqual(forward);
  });

  it('plants another tree under another seed', async () => {
    const shape = async (seed: number) => JSON.stringify((await setupFor(seed)).world.tree(null).phase.root);
    expect(await shape(11)).toBe(await shape(11));
    expect(await shape(12)).not.toBe(await shape(11));
  });

  it('says SIMULATED on its face: every model id, and it refuses to answer as any other model', async () => {
    const setup = await setupFor(1);
    expect(setup.roster.map((s) => [s.model, s.family, s.prices])).toEqual([
      ['sim-executor (SIMULATED)', 'sim-alpha', { input: 0, output: 0, cachedInput: 0 }],
      ['sim-reviewer (SIMULATED)', 'sim-beta', { input: 0, output: 0, cachedInput: 0 }],
    ]);
    await expect(setup.clients.sim!.complete(ask('gpt-real', 'planner', 'root'))).rejects.toThrow(/not a simulated model id/);
    const reply = await setup.clients.sim!.complete(ask(setup.roster[0]!.model, 'planner', 'root'));
    // Synthetic, deterministic usage, so budgets and token ceilings are exercised.
    expect(reply.usage!.inputTokens).toBeGreaterThan(0);
    expect(reply.usage!.outputTokens).toBeGreaterThan(0);
  });

  it('with equal recalls and 2 merge attempts: equal truth for the arms, but their merge draws differ', () => {
    const params = SimParams.parse({ judge_recall: 0.6, self_review_recall: 0.6, seam_defect_rate: 0.5, leaf_defect_rate: 0.3 });
    const defects = isolatedDefects(SPEC_IDS);
    const [g, u] = (['gated', 'ungated'] as const).map((arm) => expectedSurvival(params, { cap: 2, arm, mergeAttempts: 2, defects, requirements: SPEC_IDS }).survival!);
    expect(Math.abs(g! - u!)).toBeLessThan(1e-12);
    let differing = 0;
    for (let repetition = 1; repetition <= 20; repetition++) {
      const pair = samplePair(params, { cap: 2, repetition, mergeAttempts: 2, defects, requirements: SPEC_IDS });
      const found = (arm: 'gated' | 'ungated') => JSON.stringify(pair.arms[arm].merges.map((m) => [m.seams, m.loop.attempts.map((a) => a.found)]));
      if (found('gated') !== found('ungated')) differing++;
    }
    // Were review draws shared across arms, every null difference would be exactly 0.
    expect(differing).toBeGreaterThan(10);
  });
});
