import { describe, expect, it } from 'vitest';
import { minimumDetectableDifference, pairDifferenceSd, pairedTestPower, survivalStats, type CellTally } from '../../../harness/index.js';

// Noncentralities solving two-sided power 0.8 at alpha 0.05 for n pairs, from scipy 1.17
// (brentq on stats.nct, cross-checked by quad over the chi-square density). The tolerance is
// set by jstat's central t quantile (relative error up to 1e-8), not by the quadrature.
const REFERENCE_NONCENTRALITY: Record<number, number> = {
  2: 16.33400886991515,
  3: 5.653489266197394,
  4: 4.255898686515602,
  5: 3.7610595538250156,
  6: 3.51390272917109,
  7: 3.3668948970850225,
  8: 3.2697598403875325,
  9: 3.2009196486508857,
  10: 3.1496328864506173,
};

function mde(pairs: number, sd = 0.1) {
  const result = minimumDetectableDifference({ pairs, sd });
  if (result.kind !== 'noncentral-t') throw new Error(`expected a figure at ${pairs} pairs`);
  return result;
}

describe('power of the paired t test', () => {
  it("reproduces R's power.t.test(n = 20, delta = 1): 0.8689528 (df 38, noncentrality sqrt(10))", () => {
    // A one-sample test on 39 pairs has df 38; difference sqrt(10/39) gives noncentrality sqrt(10).
    // R's default counts one tail (0.8689528); both tails add Φ(-sqrt(10) - 2.02) ≈ 1e-7.
    expect(pairedTestPower({ pairs: 39, sd: 1, difference: Math.sqrt(10 / 39) })).toBeCloseTo(0.86895302772399, 7);
  });

  it('is alpha at no difference, and symmetric in the sign of the difference', () => {
    expect(pairedTestPower({ pairs: 5, sd: 0.1, difference: 0 })).toBeCloseTo(0.05, 8);
    expect(pairedTestPower({ pairs: 5, sd: 0.1, difference: -0.12 })).toBeCloseTo(pairedTestPower({ pairs: 5, sd: 0.1, difference: 0.12 }), 12);
  });
});

describe('minimum detectable paired difference (80% power, alpha 0.05, two-sided)', () => {
  it.each(Object.entries(REFERENCE_NONCENTRALITY))('at %s pairs the noncentrality matches the reference to 1e-8 relative', (pairs, ncp) => {
    const r = mde(Number(pairs));
    expect(Math.abs(r.noncentrality - ncp) / ncp).toBeLessThan(1e-8);
    expect(Math.abs(r.difference - (ncp * 0.1) / Math.sqrt(Number(pairs)))).toBeLessThan(1e-9);
  });

  it('has 80% power at the figure it reports', () => {
    for (const pairs of [2, 4, 10]) {
      const r = mde(pairs, 0.2);
      expect(pairedTestPower({ pairs, sd: 0.2, difference: r.difference })).toBeCloseTo(0.8, 9);
    }
  });

  it('shows the normal approximation understating it by half or more at 2-4 pairs, and less from 5 up', () => {
    const ratios = Object.fromEntries([2, 3, 4, 5, 10].map((n) => [n, Number((mde(n).difference / mde(n).normalApproximation).toFixed(3))]));
    expect(ratios).toMatchInlineSnapshot(`
      {
        "10": 1.124,
        "2": 5.83,
        "3": 2.018,
        "4": 1.519,
        "5": 1.342,
      }
    `);
    for (const n of [2, 3, 4]) expect(mde(n).difference).toBeGreaterThanOrEqual(1.5 * mde(n).normalApproximation);
  });

  it('scales with the SD of the pair differences and honours alpha and power', () => {
    expect(mde(6, 0.2).difference).toBeCloseTo(2 * mde(6, 0.1).difference, 10);
    const strict = minimumDetectableDifference({ pairs: 6, sd: 0.1, alpha: 0.01, power: 0.9 });
    expect(strict.kind === 'noncentral-t' && strict.difference).toBeGreaterThan(mde(6).difference);
  });

  it('gives no figure for 1 pair, and refuses a non-positive SD', () => {
    expect(minimumDetectableDifference({ pairs: 1, sd: 0.1 })).toEqual({ kind: 'none', pairs: 1, reason: 'one pair: a paired t test needs at least 2' });
    expect(() => minimumDetectableDifference({ pairs: 4, sd: 0 })).toThrow(/sd/);
  });
});

describe('learning the SD of pair differences from a recorded sweep', () => {
  it('is the SD of the per-pair differences when claims are equal, and absent from 1 pair', () => {
    const differences = [0.1, 0.3, 0.0, 0.2, 0.15];
    const cells: CellTally[] = differences.flatMap((d, i) => [
      { cap: 2, repetition: i + 1, arm: 'gated', levels: [{ level: 1, claimed: 20, surviving: 18 }] },
      { cap: 2, repetition: i + 1, arm: 'ungated', levels: [{ level: 1, claimed: 20, surviving: 18 - d * 20 }] },
    ]);
    const difference = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!.difference!;
    const mean = differences.reduce((a, b) => a + b) / differences.length;
    const sd = Math.sqrt(differences.reduce((a, d) => a + (d - mean) ** 2, 0) / (differences.length - 1));
    expect(pairDifferenceSd(difference)).toBeCloseTo(sd, 12);
    expect(pairDifferenceSd({ pairs: 1, interval: { kind: 'none', reason: '1 pair' } })).toBeNull();
  });
});
