import { describe, expect, it } from 'vitest';
import { runSolve } from '../../support/engine-harness.js';
import { HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { call, helloHandlers, json, taskOf, type Handler } from '../../support/scripted-model.js';
import { seamChecks, splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Write hello.py that prints hello';
const base = helloHandlers();
/** The three honest hello checks `helloHandlers` writes. */
const helloChecks = () => JSON.parse((base.checker!({ messages: [] } as never, 0) as { content: string }).content).checks;
const Q = 'which greeting does the admin want?';

/** Every way a question for a person can be raised, and the verdict must hold it. */
async function expectHeld(run: Promise<{ root: { verdict: string; openQuestions: string[] } }>) {
  const { root } = await run;
  expect(root.openQuestions).toEqual([Q]);
  expect(root.verdict).toBe('NEEDS_HUMAN');
}

describe('a question for a person is never dropped (fake sandbox)', () => {
  it('from a falsification-round rewrite of the checks', async () => {
    let n = 0;
    const checker: Handler = () =>
      ++n === 1
        ? json({ checks: [{ id: 'taut', description: 'always', command: 'true' }, ...helloChecks().slice(0, 2)] })
        : json({ assumptions: [`NEEDS HUMAN: ${Q}`], checks: helloChecks() });
    await expectHeld(runSolve({ goal: GOAL, fake: { ...HELLO_COMMANDS, true: () => ({ exitCode: 0 }) }, handlers: { ...base, checker } }));
  });

  it('from the rewrite of checks judged inadequate', async () => {
    let meta = 0;
    let n = 0;
    await expectHeld(
      runSolve({
        goal: GOAL,
        fake: HELLO_COMMANDS,
        handlers: {
          ...base,
          checker: () => json({ assumptions: ++n === 2 ? [`NEEDS HUMAN: ${Q}`] : [], checks: helloChecks() }),
          verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: ++meta > 1, reason: 'weak' }) : json({ verdict: 'DONE', findings: [] })),
        },
      }),
    );
  });

  it('from a worker\'s report', async () => {
    const worker: Handler = (req, turn) => (turn < 3 ? base.worker!(req, turn) : { toolCalls: [call('finish', { summary: `done.\nNEEDS HUMAN: ${Q}` })] });
    await expectHeld(runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: { ...base, worker } }));
  });

  it('from a verifier\'s finding', async () => {
    await expectHeld(
      runSolve({
        goal: GOAL,
        fake: HELLO_COMMANDS,
        handlers: { ...base, verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: true }) : json({ verdict: 'DONE', findings: [`NEEDS HUMAN: ${Q}`] })) },
      }),
    );
  });

  it('from seam checks and from a merge', async () => {
    const slugs = ['left', 'right'];
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) });
    const seam: Handler = (req, turn) => (taskOf(req).startsWith('write integration checks') ? json({ assumptions: [`NEEDS HUMAN: ${Q}`], checks: seamChecks(slugs) }) : handlers.checker!(req, turn));
    await expectHeld(runSolve({ goal: 'Build a program from two pieces', fake: splitCommands(slugs), handlers: { ...handlers, checker: seam } }));
    const merger: Handler = (req, turn) => (turn === 0 ? handlers.merger!(req, 0) : { toolCalls: [call('finish', { summary: 'assembled', interface_changes: [`NEEDS HUMAN: ${Q}`] })] });
    await expectHeld(runSolve({ goal: 'Build a program from two pieces', fake: splitCommands(slugs), handlers: { ...handlers, merger } }));
  });

  it('when the node is stopped before it could finish: the question travels up instead of a bare STOPPED', async () => {
    const { root } = await runSolve({
      goal: GOAL,
      budget: 1_000,
      usage: { inputTokens: 400, outputTokens: 100, cachedTokens: 0 },
      fake: HELLO_COMMANDS,
      handlers: { ...base, checker: () => json({ assumptions: [`NEEDS HUMAN: ${Q}`], checks: helloChecks() }) },
    });
    expect(root.stop?.by).toBe('budget');
    expect(root.openQuestions).toEqual([Q]);
    expect(root.verdict).toBe('NEEDS_HUMAN');
  });
});
