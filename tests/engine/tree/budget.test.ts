import { describe, expect, it } from 'vitest';
import { UNBOUNDED_OUTPUT_TOKENS } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { HELLO_COMMANDS } from '../../support/fake-sandbox.js';
import { call, helloHandlers, json, taskOf, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Write hello.py that prints hello';

describe('the budget is a ceiling (fake sandbox)', () => {
  it('stops a node whose budget runs out with STOPPED and the budget reason, keeping its checks and their last results', async () => {
    const base = helloHandlers();
    const { root, model } = await runSolve({
      goal: GOAL,
      budget: 2_500,
      usage: { inputTokens: 900, outputTokens: 100, cachedTokens: 0 },
      fake: HELLO_COMMANDS,
      handlers: {
        ...base,
        // Runs the checks first (so results exist), then writes: every call costs about 1000 tokens.
        worker: (_req, turn) => [{ toolCalls: [call('run_checks')] }, { toolCalls: [call('write_file', { path: 'hello.py', content: 'print("hello")\n' })] }][Math.min(turn, 1)]!,
      },
    });
    expect(root.verdict).toBe('STOPPED');
    expect(root.stop).toEqual({ by: 'budget', model: null, code: 'budget_exhausted' });
    expect(root.reasons[0]).toMatch(/^budget: budget refused a call for node root: /);
    expect(root.checks.map((c) => c.id)).toEqual(['prints-hello', 'exits-zero', 'has-test']);
    expect(root.checkResults.map((c) => c.passed)).toEqual([false, false, false]);
    // The last call was sized to what was left, and no call was made once nothing was.
    for (const r of model.requests) expect(r.maxTokens).toBeLessThanOrEqual(2_500);
    expect(root.tokens).toBeLessThan(2_500 + 1_000);
  });

  it('keeps a greedy branch inside its allocation while its sibling finishes DONE', async () => {
    const script = splitHandlers({
      subtasks: [{ slug: 'greedy' }, { slug: 'modest' }],
      worker: (req, turn) =>
        req.nodeId === 'root.1'
          ? { toolCalls: [call('list_files', { dir: `d${turn}` })] }
          : [
              { toolCalls: [call('write_file', { path: 'modest.py', content: 'def value():\n    return "modest"\n' })] },
              { toolCalls: [call('finish', { summary: 'ok' })] },
            ][Math.min(turn, 1)]!,
    });
    // Every greedy call, whatever its role, reports 5000 tokens of input: left alone it would eat the tree.
    const handlers = Object.fromEntries(
      Object.entries(script).map(([role, h]): [string, Handler] => [role, async (req, turn) => ({ ...(await h(req, turn)), ...(req.nodeId === 'root.1' ? { usage: { inputTokens: 5_000, outputTokens: 10 } } : {}) })]),
    );
    const { root, model } = await runSolve({ goal: 'Build a program from two pieces', handlers, budget: 60_000, maxTurns: 200, fake: splitCommands(['greedy', 'modest']) });
    const [greedy, modest] = root.children;
    expect(greedy!.allocation).toBe(modest!.allocation);
    expect(greedy!.verdict).toBe('STOPPED');
    expect(greedy!.stop?.by).toBe('budget');
    // One call may overshoot by its own prompt (input cannot be capped), never more.
    expect(greedy!.tokens).toBeLessThan(greedy!.allocation + 5_010);
    expect(model.requests.filter((r) => r.nodeId === 'root.1' && r.role !== 'worker').length).toBeLessThanOrEqual(2);
    expect(modest!.verdict).toBe('DONE');
    expect(modest!.tokens).toBeLessThanOrEqual(modest!.allocation);
  });

  it('sizes every call by what the node and its ancestors have left', async () => {
    const { model } = await runSolve({ goal: GOAL, budget: 20_000, fake: HELLO_COMMANDS, handlers: helloHandlers() });
    expect(model.requests.length).toBeGreaterThan(4);
    for (const r of model.requests) {
      expect(r.maxTokens).toBeDefined();
      expect(r.maxTokens!).toBeLessThan(20_000);
    }
    // With room to spare, the endpoint's own output limit is left to bind.
    const { model: roomy } = await runSolve({ goal: GOAL, budget: 10_000_000, fake: HELLO_COMMANDS, handlers: helloHandlers() });
    expect(roomy.requests.every((r) => r.maxTokens === undefined)).toBe(true);
    expect(UNBOUNDED_OUTPUT_TOKENS).toBeLessThan(10_000_000);
  });

  it('ends the work loop, not the node, when the drift judge\'s call is the one that crosses the work cap', async () => {
    const base = helloHandlers();
    const { root, model, events } = await runSolve({
      goal: GOAL,
      budget: 100_000,
      fake: HELLO_COMMANDS,
      handlers: {
        ...base,
        worker: () => ({
          // One turn that spends the whole 60% work cap, and writes a file no check names (a drift trigger).
          toolCalls: [
            call('write_file', { path: 'hello.py', content: 'print("hello")\n' }),
            call('write_file', { path: 'test_hello.py', content: 'def test_hello():\n    pass\n' }),
            call('write_file', { path: 'notes.txt', content: 'to do\n' }),
          ],
          usage: { inputTokens: 61_000, outputTokens: 10 },
        }),
        drift_judge: () => json({ drift: 9, impossible: false, reason: 'should never be asked for free' }),
      },
    });
    expect(model.byRole('drift_judge')).toEqual([]);
    expect(events.ofType('checks_run').length).toBeGreaterThan(0);
    expect(root.verdict).toBe('DONE');
  });

  it('checks the whole subtree\'s remainder, not only the node\'s, before another repair attempt', async () => {
    let rightSpent!: () => void;
    let leftJudging!: () => void;
    const spent = new Promise<void>((resolve) => (rightSpent = resolve));
    const judging = new Promise<void>((resolve) => (leftJudging = resolve));
    const handlers = splitHandlers({
      subtasks: [{ slug: 'left' }, { slug: 'right' }],
      worker: async (req) => {
        if (req.nodeId === 'root.1') return { content: 'not today' };
        // right's one call, made while left is being judged, reports far more input than anyone could cap: the root is spent.
        await judging;
        setTimeout(rightSpent, 50);
        return { toolCalls: [call('list_files', {})], usage: { inputTokens: 50_000, outputTokens: 10 } };
      },
    });
    const { root } = await runSolve({
      goal: 'Build a program from two pieces',
      handlers: {
        ...handlers,
        // left's first verdict is given once right has spent the tree.
        verifier: async (req, turn) => {
          if (req.nodeId === 'root.1' && taskOf(req).startsWith('is the work done')) {
            leftJudging();
            await spent;
          }
          return handlers.verifier!(req, turn);
        },
      },
      budget: 40_000,
      concurrency: 2,
      fake: splitCommands(['left', 'right']),
    });
    const left = root.children[0]!;
    // left still had most of its own allocation, but its ancestor had nothing: no second attempt.
    expect(left.tokens).toBeLessThan(left.allocation / 2);
    expect(left.attempts).toBe(1);
    expect(left.repairStop).toBe('budget');
    expect(left.verdict).toBe('NOT_DONE');
  });

  it('gives every leaf of a plan its declared allocation, however wide the plan, and each splitting node its assembly share on top', async () => {
    const allocation = { leafTokens: 30_000, assemblyTokens: 20_000 };
    const slugs = ['p1', 'p2', 'p3', 'p4', 'p5'];
    const { root } = await runSolve({
      goal: 'Build a program from five pieces', handlers: splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) }), budget: allocation, fake: splitCommands(slugs),
    });
    expect(root.children.map((c) => c.allocation)).toEqual(slugs.map(() => 30_000));
    expect(root.allocation).toBe(20_000 + 5 * 30_000);
    expect(root.children.map((c) => c.verdict)).toEqual(slugs.map(() => 'DONE'));
  });

  it('grows every ancestor when a child splits again, by what the child’s own plan needs', async () => {
    const allocation = { leafTokens: 30_000, assemblyTokens: 20_000 };
    // `deep` claims two criteria, so it is oversized and splits again (into the same two pieces).
    const { root } = await runSolve({
      goal: 'Build a program from two pieces', maxDepth: 2, budget: allocation,
      handlers: splitHandlers({ subtasks: [{ slug: 'deep', claims: ['deep works', 'deep is fast'] }, { slug: 'flat' }] }), fake: splitCommands(['deep', 'flat']),
    });
    const [deep, flat] = root.children;
    expect(deep!.children.map((c) => c.allocation)).toEqual([30_000, 30_000]);
    expect(deep!.allocation).toBe(20_000 + 2 * 30_000);
    expect(flat!.allocation).toBe(30_000);
    expect(root.allocation).toBe(20_000 + deep!.allocation + flat!.allocation);
  });

  it('counts a node’s calls cut short: replies cut at the length limit and calls its budget refused', async () => {
    const base = helloHandlers();
    const { root } = await runSolve({
      goal: GOAL,
      fake: HELLO_COMMANDS,
      handlers: { ...base, worker: async (req, turn) => (turn === 0 ? { content: null, finishReason: 'length' } : base.worker!(req, turn - 1)) },
    });
    expect(root.cuts).toEqual({ length: 1, budget: 0 });
    const starved = await runSolve({ goal: GOAL, budget: 2_500, usage: { inputTokens: 900, outputTokens: 100, cachedTokens: 0 }, fake: HELLO_COMMANDS, handlers: base });
    expect(starved.root.cuts?.budget).toBeGreaterThan(0);
    // A node nothing cut short carries no count at all, as trees recorded before it did.
    const { root: whole } = await runSolve({ goal: GOAL, fake: HELLO_COMMANDS, handlers: base });
    expect(whole.cuts).toBeUndefined();
  });
});
