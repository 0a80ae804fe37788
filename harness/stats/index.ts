/**
 * harness/stats: the statistics of a sweep, pure (data in, data out; no files, no clocks).
 * The report and `harness plan` call it; nothing here reads a run folder.
 *
 * # What is estimated, and why this way
 *
 * - **The unit is the cell (per arm) or the pair (for the difference), never the leaf.** Leaves
 *   of one tree share planning, merges and reviews, so they are not independent; a leaf-level
 *   binomial interval would be far too narrow.
 * - **Headline estimator: the ratio Σ surviving / Σ claimed over cells** (a claims-weighted mean
 *   over pairs), with the cluster-linearized standard error and a t(n − 1) interval, within
 *   each cap. The claims at a level vary from cell to cell with the random tree shape, so a
 *   plain mean of per-cell fractions would weight a cell with 2 claims like one with 40, and it
 *   targets E[surviving/claimed], which no closed form gives. The ratio targets the ratio of
 *   expected totals E[surviving]/E[claimed] per cap, level and arm: exactly the planted truth
 *   the simulated population's closed form provides, so the calibration tests can check it.
 *   A cell with no claims at a level adds nothing to either sum and is not counted in n.
 * - **The paired difference gated − ungated** per level uses pairs (cap, repetition) as
 *   clusters; each pair's influence is the difference of its arms' influence values, so the
 *   pairing's covariance shrinks the error. Under shared pairing both arms have the same
 *   claims, so the difference is (Σ gated surviving − Σ ungated surviving) / Σ claimed.
 * - **Pooled over caps:** a stratified estimate (strata = caps, weights ∝ pairs at that level)
 *   with Satterthwaite degrees of freedom. A cap with 1 pair at a level has no standard error
 *   and is listed as excluded from the pooled interval.
 * - **Honest small samples:** no interval from 1 pair (`kind: 'none'`); below 5 pairs the
 *   interval is labelled "uncalibrated (n pairs)" (pooled: judged on the smallest stratum). A
 *   percentile bootstrap is not offered: at 2–4 clusters it covers the truth only 50–80% of
 *   the time.
 * - **Bounded, and never of zero width** (interval.ts has the derivation): where the pairs
 *   spread, the interval is built on the logit scale (a difference D as u = (1 + D)/2, Fisher's
 *   z), so it stays in range and is longer away from the end it is near. Where they show no
 *   spread (identical pairs, typically every claim surviving: common at the smoke's rates), the
 *   spread is assumed from the manifest's `analysis.pair_difference_sd` σ (the figure `plan`
 *   sizes power with; `SurvivalOptions.pairDifferenceSd`, default 0.25): σ/√2 per arm, σ per
 *   difference, shrinking towards 0 and 1 as a proportion's does, inverted as a score
 *   interval. Such an interval is labelled "assumed spread", carries `assumedSpread`, and is
 *   never called calibrated; `standardError` stays the measured one (0), so `plan --from`
 *   learns nothing from pairs that did not differ.
 * - **Calibration is shown** (tests/harness/stats/calibration.test.ts and
 *   calibration-smoke.test.ts; the table is in the README): 1,000 synthetic sweeps from the
 *   simulated population's pure generative model, at its default rates and at the smoke
 *   manifest's. At 10 pairs per cap the 95% intervals cover the planted truth in 93.8–97.5% of
 *   sweeps, and a planted null is rejected in 4.6–5.9%. Known limit: near a survival of 0.98
 *   (the smoke's gated arm) coverage sits near 97%, the top of the asserted band [93%, 97.5%]:
 *   failures are then so few per sweep that a valid interval can hardly miss below the truth.
 * - **No NaN or infinity leaves:** outputs are parsed with their zod schemas on the way out,
 *   and zod 4 numbers refuse both.
 * - **Power before paying:** the minimum detectable paired difference from the noncentral t,
 *   computed by quadrature, not approximated: at 2, 3 and 4 pairs it is 5.8, 2.0 and 1.5
 *   times what the normal formula gives.
 * - **Looks taken in stages keep alpha** (group-sequential.ts): Lan–DeMets spending
 *   (O'Brien–Fleming or Pocock type, the one-sided function at alpha/2 per side as gsDesign and
 *   rpact), boundaries by recursive numerical integration, moved to the t scale by matching the
 *   nominal p-value; non-binding futility by beta spending. The sequential calibration
 *   (tests/harness/stats/sequential-calibration*.ts) checks them on the simulated population.
 */
export { Interval, CALIBRATED_FROM_PAIRS, covers, uncalibratedLabel, assumedSpreadOf, boundedInterval, type Quantity as IntervalQuantity } from './interval.js';
export { ratioEstimate, pairedDifference, clusterStandardError, type Cluster, type LinearizedEstimate } from './cluster-ratio.js';
export { stratify, type StratumEstimate, type Stratified } from './stratified.js';
export {
  LevelTally,
  CellTally,
  SurvivalData,
  SurvivalDataInvalidError,
  SurvivalOptions,
  SurvivalStats,
  survivalStats,
  type ArmEstimate,
  type DifferenceEstimate,
  type CapStats,
  type PooledEstimate,
} from './survival-stats.js';
export { PowerQuery, MinimumDetectable, minimumDetectableDifference, pairedTestPower, pairDifferenceSd, fixedDesignPairs } from './power.js';
export {
  Spending,
  spentAlpha,
  efficacyBoundaries,
  tBoundary,
  futilityBoundaries,
  sequentialOperatingCharacteristics,
  sequentialDrift,
  inflationFactor,
  equalFractions,
  crossingProbability,
  type EfficacyBoundaries,
  type OperatingCharacteristics,
} from './group-sequential.js';
export { sequentialDesignPairs, sequentialPower, tCorrectedDrift, repeatedInterval, type SequentialDesignPairs } from './sequential-design.js';
export { tQuantile, normalQuantile, normalCdf, noncentralTCdf } from './t-distribution.js';
