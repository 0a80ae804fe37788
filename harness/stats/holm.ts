import type { Interval } from './interval.js';
import { noncentralTCdf } from './t-distribution.js';

/**
 * Holm's step-down adjustment (Holm 1979, "A simple sequentially rejective multiple test
 * procedure"), phrased as the significance level each comparison's interval is read at.
 *
 * The m p-values are ranked ascending. The comparison of rank i (1-based) is tested at
 * α/(m − i + 1), as long as every better-ranked comparison was rejected at its own level. At the
 * first rank r that is not rejected the procedure stops: it and every later rank keep
 * α/(m − r + 1), at which (their p-values being no smaller) none of them can be rejected either.
 * So a comparison's (1 − level) interval excludes 0 exactly when Holm rejects it, and the family
 * is wrong (some true null rejected) at most α of the time, whatever the dependence between them.
 */

/** The two-sided p-value of "no difference" behind a t interval: 2·P(T_df > |estimate / SE|). 1 when there is no interval. */
export function twoSidedP(estimate: number, interval: Interval): number {
  if (interval.kind === 'none') return 1;
  if (interval.standardError === 0) return estimate === 0 ? 1 : 0;
  const t = Math.abs(estimate / interval.standardError);
  return Math.min(1, 2 * (1 - noncentralTCdf(t, interval.df, 0)));
}

/** The level each p-value is read at under Holm's step-down at family level `alpha`, in input order. Ties keep input order. */
export function holmLevels(pValues: readonly number[], alpha: number): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const levels = new Array<number>(m);
  let stopped: number | null = null;
  order.forEach(({ p, i }, rank) => {
    const level = stopped ?? alpha / (m - rank);
    levels[i] = level;
    if (stopped === null && p > level) stopped = level;
  });
  return levels;
}
