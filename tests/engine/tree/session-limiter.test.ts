import { describe, expect, it } from 'vitest';
import { flatten } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { SessionGauge } from '../../support/session-gauge.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

const GOAL = 'Build a tiny program that prints the values of its pieces';
const SLUGS = ['a', 'b', 'c', 'd'];
// Two claims each: every piece is oversized, so each child of the root splits again (4 x 4 leaves at depth 2).
const PIECES = SLUGS.map((slug) => ({ slug, claims: [`${slug} reads its input`, `${slug} prints its value`] }));

/** A depth-2 tree with a fan-out of 4 at both levels (fake sandbox), its sessions counted by the client. */
async function fourByFour(concurrency?: number) {
  const gauge = new SessionGauge(10);
  const { root, model } = await runSolve({
    goal: GOAL, handlers: splitHandlers({ subtasks: PIECES }), maxDepth: 2, fake: splitCommands(SLUGS), concurrency,
    clients: (m) => ({ alpha: gauge.wrap(m), beta: gauge.wrap(m) }),
  });
  const leaves = flatten(root).filter((n) => n.depth === 2);
  const calls = (node: string) => model.requests.filter((r) => r.nodeId === node).length;
  return { gauge, leaves, calls, workers: new Set(model.byRole('worker').map((r) => r.nodeId)), planners: new Set(model.byRole('planner').map((r) => r.nodeId)) };
}

describe('one limiter bounds the sessions in flight across every level (fake sandbox)', () => {
  it('a 4 x 4 tree at depth 2 with a limit of 3 has exactly 3 sessions in flight at its peak, never more', async () => {
    const { gauge, leaves, workers, planners, calls } = await fourByFour(3);
    expect(planners.size).toBe(5);
    expect(leaves).toHaveLength(16);
    expect(workers.size).toBe(16);
    // Per-split queues would have run 4 x 4 at once; one limiter holds every level to 3, and reaches it.
    expect(gauge.peak).toBe(3);
    expect(gauge.now).toBe(0);
    // A unit that waited for a slot still runs, and is charged, in its own node (120 tokens a call).
    expect(leaves.map((l) => l.tokens)).toEqual(leaves.map((l) => calls(l.id) * 120));
  });

  it('never deadlocks at a limit of 1: a parent waiting for its children holds no slot', async () => {
    const { gauge, leaves } = await fourByFour(1);
    expect(leaves).toHaveLength(16);
    expect(gauge.peak).toBe(1);
  });

  it('bounds a tree given no limiter by its default of 4 sessions', async () => {
    const { gauge, leaves } = await fourByFour();
    expect(leaves).toHaveLength(16);
    expect(gauge.peak).toBe(4);
  });
});
