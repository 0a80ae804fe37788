import { describe, expect, it } from 'vitest';
import { runSolve } from '../../support/engine-harness.js';
import { HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { helloHandlers, json, type Handler } from '../../support/scripted-model.js';

const GOAL = 'Write hello.py that prints hello';
const base = helloHandlers();
const helloChecks = () => JSON.parse((base.checker!({ messages: [] } as never, 0) as { content: string }).content).checks as Array<{ id: string; description: string; command: string }>;
const userText = (req: { messages: Array<{ role: string; content?: string | null }> }) => req.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');

describe('3 to 5 checks decide a node (fake sandbox)', () => {
  it('asks for more when fewer than 3 usable checks survive falsification', async () => {
    let n = 0;
    const checker: Handler = () => json({ checks: ++n === 1 ? helloChecks().slice(0, 2) : helloChecks() });
    const { root, model } = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: { ...base, checker } });
    expect(userText(model.byRole('checker')[1]!)).toContain('Only 2 usable check(s): write at least 3 (and at most 5).');
    expect(root.checks).toHaveLength(3);
    expect(root.verdict).toBe('DONE');
  });

  it('ends CHECKS_INADEQUATE, before any work, when fewer than 3 remain after every rewrite', async () => {
    const { root, model } = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: { ...base, checker: () => json({ checks: helloChecks().slice(0, 2) }) } });
    expect(root.verdict).toBe('CHECKS_INADEQUATE');
    expect(root.reasons).toEqual(['only 2 usable check(s) after falsification; at least 3 are needed to decide DONE']);
    expect(model.byRole('worker')).toEqual([]);
    expect(root.checks).toHaveLength(2);
  });

  it('drops a check that stays tautological after every rewrite, so it never counts toward DONE', async () => {
    const stubborn = { id: 'always', description: 'always passes', command: 'true' };
    const { root, events } = await runSolve({ goal: GOAL, fake: { ...HELLO_COMMANDS, true: () => ({ exitCode: 0 }) }, handlers: { ...base, checker: () => json({ checks: [stubborn, ...helloChecks()] }) } });
    expect(events.ofType('check_falsified').filter((e) => e.checkId === 'always').map((e) => e.outcome)).toEqual(['tautology', 'tautology', 'tautology']);
    expect(root.checks.map((c) => c.id)).toEqual(['prints-hello', 'exits-zero', 'has-test']);
    expect(root.verdict).toBe('DONE');
  });

  it('refuses more than 5 checks', async () => {
    let n = 0;
    const six = Array.from({ length: 6 }, (_, i) => ({ ...helloChecks()[i % 3]!, id: `c${i}` }));
    const checker: Handler = () => json({ checks: ++n === 1 ? six : helloChecks() });
    const { root, model } = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: { ...base, checker } });
    expect(model.byRole('checker')[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^Your reply could not be used: checks: Too big: expected array to have <=5 items/) });
    expect(root.checks.map((c) => c.id)).toEqual(['prints-hello', 'exits-zero', 'has-test']);
  });

});
