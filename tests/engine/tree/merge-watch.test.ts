import { describe, expect, it } from 'vitest';
import { runSolve } from '../../support/engine-harness.js';
import { call, json, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Build a program from two pieces';
const slugs = ['left', 'right'];

describe('the merge is watched like a leaf (fake sandbox)', () => {
  it('ends a merger that loops, and records the monitor\'s flag on the parent', async () => {
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })), merger: () => ({ toolCalls: [call('list_files', {})] }) });
    const { root, events } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers, maxTurns: 20 });
    expect(events.ofType('monitor_flag').filter((f) => f.nodeId === 'root').map((f) => f.kind)).toEqual(['repeat', 'repeat']);
    expect(root.monitorFlags[0]).toMatch(/^repeat: list_files called 3 times/);
  });

  it('asks the drift judge when the merger writes what the layout never mentions, and ends a drifting merge', async () => {
    const handlers = splitHandlers({
      subtasks: slugs.map((slug) => ({ slug })),
      merger: () => ({ toolCalls: [call('write_file', { path: 'poem.txt', content: 'roses are red\n' })] }),
    });
    const judged: string[] = [];
    const drift: Handler = (req) => (judged.push(req.nodeId), json({ drift: 9, impossible: false, reason: 'writing poetry instead of assembling' }));
    const { root, events } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers: { ...handlers, drift_judge: drift } });
    expect(judged).toContain('root');
    expect(events.ofType('monitor_flag').find((f) => f.nodeId === 'root')).toMatchObject({ kind: 'drift', detail: 'drift 9/10: writing poetry instead of assembling' });
    expect(root.verdict).not.toBe('DONE');
  });

  it('holds the merger to a work cap: a merge that spends it ends, and the assembly is still judged', async () => {
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })) });
    const merger: Handler = async (req, turn) => ({ ...(await handlers.merger!(req, turn)), usage: turn === 0 ? { inputTokens: 1_300_000, outputTokens: 10 } : undefined });
    const { root, model, events } = await runSolve({ goal: GOAL, budget: 2_000_000, fake: splitCommands(slugs), handlers: { ...handlers, merger }, extra: { maxAttempts: 1, mergeAttempts: 1 } });
    // The first merge turn used more than 60% of what the parent had left for assembly: no second turn.
    expect(model.byRole('merger')).toHaveLength(1);
    expect(events.ofType('checks_run').some((e) => e.nodeId === 'root' && e.by === 'reviewer')).toBe(true);
    expect(root.verdict).toBe('DONE');
  });
});
