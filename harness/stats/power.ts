import { z } from 'zod';
import type { Interval } from './interval.js';
import { expectationOverScaledChi, normalCdf, normalQuantile, tQuantile } from './t-distribution.js';

/**
 * Power before paying: the smallest gated − ungated difference that a paired two-sided t test
 * on `pairs` pair differences detects with the requested power. Exact (noncentral t by
 * quadrature, see `noncentralTCdf`), because at 2–4 pairs the usual normal formula
 * (z₁₋α/₂ + z_power)·sd/√n understates it by half or more.
 */

const Probability = (fallback: number, what: string) =>
  z
    .number()
    .gt(0)
    .lt(1)
    .default(fallback)
    .describe(`${what} Default ${fallback}.`);

export const PowerQuery = z.object({
  pairs: z.number().int().min(1).describe('Pairs (cap, repetition) at one cap: the declared repetitions. No default.'),
  sd: z.number().positive().describe('Standard deviation of the pair differences (gated − ungated survival), on the 0–1 scale. No default.'),
  alpha: Probability(0.05, 'Two-sided significance level.'),
  power: Probability(0.8, 'Probability of detecting the difference.'),
});
export type PowerQuery = z.input<typeof PowerQuery>;

export const MinimumDetectable = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('noncentral-t'),
    pairs: z.number().int(),
    sd: z.number(),
    alpha: z.number(),
    power: z.number(),
    /** pairs − 1. */
    df: z.number().int(),
    /** t quantile at 1 − α/2 with df degrees of freedom: the test's rejection threshold. */
    criticalT: z.number(),
    /** δ solving power(δ) = target, where δ = difference·√pairs / sd. */
    noncentrality: z.number(),
    /** The minimum detectable difference on the survival scale: δ·sd/√pairs. */
    difference: z.number(),
    /** (z₁₋α/₂ + z_power)·sd/√pairs, for comparison only: it ignores that sd is estimated. */
    normalApproximation: z.number(),
  }),
  z.object({ kind: z.literal('none'), pairs: z.number().int(), reason: z.string() }),
]);
export type MinimumDetectable = z.infer<typeof MinimumDetectable>;

/**
 * Power of the two-sided paired t test: P(|T| > t₁₋α/₂) with T noncentral t on pairs − 1
 * degrees of freedom and noncentrality difference·√pairs/sd. Both tails are counted (R's
 * `power.t.test(strict = TRUE)`); the far tail matters only near a difference of 0.
 */
export function pairedTestPower(query: { pairs: number; sd: number; difference: number; alpha?: number }): number {
  const { pairs, sd, difference } = query;
  const alpha = query.alpha ?? 0.05;
  if (!(Number.isInteger(pairs) && pairs >= 2)) throw new RangeError(`a paired t test needs at least 2 pairs, got ${pairs}`);
  if (!(sd > 0 && Number.isFinite(sd)) || !Number.isFinite(difference)) throw new RangeError(`sd must be positive and the difference finite, got ${sd} and ${difference}`);
  return twoSidedPower((difference * Math.sqrt(pairs)) / sd, pairs - 1, tQuantile(1 - alpha / 2, pairs - 1));
}

function twoSidedPower(noncentrality: number, df: number, critical: number): number {
  const p = expectationOverScaledChi(df, (w) => normalCdf(noncentrality - critical * w) + normalCdf(-noncentrality - critical * w));
  return Math.min(1, Math.max(0, p));
}

/**
 * The minimum detectable paired difference (see the file comment). One pair gives no test, so
 * it answers `kind: 'none'` rather than a number. The noncentrality is found by bisection on
 * the (increasing) power curve to a relative 1e-12.
 */
export function minimumDetectableDifference(input: PowerQuery): MinimumDetectable {
  const { pairs, sd, alpha, power } = PowerQuery.parse(input);
  if (pairs < 2) return { kind: 'none', pairs, reason: 'one pair: a paired t test needs at least 2' };
  const df = pairs - 1;
  const criticalT = tQuantile(1 - alpha / 2, df);
  // Power at δ = 0 is α; the target is above it whenever power > α, which the bracket needs.
  if (!(power > alpha)) throw new RangeError(`power (${power}) must exceed alpha (${alpha}): a test has that power at no difference at all`);
  let lo = 0;
  let hi = 1;
  while (twoSidedPower(hi, df, criticalT) < power) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1e-12 * hi) {
    const mid = (lo + hi) / 2;
    if (twoSidedPower(mid, df, criticalT) < power) lo = mid;
    else hi = mid;
  }
  const noncentrality = (lo + hi) / 2;
  const root = Math.sqrt(pairs);
  return {
    kind: 'noncentral-t',
    pairs,
    sd,
    alpha,
    power,
    df,
    criticalT,
    noncentrality,
    difference: (noncentrality * sd) / root,
    normalApproximation: ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sd) / root,
  };
}

/**
 * The SD of the pair differences behind a paired-difference estimate: its standard error ×
 * √pairs (the SD of the pairs' linearized differences, on the survival scale). This is the
 * `sd` that `minimumDetectableDifference` takes when it is learned from a recorded run. Null
 * when there is no interval (1 pair), since then there is no spread to learn from.
 */
export function pairDifferenceSd(difference: { pairs: number; interval: Interval }): number | null {
  return difference.interval.kind === 't' ? difference.interval.standardError * Math.sqrt(difference.pairs) : null;
}

/**
 * Pairs a fixed (one-look) paired design needs to detect `difference` with `power` at
 * two-sided `alpha`: by the normal formula ⌈((z₁₋α/₂ + z_power)·sd/difference)²⌉, and by the
 * paired t test itself (the smallest n whose `pairedTestPower` reaches the power), which
 * pays for estimating sd. Difference 0.1, sd 0.25, alpha 0.05, power 0.8: 50 and 52.
 */
export function fixedDesignPairs(query: { difference: number; sd: number; alpha?: number; power?: number }): { normal: number; t: number } {
  const alpha = query.alpha ?? 0.05;
  const power = query.power ?? 0.8;
  const { difference, sd } = query;
  if (!(difference > 0 && Number.isFinite(difference))) throw new RangeError(`the difference must be a positive number, got ${difference}`);
  if (!(sd > 0 && Number.isFinite(sd))) throw new RangeError(`sd must be a positive number, got ${sd}`);
  if (!(alpha > 0 && alpha < 1 && power > alpha && power < 1)) throw new RangeError(`alpha and power must lie in (0, 1) with power > alpha, got ${alpha} and ${power}`);
  const normal = Math.max(2, Math.ceil((((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sd) / difference) ** 2 - 1e-9));
  let t = normal;
  while (pairedTestPower({ pairs: t, sd, difference, alpha }) < power) t += 1;
  return { normal, t };
}
