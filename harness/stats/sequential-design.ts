import { equalFractions, inflationFactor, sequentialDrift, sequentialOperatingCharacteristics, tBoundary, type Spending } from './group-sequential.js';
import { fixedDesignPairs, pairedTestPower } from './power.js';
import { normalCdf, normalQuantile } from './t-distribution.js';

/**
 * A group-sequential paired design in pairs, and the interval a look shows: what `harness
 * plan` and a ruling look read from the boundaries of group-sequential.ts.
 */

export interface SequentialDesignPairs {
  /** Pairs at the last look: the fixed t design's pairs × the inflation factor, rounded up. */
  maxPairs: number;
  /** Cumulative pairs at each of the equal looks (rounded up; the last is maxPairs). */
  pairsPerLook: number[];
  inflation: number;
  fixed: { normal: number; t: number };
  /** E[pairs used] when the planted difference is 0 and when it is the design's difference. */
  expectedPairsNull: number;
  expectedPairsAlternative: number;
}

/**
 * The pairs a K-look paired design needs for `difference` at SD `sd`: the fixed design's
 * pairs by the t test, inflated by the sequential design's factor (the normal theory's
 * inflation applied to the t design: the sequential calibration checks the resulting power
 * by simulation with t-corrected boundaries). Expected pairs come from the operating
 * characteristics at drift 0 and at the design drift scaled to the pairs chosen.
 */
export function sequentialDesignPairs(args: {
  spending: Spending;
  alpha: number;
  power: number;
  looks: number;
  difference: number;
  sd: number;
  futility?: boolean;
}): SequentialDesignPairs {
  const fixed = fixedDesignPairs({ difference: args.difference, sd: args.sd, alpha: args.alpha, power: args.power });
  const inflation = inflationFactor(args);
  const maxPairs = Math.ceil(fixed.t * inflation - 1e-9);
  const pairsPerLook = equalFractions(args.looks).map((t) => Math.ceil(t * maxPairs - 1e-9));
  const fractions = pairsPerLook.map((n) => n / maxPairs);
  const drift = (args.difference / args.sd) * Math.sqrt(maxPairs);
  const beta = 1 - args.power;
  const designDrift = args.futility ? sequentialDrift(args) : undefined;
  const at = (theta: number) =>
    sequentialOperatingCharacteristics({ spending: args.spending, alpha: args.alpha, beta, fractions, drift: theta, futility: args.futility ?? false, designDrift }).expectedFraction * maxPairs;
  return { maxPairs, pairsPerLook, inflation, fixed, expectedPairsNull: at(0), expectedPairsAlternative: at(drift) };
}

/**
 * The drift (difference / sd × √pairs on the normal scale) at which a fixed two-sided normal
 * test at `alpha` has the exact paired t test's power at `pairs` pairs. A sequential design's
 * operating characteristics are computed on the normal scale, which overstates its power at few
 * pairs: a t statistic has heavier tails, and its looks use t boundaries. Driven by this drift
 * they make one look the t test exactly and tend to the normal drift as pairs grow. A seeded
 * Monte Carlo of t-boundary looks backs it (tests/harness/stats/sequential-power.test.ts): at 8
 * pairs in two O'Brien–Fleming looks the normal scale claims 20.4%, the truth is 16.5%.
 */
export function tCorrectedDrift(args: { pairs: number; sd: number; difference: number; alpha: number }): number {
  const target = pairedTestPower(args);
  const z = normalQuantile(1 - args.alpha / 2);
  const normalPower = (d: number) => normalCdf(d - z) + normalCdf(-d - z);
  const sign = Math.sign(args.difference);
  if (sign === 0 || target <= args.alpha) return 0;
  // The normal power is increasing in |d|: bisect between 0 and the uncorrected drift, which the t test never out-powers.
  let low = 0;
  let high = Math.abs(args.difference / args.sd) * Math.sqrt(args.pairs);
  if (normalPower(high) <= target) return sign * high;
  for (let i = 0; i < 100 && high - low > 1e-12; i++) {
    const mid = (low + high) / 2;
    if (normalPower(mid) < target) low = mid;
    else high = mid;
  }
  return sign * (low + high) / 2;
}

/**
 * The power of a K-look paired design with `pairs` pairs at its last look (looks at equal
 * fractions), at the t-corrected drift: what `harness plan` prints for a sequential design.
 */
export function sequentialPower(args: { spending: Spending; alpha: number; power: number; looks: number; futility?: boolean; pairs: number; sd: number; difference: number; designDifference?: number }): number {
  const fractions = equalFractions(args.looks);
  const drift = tCorrectedDrift({ pairs: args.pairs, sd: args.sd, difference: args.difference, alpha: args.alpha });
  // The futility boundary is the rule's own (a look designs it at the uncorrected drift), so only the truth's drift is corrected.
  const designDrift = ((args.designDifference ?? args.difference) / args.sd) * Math.sqrt(args.pairs);
  return sequentialOperatingCharacteristics({ spending: args.spending, alpha: args.alpha, beta: 1 - args.power, fractions, drift, futility: args.futility ?? false, designDrift }).power;
}

/**
 * The repeated confidence interval at a look (Jennison & Turnbull ch. 9): the estimate ± the
 * look's boundary on the t scale × its standard error. Intervals built this way at every look
 * cover the truth simultaneously with probability 1 − alpha, so a look may show one without
 * spending more; it excludes 0 exactly when |t| crosses the boundary.
 */
export function repeatedInterval(args: { estimate: number; standardError: number; df: number; z: number }): { low: number; high: number; halfWidth: number } {
  const { estimate, standardError } = args;
  if (!(Number.isFinite(estimate) && Number.isFinite(standardError) && standardError >= 0)) throw new RangeError(`estimate and standard error must be finite (SE >= 0), got ${estimate} and ${standardError}`);
  const halfWidth = tBoundary(args.z, args.df) * standardError;
  return { low: estimate - halfWidth, high: estimate + halfWidth, halfWidth };
}
