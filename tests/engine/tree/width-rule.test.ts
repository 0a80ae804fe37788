import { describe, expect, it } from 'vitest';
import { cutToWidth, type ModelRequest } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { json, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers, type Piece } from '../../support/split-script.js';

/**
 * max_children in the engine: a plan wider than the bound is refused, the planner asked once
 * more with the bound stated, and an answer still too wide cut by the written rule
 * (engine/tree/width-rule.ts), in both arms, with a `width_bounded` event for every refusal.
 */

const GOAL = 'Build a tiny program that prints the values of its pieces';
const PIECES: Piece[] = [{ slug: 'left' }, { slug: 'mid' }, { slug: 'right' }];
const lastText = (req: ModelRequest) => {
  const m = req.messages.at(-1);
  return m && 'content' in m ? (m.content ?? '') : '';
};

/** The planner answers `first` pieces, then (asked again) `second`. */
function planner(first: Piece[], second: Piece[]): Handler {
  const wide = splitHandlers({ subtasks: first }).planner!;
  const narrow = splitHandlers({ subtasks: second }).planner!;
  return (req, turn) => (req.sessionId === 'root/planner/1' ? wide(req, turn) : narrow(req, turn));
}

async function solveBounded(arm: 'gated' | 'ungated', plannerHandler: Handler) {
  const handlers = { ...splitHandlers({ subtasks: PIECES }), planner: plannerHandler };
  return runSolve({ goal: GOAL, handlers, maxDepth: 1, fake: splitCommands(['left', 'mid', 'right']), extra: { arm, maxChildren: 2 } });
}

describe('the width rule (max_children)', () => {
  it('cuts by the written rule: the first max_children - 1 kept, the trailing ones merged into the last, nothing claimed lost', () => {
    const piece = (slug: string, extra: Partial<{ prerequisite: boolean; kind: 'work' | 'decision' }> = {}) => ({
      slug, goal: `Build ${slug}`, kind: extra.kind ?? ('work' as const), prerequisite: extra.prerequisite ?? false, artifacts: [`${slug}.py`], criteria: [`${slug} runs`], claims: [`${slug} works`],
    });
    const four = [piece('a'), piece('b'), piece('c', { kind: 'decision' }), piece('d', { prerequisite: true })];
    expect(cutToWidth(four, 4)).toEqual(four);
    expect(cutToWidth(four, 2)).toEqual([
      piece('a'),
      { slug: 'b', goal: 'Build b\n\nBuild c\n\nBuild d', kind: 'work', prerequisite: true, artifacts: ['b.py', 'c.py', 'd.py'], criteria: ['b runs', 'c runs', 'd runs'], claims: ['b works', 'c works', 'd works'] },
    ]);
    expect(() => cutToWidth(four, 1)).toThrow(/at least 2/);
  });

  for (const arm of ['gated', 'ungated'] as const) {
    it(`${arm}: a plan still too wide after the re-ask is cut to the bound, and the cut is an event`, async () => {
      const { root, model, events } = await solveBounded(arm, planner(PIECES, PIECES));
      const plans = model.byRole('planner').filter((r) => r.nodeId === 'root');
      // The re-ask is a session of its own (a real call, counted), continuing the conversation with the bound stated.
      expect(plans.map((r) => r.sessionId)).toEqual(['root/planner/1', 'root/planner/2']);
      expect(lastText(plans[1]!)).toMatch(/^Your plan splits into 3 pieces, but a node may have at most 2 children\./);
      expect(plans[1]!.messages.at(-2)).toMatchObject({ role: 'assistant' });
      expect(root.children.map((c) => c.id)).toEqual(['root.1', 'root.2']);
      const planned = events.ofType('node_planned').find((e) => e.nodeId === 'root')!;
      expect(planned.subtasks.map((s) => [s.slug, s.claims])).toEqual([['left', ['left works']], ['mid', ['mid works', 'right works']]]);
      expect(planned.subtasks[1]!.goal).toBe('Build the mid piece\n\nBuild the right piece');
      expect(events.ofType('width_bounded').map(({ nodeId, maxChildren, asked, reasked, answered, kept, cut }) => ({ nodeId, maxChildren, asked, reasked, answered, kept, cut }))).toEqual([
        { nodeId: 'root', maxChildren: 2, asked: 3, reasked: true, answered: 3, kept: 2, cut: true },
      ]);
    });

    it(`${arm}: a planner that replans within the bound when asked again is taken at its word, no cut`, async () => {
      const { root, events } = await solveBounded(arm, planner(PIECES, [{ slug: 'left' }, { slug: 'mid', claims: ['mid works', 'right works'] }]));
      expect(root.children.map((c) => c.slug)).toEqual(['left', 'mid']);
      expect(events.ofType('width_bounded').map((e) => [e.asked, e.answered, e.kept, e.cut])).toEqual([[3, 2, 2, false]]);
    });
  }

  it('leaves a plan within the bound, and every plan when there is no bound, alone: one planner session, no event', async () => {
    for (const extra of [{ maxChildren: 3 }, {}]) {
      const handlers = splitHandlers({ subtasks: PIECES });
      const { root, model, events } = await runSolve({ goal: GOAL, handlers, maxDepth: 1, fake: splitCommands(['left', 'mid', 'right']), extra });
      expect(root.children).toHaveLength(3);
      expect(model.byRole('planner').filter((r) => r.nodeId === 'root')).toHaveLength(1);
      expect(events.ofType('width_bounded')).toEqual([]);
    }
  });

  it('refuses a bound below 2 before any call', async () => {
    await expect(runSolve({ goal: GOAL, handlers: { planner: () => json({ mode: 'execute' }) }, fake: {}, extra: { maxChildren: 1 } })).rejects.toThrow(/maxChildren must be a whole number of at least 2/);
  });
});
