import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runSolve } from '../../support/engine-harness.js';
import { FakeSandboxProvider, HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { LOGGING_CHECK, loggingCheckHandlers } from '../../support/scripted-model.js';

const GOAL = 'Write hello.py that prints hello';

describe('the verifier cannot touch what it judges (fake sandbox)', () => {
  it('re-runs the checks in a detached copy: a check that writes still passes, and the judged tree is unchanged', async () => {
    const fake = new FakeSandboxProvider({
      ...HELLO_COMMANDS,
      [LOGGING_CHECK]: async (ws) => {
        await ws.write('.check-log', `${(await ws.read('.check-log')) ?? ''}ran\n`);
        return { exitCode: (await ws.has('hello.py')) ? 0 : 1 };
      },
    });
    const { root } = await runSolve({ goal: GOAL, fake, handlers: loggingCheckHandlers() });
    expect(root.verdict).toBe('DONE');
    expect(root.checkResults.map((c) => c.passed)).toEqual([true, true, true]);
    expect(await readdir(root.workspace)).toEqual(['hello.py', 'test_hello.py']);
    const verify = fake.created.filter((c) => c.purpose === 'root:verify');
    expect(verify).toHaveLength(1);
    expect(verify[0]!.copyFrom).toBe(root.workspace);
    expect(verify[0]!.workspaceDir).not.toBe(root.workspace);
  });
});
