import { describe, expect, it } from 'vitest';
import { ModelConfigurationError, ModelQuotaExhaustedError, ModelResponseInvalidError, ModelUnavailableError } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { call, helloHandlers, json, taskOf, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Write hello.py that prints hello';
const PIECES = 'Build a program from two pieces';
const slugs = ['left', 'right'];
const base = helloHandlers();

describe('a provider failure ends only the node that needed it (fake sandbox)', () => {
  it.each([
    ['unavailable', (m: string) => new ModelUnavailableError(m, 'HTTP 503: upstream down'), 'model_unavailable'],
    ['malformed', (m: string) => new ModelResponseInvalidError(m, 'no choices[0].message in the body'), 'model_response_invalid'],
  ])('%s: the node is STOPPED by the provider, naming the model; its sibling finishes and the run goes on', async (_name, fail, code) => {
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) });
    const worker: Handler = (req, turn) => (req.nodeId === 'root.1' ? Promise.reject(fail(req.model)) : handlers.worker!(req, turn));
    const { root } = await runSolve({ goal: PIECES, fake: splitCommands(slugs), handlers: { ...handlers, worker } });
    const [left, right] = root.children;
    expect(left!.verdict).toBe('STOPPED');
    // Every model of the worker's chain (its family's) failed in turn; the role's own model, the first that failed, is named.
    expect(left!.stop).toEqual({ by: 'provider', model: 'alpha-m', code });
    expect(left!.reasons[0]).toMatch(/^provider: model alpha-m /);
    expect(right!.verdict).toBe('DONE');
    expect(root.verdict).toBe('INCOMPLETE');
  });

  it('a quota or configuration failure ends the run at once, and no sibling keeps calling', async () => {
    for (const fatal of [new ModelQuotaExhaustedError('alpha-m', 'insufficient_quota'), new ModelConfigurationError('alpha-m', 'HTTP 401: bad key')]) {
      const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) });
      let afterFatal = 0;
      let failed = false;
      const counted = Object.fromEntries(
        Object.entries(handlers).map(([role, h]): [string, Handler] => [
          role,
          async (req, turn) => {
            if (failed) afterFatal++;
            if (req.nodeId === 'root.1' && role === 'worker') {
              failed = true;
              throw fatal;
            }
            await new Promise((r) => setTimeout(r, 5));
            return h(req, turn);
          },
        ]),
      );
      await expect(runSolve({ goal: PIECES, fake: splitCommands(slugs), handlers: counted, concurrency: 2 })).rejects.toBe(fatal);
      // A call already in flight may land; none is started after the failure.
      expect(afterFatal).toBeLessThanOrEqual(1);
    }
  });
});

describe('results say why (fake sandbox)', () => {
  it('records which stop of the repair loop fired on every node', async () => {
    const done = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: base });
    expect([done.root.verdict, done.root.repairStop]).toEqual(['DONE', 'accept']);

    const never = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: { ...base, worker: () => ({ content: 'no' }) } });
    expect([never.root.verdict, never.root.repairStop, never.root.attempts]).toEqual(['NOT_DONE', 'max_attempts', 2]);

    const stuck = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: { ...base, worker: () => ({ content: 'no' }) }, extra: { maxAttempts: 4 } });
    expect([stuck.root.verdict, stuck.root.repairStop, stuck.root.attempts]).toEqual(['NOT_DONE', 'no_progress', 2]);

    const weak = await runSolve({
      goal: GOAL,
      fake: HELLO_COMMANDS,
      handlers: { ...base, verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: false, reason: 'weak' }) : json({ verdict: 'DONE' })) },
    });
    expect([weak.root.verdict, weak.root.repairStop]).toEqual(['CHECKS_INADEQUATE', 'settled']);
  });

  it('says STOPPED with its checks and their last results when the budget ends it mid-work', async () => {
    const { root } = await runSolve({
      goal: GOAL,
      budget: 2_500,
      usage: { inputTokens: 900, outputTokens: 100, cachedTokens: 0 },
      fake: HELLO_COMMANDS,
      handlers: { ...base, worker: () => ({ toolCalls: [call('run_checks')] }) },
    });
    expect(root.verdict).toBe('STOPPED');
    expect(root.repairStop).toBeNull();
    expect(root.checks).toHaveLength(3);
    expect(root.checkResults).toHaveLength(3);
  });
});
