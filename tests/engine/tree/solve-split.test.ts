import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelSpec } from '../../../engine/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { runSolve } from '../../support/engine-harness.js';
import { call, json, taskOf, type Handler } from '../../support/scripted-model.js';

/** Which child a request belongs to, from its node id (`root.1`, `root.2`, ...). */
const childOf = (req: ModelRequest) => req.nodeId;

/** Each piece writes one module `<slug>.py` defining `value()`; the merger writes `main.py` joining them. */
function splitHandlers(options: {
  subtasks: Array<{ slug: string; prerequisite?: boolean; goal?: string }>;
  assumptions?: string[];
  childAssumptions?: Record<string, string[]>;
  worker?: Handler;
}): Record<string, Handler> {
  const slugByNode = new Map(options.subtasks.map((s, i) => [`root.${i + 1}`, s.slug]));
  return {
    planner: () =>
      json({
        mode: 'split',
        assumptions: options.assumptions ?? ['pieces are plain modules at the root'],
        layout: `${options.subtasks.map((s) => `${s.slug}.py: def value() -> str`).join('\n')}\nmain.py: prints every value() joined by spaces`,
        subtasks: options.subtasks.map((s) => ({ slug: s.slug, goal: s.goal ?? `Build the ${s.slug} piece`, prerequisite: s.prerequisite ?? false, claims: [`${s.slug} works`] })),
      }),
    checker: (req) => {
      if (taskOf(req).startsWith('write integration checks')) {
        return json({ checks: [{ id: 'main-runs', description: 'main joins pieces', command: `test "$(python3 main.py)" = "${options.subtasks.map((s) => s.slug).join(' ')}"` }] });
      }
      const slug = slugByNode.get(childOf(req))!;
      return json({
        assumptions: options.childAssumptions?.[slug] ?? [],
        checks: [{ id: `${slug}-value`, description: `value() returns ${slug}`, command: `python3 -c "import ${slug}; assert ${slug}.value() == '${slug}'"` }],
      });
    },
    worker:
      options.worker ??
      ((req, turn) => {
        const slug = slugByNode.get(childOf(req))!;
        return [
          { toolCalls: [call('write_file', { path: `${slug}.py`, content: `def value():\n    return ${JSON.stringify(slug)}\n` })] },
          { toolCalls: [call('finish', { summary: `wrote ${slug}.py` })] },
        ][Math.min(turn, 1)]!;
      }),
    merger: (_req, turn) =>
      [
        {
          toolCalls: [
            call('run_command', { command: 'for d in .children/*/; do cp "$d"*.py . ; done' }),
            call('write_file', {
              path: 'main.py',
              content: `${options.subtasks.map((s) => `import ${s.slug}`).join('\n')}\nprint(" ".join([${options.subtasks.map((s) => `${s.slug}.value()`).join(', ')}]))\n`,
            }),
          ],
        },
        { toolCalls: [call('finish', { summary: 'assembled', interface_changes: ['main.py imports each piece by module name'] })] },
      ][Math.min(turn, 1)]!,
    verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: true }) : json({ verdict: 'DONE', findings: [] })),
    drift_judge: () => json({ drift: 0, impossible: false, reason: '' }),
  };
}

const GOAL = 'Build a tiny program that prints the values of its pieces';

describe.skipIf(!HAS_DOCKER)('a split node, end to end', () => {
  it('builds the prerequisite first and alone, hands its real listing to the siblings, then assembles under .children/', async () => {
    const { root, model, events } = await runSolve({
      goal: GOAL,
      handlers: splitHandlers({ subtasks: [{ slug: 'base', prerequisite: true }, { slug: 'left' }, { slug: 'right' }] }),
    });
    expect(root.mode).toBe('split');
    expect(root.children.map((c) => `${c.slug}:${c.verdict}`)).toEqual(['base:DONE', 'left:DONE', 'right:DONE']);
    const started = events.ofType('node_started').map((e) => e.nodeId);
    const baseDone = events.events.findIndex((e) => e.type === 'verdict' && e.nodeId === 'root.1');
    const siblingsStart = events.events.findIndex((e) => e.type === 'node_started' && e.nodeId !== 'root' && e.nodeId !== 'root.1');
    expect(started.slice(0, 2)).toEqual(['root', 'root.1']);
    expect(baseDone).toBeLessThan(siblingsStart);
    // Siblings got the prerequisite's real files, not a description.
    const leftBrief = model.byRole('worker').find((r) => r.nodeId === 'root.2')!.messages[1]!;
    expect('content' in leftBrief && leftBrief.content).toContain('## Already built by a prerequisite (real files, present in your workspace)\nbase.py');
    expect(existsSync(path.join(root.children[1]!.workspace, 'base.py'))).toBe(true);
    // Assembly: children under .children/<slug>/, interface changes recorded, seam checks written after the fact.
    for (const slug of ['base', 'left', 'right']) expect(existsSync(path.join(root.workspace, '.children', slug, `${slug}.py`))).toBe(true);
    expect(root.interfaceChanges).toEqual(['main.py imports each piece by module name']);
    expect(events.ofType('checks_written').find((e) => e.nodeId === 'root')!.reason).toBe('seam');
    expect(root.verdict).toBe('DONE');
    expect(root.verifiedBy).toEqual(['beta']);
  });

  it('charges two concurrent siblings exactly their own tokens', async () => {
    // Left's calls are 1000 tokens each, right's 10: any cross-charging shows at once.
    const big = { inputTokens: 900, outputTokens: 100, cachedTokens: 0 };
    const small = { inputTokens: 7, outputTokens: 3, cachedTokens: 0 };
    const handlers = splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }] });
    const sized = Object.fromEntries(
      Object.entries(handlers).map(([role, h]) => [
        role,
        async (req: ModelRequest, turn: number) => {
          // Yield so the siblings' calls interleave.
          await new Promise((r) => setTimeout(r, Math.random() * 20));
          const reply = await h(req, turn);
          return { ...reply, usage: req.nodeId === 'root.1' ? big : req.nodeId === 'root.2' ? small : undefined };
        },
      ]),
    );
    const { root, model } = await runSolve({ goal: GOAL, handlers: sized, concurrency: 2 });
    const [left, right] = root.children;
    const calls = (node: string) => model.requests.filter((r) => r.nodeId === node).length;
    expect(left!.tokens).toBe(calls('root.1') * 1000);
    expect(right!.tokens).toBe(calls('root.2') * 10);
    expect(root.tokens).toBe(left!.tokens + right!.tokens + calls('root') * 120);
  });

  it('stops a branch at its allocation while its sibling still gets its share', async () => {
    const handlers = splitHandlers({
      subtasks: [{ slug: 'greedy' }, { slug: 'modest' }],
      worker: (req, turn) => {
        if (req.nodeId === 'root.1') return { toolCalls: [call('run_command', { command: `echo step ${turn}` })] };
        return [
          { toolCalls: [call('write_file', { path: 'modest.py', content: 'def value():\n    return "modest"\n' })] },
          { toolCalls: [call('finish', { summary: 'ok' })] },
        ][Math.min(turn, 1)]!;
      },
    });
    const { root } = await runSolve({ goal: GOAL, handlers, budget: 20_000, maxTurns: 200, usage: { inputTokens: 400, outputTokens: 100, cachedTokens: 0 } });
    const [greedy, modest] = root.children;
    // Each child gets 85% of the root's remainder, halved.
    expect(greedy!.allocation).toBe(modest!.allocation);
    expect(greedy!.tokens).toBeLessThanOrEqual(greedy!.allocation + 500);
    expect(greedy!.verdict).not.toBe('DONE');
    expect(modest!.verdict).toBe('DONE');
    expect(modest!.tokens).toBeLessThanOrEqual(modest!.allocation);
  });

  it('carries a child NEEDS HUMAN question up to the parent', async () => {
    const { root } = await runSolve({
      goal: GOAL,
      handlers: splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }], childAssumptions: { right: ['NEEDS HUMAN: which SMTP server should right use?'] } }),
    });
    expect(root.children.map((c) => c.verdict)).toEqual(['DONE', 'NEEDS_HUMAN']);
    expect(root.verdict).toBe('NEEDS_HUMAN');
    expect(root.openQuestions).toEqual(['which SMTP server should right use?']);
  });

  it('never lets a child split under a cap of one level', async () => {
    const handlers = splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }] });
    const { root, model } = await runSolve({ goal: GOAL, handlers, maxDepth: 1 });
    expect(root.children.every((c) => c.mode === 'leaf' && c.forcedExecute?.startsWith('depth cap'))).toBe(true);
    expect(model.byRole('planner').map((r) => r.nodeId)).toEqual(['root']);
  });
});

describe.skipIf(!HAS_DOCKER)('independence is judged on who actually answered', () => {
  const THREE: ModelSpec[] = [
    { name: 'alpha-medium', model: 'alpha-m', endpoint: 'alpha', family: 'alpha', tier: 'medium' },
    { name: 'beta-medium', model: 'beta-m', endpoint: 'beta', family: 'beta', tier: 'medium' },
    { name: 'gamma-medium', model: 'gamma-m', endpoint: 'gamma', family: 'gamma', tier: 'medium' },
  ];

  it('a rate-limit fallback to the verifier family disqualifies that family', async () => {
    const { ModelRateLimitedError } = await import('../../../engine/index.js');
    const base = (await import('../../support/scripted-model.js')).helloHandlers();
    const { root, model, events } = await runSolve({
      goal: 'Write hello.py that prints hello',
      roster: THREE,
      handlers: {
        ...base,
        // alpha's worker endpoint is rate limited: the work falls back to beta.
        worker: (req, turn) => {
          if (req.model === 'alpha-m') throw new ModelRateLimitedError('alpha-m', 5_000);
          return base.worker!(req, turn);
        },
      },
    });
    expect(events.ofType('model_fallback')[0]).toMatchObject({ role: 'worker', from: 'alpha-medium', to: 'beta-medium' });
    expect(root.contributorFamilies.sort()).toEqual(['alpha', 'beta']);
    expect(model.byRole('verifier').every((r) => r.model === 'gamma-m')).toBe(true);
    expect(root.verdict).toBe('DONE');
    expect(root.verifiedBy).toEqual(['gamma']);
  });

  it('with no uninvolved family left, the node cannot be DONE', async () => {
    const { ModelRateLimitedError } = await import('../../../engine/index.js');
    const base = (await import('../../support/scripted-model.js')).helloHandlers();
    const { root } = await runSolve({
      goal: 'Write hello.py that prints hello',
      roster: THREE.slice(0, 2),
      handlers: { ...base, worker: (req, turn) => (req.model === 'alpha-m' ? Promise.reject(new ModelRateLimitedError('alpha-m', null)) : base.worker!(req, turn)) },
    });
    expect(root.checkResults.every((c) => c.passed)).toBe(true);
    expect(root.verdict).toBe('NOT_DONE');
    expect(root.reasons).toEqual(['no independent verifier signed off']);
  });
});
