import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryEventSink, SELF_REVIEWED_REASON, assemble, build, flatten, type ModelRequest, type ModelSpec } from '../../../engine/index.js';
import { TWO_FAMILIES, runSolve } from '../../support/engine-harness.js';
import { FakeSandboxProvider } from '../../support/fake-sandbox.js';
import { ScriptedModel, call, json, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Build a program from two pieces';
const slugs = ['left', 'right'];
const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) });
const userText = (req: ModelRequest) => req.messages.filter((m) => m.role === 'user').map((m) => ('content' in m ? m.content : '')).join('\n');
const atRoot = (model: ScriptedModel, role: string) => model.requests.filter((r) => r.nodeId === 'root' && r.role === role);
/** The sessions of a role at the root, each once (a session is several calls). */
const sessionsAtRoot = (model: ScriptedModel, role: string) => [...new Set(atRoot(model, role).map((r) => r.sessionId))];

describe('the two arms at a merge (fake sandbox)', () => {
  it('gated: an independent reviewer rejects, its findings reach the next attempt, and an approval ends the loop early', async () => {
    const reviewer: Handler = (req) => (req.attempt === 1 ? json({ accept: false, findings: ['main.py prints the pieces in the wrong order'] }) : json({ accept: true, findings: [] }));
    const { root, model, events } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers: { ...handlers, reviewer }, extra: { arm: 'gated', mergeAttempts: 3 } });
    expect(sessionsAtRoot(model, 'merger')).toEqual(['gated/root/merger/1', 'gated/root/merger/2']);
    expect(userText(atRoot(model, 'merger').find((r) => r.attempt === 2)!)).toContain('- main.py prints the pieces in the wrong order');
    expect(root.merge).toMatchObject({
      arm: 'gated',
      stop: 'accept',
      attempts: [
        { attempt: 1, reviewer: { kind: 'independent', model: 'beta-m', family: 'beta', independent: true }, accept: false, verdict: 'NOT_DONE', seamChecks: { passed: 3, total: 3 } },
        { attempt: 2, reviewer: { kind: 'independent', model: 'beta-m', family: 'beta', independent: true }, accept: true, verdict: 'DONE' },
      ],
    });
    expect(root.verdict).toBe('DONE');
    expect(root.verifiedBy).toEqual(['beta']);
    // The reviewer never sees a contributor's family: it is asked with every contributor excluded.
    expect(events.ofType('merge_review').map((e) => [e.arm, e.kind, e.independent, e.verdictUsed])).toEqual([['gated', 'independent', true, true], ['gated', 'independent', true, true]]);
  });

  it('ungated: the merging agent reviews itself, every attempt is spent, no verdict is taken, and nobody else judges the merge', async () => {
    const selfReviewer: Handler = () => json({ accept: false, findings: ['I may have missed a piece'] });
    const { root, model, events } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers: { ...handlers, self_reviewer: selfReviewer }, extra: { arm: 'ungated', mergeAttempts: 3 } });
    expect(sessionsAtRoot(model, 'merger')).toHaveLength(3);
    expect(atRoot(model, 'self_reviewer').map((r) => `${r.sessionId}@${r.attempt}`)).toEqual(['ungated/root/self_reviewer/1@1', 'ungated/root/self_reviewer/2@2', 'ungated/root/self_reviewer/3@3']);
    // Its findings feed the next attempt.
    expect(userText(atRoot(model, 'merger').find((r) => r.attempt === 3)!)).toContain('- I may have missed a piece');
    // At the merge, no other family judges the merge: no reviewer and no verifier's opinion. The
    // only other family asked is the meta-verifier, once, and it judges the seam checks, not the merge.
    expect(atRoot(model, 'reviewer')).toEqual([]);
    expect(atRoot(model, 'verifier').map((r) => [r.sessionId, r.model, /^## Task: .*$/m.exec(userText(r))?.[0]])).toEqual([['ungated/root/verifier/1', 'beta-m', '## Task: are the checks adequate?']]);
    expect(events.events.filter((e) => e.nodeId === 'root' && e.type === 'verifier_opinion')).toEqual([]);
    expect(events.ofType('meta_verified').filter((e) => e.nodeId === 'root').map((e) => [e.arm, e.adequate, e.model])).toEqual([['ungated', true, 'beta-m']]);
    expect(events.ofType('merge_review').every((e) => e.kind === 'self' && !e.independent && !e.verdictUsed && e.family === 'alpha')).toBe(true);
    expect(root.verdict).toBe('SELF_REVIEWED');
    expect(root.reasons).toEqual([SELF_REVIEWED_REASON]);
    expect(root.verifiedBy).toEqual([]);
    expect(root.merge?.stop).toBe('max_attempts');
    expect(root.merge?.attempts.map((a) => [a.reviewer.kind, a.reviewer.family, a.reviewer.independent, a.verdict])).toEqual([
      ['self', 'alpha', false, 'self-review, not used'],
      ['self', 'alpha', false, 'self-review, not used'],
      ['self', 'alpha', false, 'self-review, not used'],
    ]);
    // An accepting self-review would not end the loop either.
    const accepting = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers, extra: { arm: 'ungated', mergeAttempts: 3 } });
    expect(sessionsAtRoot(accepting.model, 'merger')).toHaveLength(3);
  });

  it('the gated arm can only spend less: with equal attempts it stops at an approval, the ungated arm never does', async () => {
    const gated = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers, extra: { arm: 'gated', mergeAttempts: 2 } });
    const ungated = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers, extra: { arm: 'ungated', mergeAttempts: 2 } });
    expect(gated.root.merge?.attempts).toHaveLength(1);
    expect(ungated.root.merge?.attempts).toHaveLength(2);
  });

  it('never reports a self-review as independent, even when another family answers it', async () => {
    // alpha's endpoint is a gateway that answers the self-review with beta's model.
    const swapping = (model: ScriptedModel) => ({
      alpha: { complete: async (req: ModelRequest) => ({ ...(await model.complete(req)), ...(req.role === 'self_reviewer' ? { model: 'beta-m' } : {}) }) },
      beta: model,
    });
    const { root, events } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers, clients: swapping, extra: { arm: 'ungated', mergeAttempts: 2 } });
    expect(events.ofType('model_fallback').some((e) => e.role === 'self_reviewer' && /answered .* as family beta, which may not serve here \(only: alpha\)/.test(e.reason))).toBe(true);
    expect(root.merge?.attempts.map((a) => a.reviewer)).toEqual([
      { kind: 'self', model: null, family: null, independent: false },
      { kind: 'self', model: null, family: null, independent: false },
    ]);
    expect(root.verdict).toBe('SELF_REVIEWED');
    expect(root.verifiedBy).toEqual([]);
  });

  it('gated: a reviewer can only come from a family that contributed nothing, so without one nobody signs off', async () => {
    const roster: ModelSpec[] = TWO_FAMILIES.map((m) => (m.family === 'beta' ? { ...m, roles: ['verifier'] } : m));
    const { root, model } = await runSolve({ goal: GOAL, roster, fake: splitCommands(slugs), handlers, extra: { arm: 'gated', mergeAttempts: 2 } });
    expect(atRoot(model, 'reviewer')).toEqual([]);
    expect(root.merge?.attempts.map((a) => [a.reviewer.model, a.verdict])).toEqual([
      [null, 'NOT_DONE'],
      [null, 'NOT_DONE'],
    ]);
    expect(root.verdict).toBe('NOT_DONE');
    expect(root.reasons).toEqual(['no independent verifier signed off']);
  });

  it('neither reviewer can change the tree that will be graded: both work on a detached copy', async () => {
    const vandal: Handler = (_req, turn) => (turn === 0 ? { toolCalls: [call('run_command', { command: 'echo vandalised > main.py' })] } : json({ accept: true, findings: [] }));
    for (const arm of ['gated', 'ungated'] as const) {
      const fake = new FakeSandboxProvider({ ...splitCommands(slugs), 'echo vandalised > main.py': async (ws) => (await ws.write('main.py', 'vandalised\n'), { exitCode: 0 }) });
      const { root } = await runSolve({ goal: GOAL, fake, handlers: { ...handlers, reviewer: vandal, self_reviewer: vandal }, extra: { arm, mergeAttempts: 1 } });
      expect(fake.commands.filter((c) => c.command.startsWith('echo vandalised')).map((c) => c.purpose)).toEqual([arm === 'gated' ? 'root:review' : 'root:self-review']);
      expect(await readFile(path.join(root.workspace, 'main.py'), 'utf8')).toContain('import left');
    }
  });
});

describe('shared pairing: build once, assemble per arm (fake sandbox)', () => {
  it('both arms see the same leaves, paid once; each arm pays only its own merges', async () => {
    const model = new ScriptedModel(handlers);
    const events = new MemoryEventSink();
    const workRoot = await mkdtemp(path.join(tmpdir(), 'rdh-pair-'));
    const built = await build({
      goal: GOAL, budget: 500_000, maxDepth: 2, mergeAttempts: 2, roster: TWO_FAMILIES, clients: { alpha: model, beta: model },
      sandboxes: new FakeSandboxProvider(splitCommands(slugs)), workRoot, events, maxTurns: 12,
    });
    const leafCalls = model.requests.length;
    expect(model.requests.every((r) => r.arm === undefined)).toBe(true);
    const gated = await assemble(built, 'gated');
    const ungated = await assemble(built, 'ungated');
    // Assembling touched no leaf: every call after the build is a merge call of one arm, at the root.
    const merges = model.requests.slice(leafCalls);
    expect(new Set(merges.map((r) => r.nodeId))).toEqual(new Set(['root']));
    expect(merges.filter((r) => r.arm === 'gated').every((r) => r.sessionId.startsWith('gated/'))).toBe(true);
    expect(merges.filter((r) => r.arm === 'ungated').every((r) => r.sessionId.startsWith('ungated/'))).toBe(true);
    expect(merges.filter((r) => !r.arm)).toEqual([]);
    expect(gated.root.children).toEqual(ungated.root.children);
    expect(gated.root.children.map((c) => c.workspace)).toEqual(built.leaves.map((l) => l.workspace));
    expect(gated.root.workspace).not.toBe(ungated.root.workspace);
    // The build is paid once: each arm's root is the build's spend plus its own merges, 120 tokens a call.
    const tokensOf = (arm: string) => merges.filter((r) => r.arm === arm).length * 120;
    expect(gated.root.tokens).toBe(built.spend.tokens + tokensOf('gated'));
    expect(ungated.root.tokens).toBe(built.spend.tokens + tokensOf('ungated'));
    expect(built.spend.tokens).toBe(leafCalls * 120);
    // Events say which arm's merge they belong to.
    expect(new Set(events.events.filter((e) => e.type === 'merge_review').map((e) => e.arm))).toEqual(new Set(['gated', 'ungated']));
    await expect(assemble(built, 'gated')).rejects.toThrow('the gated arm has already assembled this tree');
    expect(flatten(gated.root).filter((n) => n.merge).map((n) => n.merge!.arm)).toEqual(['gated']);
  });

  it('a build for one arm alone (independent pairing) says so on every call, and only that arm may assemble it', async () => {
    const model = new ScriptedModel(handlers);
    const built = await build({
      goal: GOAL, budget: 500_000, maxDepth: 2, roster: TWO_FAMILIES, clients: { alpha: model, beta: model },
      sandboxes: new FakeSandboxProvider(splitCommands(slugs)), workRoot: await mkdtemp(path.join(tmpdir(), 'rdh-pair-')), forArm: 'ungated', maxTurns: 12,
    });
    await expect(assemble(built, 'gated')).rejects.toThrow('this tree was built for the ungated arm alone');
    await assemble(built, 'ungated');
    expect(model.requests.every((r) => r.arm === 'ungated')).toBe(true);
  });
});
