
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
