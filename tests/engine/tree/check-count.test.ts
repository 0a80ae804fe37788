import { describe, expect, it } from 'vitest';
import { runSolve } from '../../support/engine-harness.js';
import { HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { helloHandlers, json, taskOf, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

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

  // The meta-verifier judges the checks, not the merge, so both arms go through it alike.
  it.each(['gated', 'ungated'] as const)("meta-verifies seam checks like a leaf's (%s arm): rewrites them once, and ends CHECKS_INADEQUATE when they stay weak", async (arm) => {
    const slugs = ['left', 'right'];
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) });
    const seamMeta: Array<{ sessionId: string; model: string; text: string }> = [];
    const verifier: Handler = (req, turn) => {
      if (req.nodeId === 'root' && taskOf(req).startsWith('are the checks adequate')) {
        seamMeta.push({ sessionId: req.sessionId, model: req.model, text: userText(req) });
        return json({ adequate: false, reason: 'nothing runs the pieces together with real input', missing: ['an end-to-end run'] });
      }
      return handlers.verifier!(req, turn);
    };
    const { root, model, events } = await runSolve({ goal: 'Build a program from two pieces', fake: splitCommands(slugs), handlers: { ...handlers, verifier }, extra: { arm } });
    // Judged twice (the seam checks, then their one rewrite), by the family that contributed nothing.
    expect(seamMeta.map((m) => [m.sessionId, m.model])).toEqual([[`${arm}/root/verifier/1`, 'beta-m'], [`${arm}/root/verifier/2`, 'beta-m']]);
    expect(seamMeta[0]!.text).toContain('"id": "main-runs"');
    const rewrite = model.byRole('checker').filter((r) => r.nodeId === 'root').at(-1)!;
    expect(userText(rewrite)).toContain('## Children');
    expect(userText(rewrite)).toContain('- nothing runs the pieces together with real input');
    expect(events.ofType('meta_verified').filter((e) => e.nodeId === 'root').map((e) => e.adequate)).toEqual([false, false]);
    expect(root.checkRewrites).toBe(1);
    expect(root.verdict).toBe('CHECKS_INADEQUATE');
    expect(root.reasons).toEqual(['the checks are judged too weak to prove the goal: nothing runs the pieces together with real input']);
    // Weak seam checks end the loop before any review: nothing is judged on checks that cannot decide it.
    expect(root.merge).toMatchObject({ arm, attempts: [], stop: 'settled' });
    expect(root.repairStop).toBe('settled');
  });
});
