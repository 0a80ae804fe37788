import { describe, expect, it } from 'vitest';
import { stratify } from '../../../harness/index.js';

describe('stratified pooling with Satterthwaite degrees of freedom', () => {
  it("with equal pairs per stratum, gives Welch's df: s = 2 and 4 on 10 each -> 13.235", () => {
    // Welch: (s1²/n1 + s2²/n2)² / ((s1²/n1)²/(n1−1) + (s2²/n2)²/(n2−1)) = 2² / ((0.16 + 2.56)/9).
    const pooled = stratify([
      { estimate: 0.7, standardError: 2 / Math.sqrt(10), pairs: 10 },
      { estimate: 0.5, standardError: 4 / Math.sqrt(10), pairs: 10 },
    ]);
    expect(pooled.df).toBeCloseTo(4 / (2.72 / 9), 12);
    expect(pooled.estimate).toBeCloseTo(0.6, 15);
    expect(pooled.standardError).toBeCloseTo(Math.sqrt(0.25 * 0.4 + 0.25 * 1.6), 15);
  });

  it('weights strata by their pairs and keeps df between the smallest stratum df and the sum', () => {
    const pooled = stratify([
      { estimate: 0.9, standardError: 0.1, pairs: 3 },
      { estimate: 0.6, standardError: 0.01, pairs: 9 },
    ]);
    expect(pooled.weights).toEqual([0.25, 0.75]);
    expect(pooled.estimate).toBeCloseTo(0.25 * 0.9 + 0.75 * 0.6, 15);
    expect(pooled.df).toBeGreaterThanOrEqual(2);
    expect(pooled.df).toBeLessThanOrEqual(2 + 8);
    // The small, noisy stratum dominates the variance, so df sits near its own 2.
    expect(pooled.df).toBeLessThan(2.5);
  });

  it('gives the largest df instead of 0/0 when no stratum has any spread', () => {
    const pooled = stratify([
      { estimate: 1, standardError: 0, pairs: 4 },
      { estimate: 1, standardError: 0, pairs: 6 },
    ]);
    expect(pooled).toEqual({ estimate: 1, standardError: 0, df: 8, weights: [0.4, 0.6] });
  });

  it('refuses a stratum without a standard error (1 pair)', () => {
    expect(() => stratify([{ estimate: 1, standardError: 0, pairs: 1 }])).toThrow(/at least 2 pairs/);
  });
});
