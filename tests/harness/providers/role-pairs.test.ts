import { describe, expect, it } from 'vitest';
import { ModelRouter, Role, type RouterOptions } from '../../../engine/index.js';
import { EXECUTOR_ROLES, JUDGE_ROLES, ModelPairName, SimParams, pairOfRole, simSetup, specDir } from '../../../harness/index.js';

describe('which pair answers each role', () => {
  it('places every engine role in exactly one pair: the executor works, the reviewer judges', () => {
    expect({ executor: EXECUTOR_ROLES, judge: JUDGE_ROLES }).toMatchInlineSnapshot(`
      {
        "executor": [
          "planner",
          "worker",
          "checker",
          "merger",
          "self_reviewer",
          "drift_judge",
        ],
        "judge": [
          "verifier",
          "reviewer",
        ],
      }
    `);
    expect([...EXECUTOR_ROLES, ...JUDGE_ROLES].sort()).toEqual([...Role.options].sort());
    for (const role of Role.options) expect(ModelPairName.parse(pairOfRole(role))).toBe(EXECUTOR_ROLES.includes(role) ? 'executor' : 'reviewer');
  });

  it('is the split the simulated population is routed by: the router sends each role to its pair’s model', async () => {
    const { roster } = await simSetup({ specDir: specDir('sqlcsv'), params: SimParams.parse({}), maxDepth: 1, mergeAttempts: 1, requirements: [{ id: 'R01', title: 'one requirement', criterion: 'it holds' }] });
    // Only the roster and the clock are read to list a role's candidates.
    const router = new ModelRouter({ roster, clients: {}, clock: { now: () => new Date(0) } } as unknown as RouterOptions);
    const byPair = { executor: 'sim-executor', reviewer: 'sim-reviewer' };
    for (const role of Role.options) {
      expect({ role, answers: router.candidates(role).map((m) => m.name) }).toEqual({ role, answers: [byPair[pairOfRole(role)]] });
    }
  });
});
