import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flatten, type ModelRequest } from '../../../engine/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { runSolve } from '../../support/engine-harness.js';
import { FakeSandboxProvider } from '../../support/fake-sandbox.js';
import { json } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Build a tiny program that prints the values of its pieces';
const briefOf = (req: ModelRequest) => {
  const user = req.messages.find((m) => m.role === 'user');
  return user && 'content' in user ? (user.content ?? '') : '';
};

describe.skipIf(!HAS_DOCKER)('a split node, end to end in real sandboxes', () => {
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
    expect(briefOf(model.byRole('worker').find((r) => r.nodeId === 'root.2')!)).toContain('## Already built by a prerequisite (real files, present in your workspace)\nbase.py');
    expect(existsSync(path.join(root.children[1]!.workspace, 'base.py'))).toBe(true);
    // Each node says which nodes' files it was handed, so what it built itself can be told apart.
    expect(root.children.map((c) => [c.id, c.seeds])).toEqual([['root.1', undefined], ['root.2', ['root.1']], ['root.3', ['root.1']]]);
    // Assembly: children under .children/<slug>/, interface changes recorded, seam checks written after the fact.
    for (const slug of ['base', 'left', 'right']) expect(existsSync(path.join(root.workspace, '.children', slug, `${slug}.py`))).toBe(true);
    expect(root.interfaceChanges).toEqual(['main.py imports each piece by module name']);
    expect(events.ofType('checks_written').find((e) => e.nodeId === 'root')!.reason).toBe('seam');
    expect(root.checkResults.map((c) => `${c.id}:${c.passed}`)).toEqual(['main-runs:true', 'main-exists:true', 'pieces-at-root:true']);
    expect(root.verdict).toBe('DONE');
    expect(root.verifiedBy).toEqual(['beta']);
  });
});

describe('a split node (fake sandbox)', () => {
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
    const { root, model } = await runSolve({ goal: GOAL, handlers: sized, concurrency: 2, fake: splitCommands(['left', 'right']) });
    const [left, right] = root.children;
    const calls = (node: string) => model.requests.filter((r) => r.nodeId === node).length;
    expect(left!.verdict).toBe('DONE');
    expect(left!.tokens).toBe(calls('root.1') * 1000);
    expect(right!.tokens).toBe(calls('root.2') * 10);
    expect(root.tokens).toBe(left!.tokens + right!.tokens + calls('root') * 120);
  });

  it('carries a child NEEDS HUMAN question up to the parent', async () => {
    const { root } = await runSolve({
      goal: GOAL,
      handlers: splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }], childAssumptions: { right: ['NEEDS HUMAN: which SMTP server should right use?'] } }),
      fake: splitCommands(['left', 'right']),
    });
    expect(root.children.map((c) => c.verdict)).toEqual(['DONE', 'NEEDS_HUMAN']);
    expect(root.verdict).toBe('NEEDS_HUMAN');
    expect(root.openQuestions).toEqual(['which SMTP server should right use?']);
  });

  it('never lets a child split under a cap of one level', async () => {
    const { root, model } = await runSolve({ goal: GOAL, handlers: splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }] }), maxDepth: 1, fake: splitCommands(['left', 'right']) });
    expect(root.children.every((c) => c.mode === 'leaf' && c.forcedExecute?.startsWith('depth cap'))).toBe(true);
    expect(model.byRole('planner').map((r) => r.nodeId)).toEqual(['root']);
  });

  it('says INCOMPLETE, naming the children that are not done, when its seams pass but a child did not', async () => {
    const handlers = splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }] });
    const { root } = await runSolve({
      goal: GOAL,
      handlers: { ...handlers, verifier: (req, turn) => (req.nodeId === 'root.2' && !briefOf(req).includes('are the checks adequate') ? json({ verdict: 'NOT_DONE', findings: ['right is too terse'] }) : handlers.verifier!(req, turn)) },
      fake: splitCommands(['left', 'right']),
    });
    expect(root.children.map((c) => c.verdict)).toEqual(['DONE', 'NOT_DONE']);
    expect(root.checkResults.every((c) => c.passed)).toBe(true);
    expect(root.verdict).toBe('INCOMPLETE');
    expect(root.reasons[0]).toBe('1 of 2 children are not done: right NOT_DONE');
  });
});

describe('the contract stage (fake sandbox)', () => {
  it('asks a root that splits without a layout again, and goes on with the layout it then states', async () => {
    const handlers = splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }] });
    let n = 0;
    const { root, model } = await runSolve({
      goal: GOAL,
      handlers: { ...handlers, planner: async (req, turn) => (++n === 1 ? json({ ...JSON.parse(((await handlers.planner!(req, turn)) as { content: string }).content), layout: null }) : handlers.planner!(req, turn)) },
      fake: splitCommands(['left', 'right']),
    });
    const again = model.byRole('planner')[1]!;
    expect(again.sessionId).toBe('root/planner/1');
    expect(again.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^Your plan splits the root but states no layout\./) });
    expect(briefOf(model.byRole('worker')[0]!)).toContain('## Layout and interfaces you must use\nleft.py: def value() -> str');
    expect(root.verdict).toBe('DONE');
  });

  it('stops a root that splits without a layout twice, before any child starts', async () => {
    const { root, model } = await runSolve({
      goal: GOAL,
      handlers: splitHandlers({ subtasks: [{ slug: 'left' }, { slug: 'right' }], layout: null }),
      fake: splitCommands(['left', 'right']),
    });
    expect(root.verdict).toBe('STOPPED');
    expect(root.stop).toEqual({ by: 'contract', model: null, code: 'contract_missing' });
    expect(root.children).toEqual([]);
    expect(model.requests.filter((r) => r.nodeId !== 'root')).toEqual([]);
  });

  it('hands a prerequisite\'s real listing, and its files, to every descendant of its siblings', async () => {
    // `wide` claims two criteria, so it is oversized and splits again under the cap of 2.
    const subtasks = [{ slug: 'base', prerequisite: true }, { slug: 'wide', claims: ['wide a', 'wide b'] }];
    const handlers = splitHandlers({ subtasks });
    const fake = new FakeSandboxProvider({ ...splitCommands(['base', 'wide']) });
    const { root, model } = await runSolve({
      goal: GOAL,
      handlers: {
        ...handlers,
        // The nested split of `wide` plans two pieces of its own.
        planner: (req, turn) =>
          req.nodeId === 'root'
            ? handlers.planner!(req, turn)
            : json({ mode: 'split', assumptions: [], layout: null, subtasks: [{ slug: 'w1', goal: 'first half' }, { slug: 'w2', goal: 'second half' }] }),
      },
      fake,
    });
    expect(flatten(root).map((n) => n.id)).toEqual(['root', 'root.1', 'root.2', 'root.2.1', 'root.2.2']);
    const grandchild = flatten(root).find((n) => n.id === 'root.2.1')!;
    expect(briefOf(model.byRole('worker').find((r) => r.nodeId === 'root.2.1')!)).toContain('## Already built by a prerequisite (real files, present in your workspace)\nbase.py');
    expect(existsSync(path.join(grandchild.workspace, 'base.py'))).toBe(true);
    expect(grandchild.seeds).toEqual(['root.1']);
  });

  it('stops the siblings of a failed prerequisite, with that reason, and assembles nothing', async () => {
    const handlers = splitHandlers({ subtasks: [{ slug: 'base', prerequisite: true }, { slug: 'left' }, { slug: 'right' }] });
    const { root, model } = await runSolve({
      goal: GOAL,
      // base's worker gives up both times: it ends NOT_DONE.
      handlers: { ...handlers, worker: (req, turn) => (req.nodeId === 'root.1' ? { content: 'I give up' } : handlers.worker!(req, turn)) },
      fake: splitCommands(['base', 'left', 'right']),
    });
    expect(root.children.map((c) => `${c.slug}:${c.verdict}`)).toEqual(['base:NOT_DONE', 'left:STOPPED', 'right:STOPPED']);
    expect(root.children[1]!.stop).toEqual({ by: 'prerequisite', model: null, code: 'prerequisite_failed' });
    expect(root.children[1]!.reasons[0]).toMatch(/^prerequisite base ended NOT_DONE: /);
    expect(model.requests.filter((r) => r.nodeId === 'root.2' || r.nodeId === 'root.3')).toEqual([]);
    expect(model.byRole('merger')).toEqual([]);
    expect(root.verdict).toBe('INCOMPLETE');
  });

  it('treats a listing it cannot read as an error, not as "nothing was built"', async () => {
    const handlers = splitHandlers({ subtasks: [{ slug: 'base', prerequisite: true }, { slug: 'left' }] });
    const fake = new FakeSandboxProvider(splitCommands(['base', 'left']));
    const { root, model } = await runSolve({
      goal: GOAL,
      handlers: {
        ...handlers,
        // Once base is judged, its workspace vanishes before the parent can list it.
        verifier: async (req, turn) => {
          const reply = await handlers.verifier!(req, turn);
          if (req.nodeId === 'root.1' && !briefOf(req).includes('are the checks adequate')) {
            await rm(path.join(fake.created.find((c) => c.purpose === 'root.1')!.workspaceDir), { recursive: true, force: true });
          }
          return reply;
        },
      },
      fake,
    });
    expect(root.children[0]!.verdict).toBe('DONE');
    expect(root.verdict).toBe('STOPPED');
    expect(root.stop).toMatchObject({ by: 'workspace', code: 'workspace_listing' });
    expect(root.reasons[0]).toMatch(/^cannot list the workspace .*root\.1\/ws: ENOENT/);
    expect(model.requests.filter((r) => r.nodeId === 'root.2')).toEqual([]);
  });
});
