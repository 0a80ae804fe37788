import { describe, expect, it } from 'vitest';
import { DRIFT_ALLOWANCE } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { call, json, type Handler } from '../../support/scripted-model.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';

/**
 * The drift judge's allowance, per loop, in the engine's own stages: a worker or merger that
 * triggers the judge at every step (a new write no check mentions) opens at most
 * DRIFT_ALLOWANCE drift-judge sessions per loop, so `harness plan` can bill them as a bound.
 */

const GOAL = 'Build a program from two pieces';
const slugs = ['left', 'right'];
/** Every turn writes a new file no check names: each call is progress (no loop flag) and a drift trigger. */
const scribbler: Handler = (_req, turn) => ({ toolCalls: [call('write_file', { path: `notes-${turn}.txt`, content: `turn ${turn}\n` })] });
const calm: Handler = () => json({ drift: 0, impossible: false, reason: 'on task' });

describe('the drift allowance (fake sandbox)', () => {
  it('a leaf worker that triggers the judge at every step opens at most the allowance of drift-judge sessions', async () => {
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })), worker: scribbler });
    const { model } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers: { ...handlers, drift_judge: calm }, maxTurns: 12, extra: { maxAttempts: 1, mergeAttempts: 1 } });
    const perLeaf = (id: string) => new Set(model.byRole('drift_judge').filter((r) => r.nodeId === id).map((r) => r.sessionId)).size;
    // Twelve triggers a leaf; the judge is asked four times.
    expect(slugs.map((_, i) => perLeaf(`root.${i + 1}`))).toEqual([DRIFT_ALLOWANCE, DRIFT_ALLOWANCE]);
  });

  it('so does a merger', async () => {
    const handlers = splitHandlers({ subtasks: slugs.map((slug) => ({ slug })), merger: scribbler });
    const { model } = await runSolve({ goal: GOAL, fake: splitCommands(slugs), handlers: { ...handlers, drift_judge: calm }, maxTurns: 12, extra: { maxAttempts: 1, mergeAttempts: 1 } });
    expect(new Set(model.byRole('drift_judge').filter((r) => r.nodeId === 'root').map((r) => r.sessionId)).size).toBe(DRIFT_ALLOWANCE);
  });
});
