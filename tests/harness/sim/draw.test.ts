import { describe, expect, it } from 'vitest';
import { SimParams } from '../../../harness/index.js';
import {
  draw,
  identityDraws,
  isolatedDefects,
  leafDraws,
  reviewDraws,
  sampleArm,
  samplePair,
  sampleShared,
  type DecisionKey,
  type DrawKey,
  type DrawSource,
} from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

const KEY: DrawKey = { cap: 3, repetition: 2, node: 'root.1', role: 'executor', attempt: 1, decision: 'defect', item: 'R07' };
const PARAMS = SimParams.parse({ early_leaf_rate: 0, seam_defect_rate: 0.5, leaf_defect_rate: 0.3, judge_recall: 0.6, self_review_recall: 0.6 });
const DEFECTS = isolatedDefects(SPEC_IDS);
const CELL = { seed: PARAMS.seed, cap: 3, repetition: 5 };

/** Fisher-Yates with a fixed LCG, so the shuffle is reproducible. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A source that records every key it is asked for. */
function recording(source: DrawSource): { source: DrawSource; keys: DecisionKey[] } {
  const keys: DecisionKey[] = [];
  return { keys, source: (key) => (keys.push(key), source(key)) };
}

describe('identity-keyed draws', () => {
  it('are a pure function of the key, in [0, 1), and change with every component', () => {
    const u = draw(1, KEY);
    expect(u).toBeGreaterThanOrEqual(0);
    expect(u).toBeLessThan(1);
    expect(draw(1, { ...KEY })).toBe(u);
    const variants: [string, number][] = [
      ['seed', draw(2, KEY)],
      ['cap', draw(1, { ...KEY, cap: 4 })],
      ['repetition', draw(1, { ...KEY, repetition: 3 })],
      ['arm', draw(1, { ...KEY, arm: 'gated' })],
      ['node', draw(1, { ...KEY, node: 'root.2' })],
      ['role', draw(1, { ...KEY, role: 'merger' })],
      ['attempt', draw(1, { ...KEY, attempt: 2 })],
      ['decision', draw(1, { ...KEY, decision: 'variant' })],
      ['item', draw(1, { ...KEY, item: 'R08' })],
      ['item type', draw(1, { ...KEY, item: 7 })],
    ];
    expect(variants.filter(([, v]) => v === u).map(([name]) => name)).toEqual([]);
  });

  it('look uniform: ten equal bins over 20000 keys pass a chi-square test', () => {
    const bins = new Array(10).fill(0);
    for (let i = 0; i < 20_000; i++) bins[Math.floor(draw(9, { ...KEY, item: i }) * 10)]++;
    const chi2 = bins.reduce((a, b) => a + (b - 2000) ** 2 / 2000, 0);
    // 9 degrees of freedom: P(chi2 > 27.9) = 0.001.
    expect(chi2).toBeLessThan(27.9);
  });

  it('do not depend on the order they are made in: a shuffled, interleaved replay builds the same pair', async () => {
    const direct = samplePair(PARAMS, { cap: 3, repetition: 5, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS });
    const { source, keys } = recording(identityDraws(CELL));
    samplePair(PARAMS, { cap: 3, repetition: 5, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS, draws: source });
    expect(keys.length).toBeGreaterThan(100);
    // Make the same draws again, in shuffled order, from interleaved async tasks, each with a fresh source.
    const table = new Map<string, number>();
    const order = shuffled(keys, 17);
    await Promise.all(
      [0, 1, 2, 3].map(async (worker) => {
        for (const key of order.filter((_, i) => i % 4 === worker)) {
          await Promise.resolve();
          table.set(JSON.stringify(key), identityDraws(CELL)(key));
        }
      }),
    );
    const replay = samplePair(PARAMS, { cap: 3, repetition: 5, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS, draws: (key) => table.get(JSON.stringify(key))! });
    expect(replay).toEqual(direct);
  });

  it('give the same cell whatever was sampled before it, and the same arm whichever arm is assembled first', () => {
    const alone = samplePair(PARAMS, { cap: 3, repetition: 5, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS });
    for (let r = 0; r < 5; r++) samplePair(PARAMS, { cap: 3, repetition: r, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS });
    expect(samplePair(PARAMS, { cap: 3, repetition: 5, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS })).toEqual(alone);
    const draws = identityDraws(CELL);
    const shared = sampleShared(PARAMS, draws, DEFECTS, 3, SPEC_IDS);
    const ungatedFirst = sampleArm(PARAMS, draws, DEFECTS, shared, 'ungated', 3, SPEC_IDS);
    const gatedSecond = sampleArm(PARAMS, draws, DEFECTS, shared, 'gated', 3, SPEC_IDS);
    expect([gatedSecond, ungatedFirst]).toEqual([alone.arms.gated, alone.arms.ungated]);
    // Leaves drawn one by one in reverse (as concurrent leaf sessions may finish) match too.
    const reversed = [...shared.leaves].reverse().map((leaf) => leafDraws(PARAMS, draws, DEFECTS, { path: leaf.path, requirements: leaf.claims.map((c) => c.requirement) }));
    expect(reversed.reverse()).toEqual(shared.leaves.map(({ delivered, claims }) => ({ delivered, claims })));
  });

  it('share the planning and leaves across arms but key every merge draw by arm', () => {
    const draws = identityDraws(CELL);
    const present = SPEC_IDS;
    const gated = reviewDraws(PARAMS, draws, 'gated', { path: 'root', attempt: 1, present });
    const ungated = reviewDraws(PARAMS, draws, 'ungated', { path: 'root', attempt: 1, present });
    // Equal recalls, yet different findings: the arms' reviews draw independently.
    expect(gated).not.toEqual(ungated);
    const armless = (key: DecisionKey) => key.arm === undefined;
    const { source, keys } = recording(draws);
    samplePair(PARAMS, { cap: 3, repetition: 5, mergeAttempts: 3, defects: DEFECTS, requirements: SPEC_IDS, draws: source });
    const sharedRoles = new Set(keys.filter(armless).map((k) => k.role));
    const mergeRoles = new Set(keys.filter((k) => !armless(k)).map((k) => k.role));
    expect([[...sharedRoles].sort(), [...mergeRoles].sort()]).toEqual([
      ['executor', 'planner'],
      ['merger', 'reviewer'],
    ]);
  });
});
