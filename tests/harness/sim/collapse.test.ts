import { describe, expect, it } from 'vitest';
import { SimParams } from '../../../harness/index.js';
import { collapseDraws, expectedSurvival, identityDraws, isolatedDefects, samplePair, streamDraws, type DecisionKey } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

const DEFECTS = isolatedDefects(SPEC_IDS);
const ROOT = { path: 'root', requirements: SPEC_IDS };

describe('the SIMULATED collapse mode', () => {
  it('makes no draw at all while it is off (absent or rate 0), and acts at the root only', () => {
    const refuse = (key: DecisionKey): number => {
      throw new Error(`drew ${key.decision}`);
    };
    expect(collapseDraws(SimParams.parse({}), refuse, DEFECTS, 'gated', ROOT)).toEqual([]);
    expect(collapseDraws(SimParams.parse({ collapse: { rate: 0, severity: 1 } }), refuse, DEFECTS, 'gated', ROOT)).toEqual([]);
    expect(collapseDraws(SimParams.parse({ collapse: { rate: 1, severity: 1 } }), refuse, DEFECTS, 'gated', { path: 'root.0', requirements: SPEC_IDS })).toEqual([]);
  });

  it('at rate 1 and severity 1 plants every requirement; draws are keyed by arm, so the arms of a pair collapse independently', () => {
    const params = SimParams.parse({ collapse: { rate: 1, severity: 1 } });
    const draws = identityDraws({ seed: 1, cap: 1, repetition: 1 });
    expect(collapseDraws(params, draws, DEFECTS, 'gated', ROOT).map((d) => d.requirement)).toEqual([...SPEC_IDS]);
    const keys: DecisionKey[] = [];
    collapseDraws(SimParams.parse({ collapse: { rate: 1, severity: 0.5 } }), (k) => (keys.push(k), draws(k)), DEFECTS, 'ungated', ROOT);
    expect(keys.every((k) => k.arm === 'ungated' && k.role === 'merger' && k.attempt === 1)).toBe(true);
    let differ = 0;
    const half = SimParams.parse({ collapse: { rate: 0.5, severity: 0.6 } });
    for (let repetition = 1; repetition <= 40; repetition++) {
      const d = identityDraws({ seed: 1, cap: 1, repetition });
      differ += Number(collapseDraws(half, d, DEFECTS, 'gated', ROOT).length === 0 !== (collapseDraws(half, d, DEFECTS, 'ungated', ROOT).length === 0));
    }
    expect(differ).toBeGreaterThan(10);
  });

  it('makes cell survival bimodal: a low mode of about the collapse rate appears, and the pair-difference SD grows to near the 0.25 plan assumes', () => {
    const survey = (collapse?: { rate: number; severity: number }) => {
      const params = SimParams.parse({ collapse, judge_recall: 0.3, self_review_recall: 0.3 });
      const fractions: number[] = [];
      const diffs: number[] = [];
      for (let i = 0; i < 600; i++) {
        const pair = samplePair(params, { cap: 1, repetition: 1, mergeAttempts: 2, defects: DEFECTS, requirements: SPEC_IDS, draws: streamDraws(1000 + i) });
        const sum = (arm: 'gated' | 'ungated', f: 'claims' | 'passing') => pair.arms[arm].levels.reduce((s, l) => s + l[f], 0);
        const claims = sum('ungated', 'claims');
        // A pair whose leaves all failed to deliver counts nothing.
        if (claims === 0) continue;
        fractions.push(sum('ungated', 'passing') / claims);
        diffs.push((sum('gated', 'passing') - sum('ungated', 'passing')) / claims);
      }
      const mean = diffs.reduce((a, b) => a + b) / diffs.length;
      const sd = Math.sqrt(diffs.reduce((a, b) => a + (b - mean) ** 2, 0) / (diffs.length - 1));
      return { low: fractions.filter((f) => f < 0.6).length / fractions.length, sd };
    };
    const off = survey();
    const on = survey({ rate: 0.15, severity: 0.6 });
    expect(off.low).toBeLessThan(0.01);
    expect(on.low).toBeGreaterThan(0.08);
    expect(on.low).toBeLessThan(0.22);
    expect(off.sd).toBeLessThan(0.07);
    expect(on.sd).toBeGreaterThan(0.15);
    // The closed form carries it too: survival falls by about rate x severity x (share not repaired).
    const truth = (collapse?: { rate: number; severity: number }) => expectedSurvival(SimParams.parse({ collapse }), { cap: 1, arm: 'ungated', mergeAttempts: 2, defects: DEFECTS, requirements: SPEC_IDS }).survival!;
    expect(truth() - truth({ rate: 0.15, severity: 0.6 })).toBeGreaterThan(0.05);
  });
});
