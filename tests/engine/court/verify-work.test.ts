import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runSolve } from '../../support/engine-harness.js';
import { FakeSandboxProvider, HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { helloHandlers, json } from '../../support/scripted-model.js';

const GOAL = 'Write hello.py that prints hello';

describe('the verifier cannot touch what it judges (fake sandbox)', () => {
  it('re-runs the checks in a detached copy: a check that writes still passes, and the judged tree is unchanged', async () => {
    const writing = 'echo ran >> .check-log && test -f hello.py';
    const fake = new FakeSandboxProvider({
      ...HELLO_COMMANDS,
      [writing]: async (ws) => {
        await ws.write('.check-log', `${(await ws.read('.check-log')) ?? ''}ran\n`);
        return { exitCode: (await ws.has('hello.py')) ? 0 : 1 };
      },
    });
    const base = helloHandlers();
    const { root } = await runSolve({
      goal: GOAL,
      fake,
      handlers: {
        ...base,
        checker: () =>
          json({
            checks: [
              { id: 'writes-a-log', description: 'runs and logs', command: writing },
              { id: 'prints-hello', description: 'prints hello', command: 'test "$(python3 hello.py)" = hello' },
              { id: 'exits-zero', description: 'exits 0', command: 'python3 hello.py >/dev/null' },
            ],
          }),
        // The worker never runs the checks itself: only the verifier's re-run could leave a log.
        worker: (req, turn) => base.worker!(req, turn === 2 ? 3 : turn),
      },
    });
    expect(root.verdict).toBe('DONE');
    expect(root.checkResults.map((c) => c.passed)).toEqual([true, true, true]);
    expect(await readdir(root.workspace)).toEqual(['hello.py', 'test_hello.py']);
    const verify = fake.created.filter((c) => c.purpose === 'root:verify');
    expect(verify).toHaveLength(1);
    expect(verify[0]!.copyFrom).toBe(root.workspace);
    expect(verify[0]!.workspaceDir).not.toBe(root.workspace);
  });
});
