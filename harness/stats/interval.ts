import { z } from 'zod';
import { tQuantile } from './t-distribution.js';

/**
 * A confidence interval, or an explicit statement that there is none. Every number in it is
 * finite (zod 4's `z.number()` refuses NaN and ±Infinity), so a report built from it cannot
 * print either, and no interval has zero width.
 *
 * # How an interval is built (see `boundedInterval`)
 *
 * Both quantities live on a bounded range: a survival p in [0, 1], a difference D = p_g − p_u
 * in [−1, 1]. Each is mapped to a proportion u in [0, 1] (u = p, or u = (1 + D)/2, so the
 * difference's logit is 2·atanh(D), Fisher's z) and the interval is built for u, then mapped
 * back. It therefore never leaves the range and is asymmetric near its ends, where a symmetric
 * (Wald) interval undercovers.
 *
 * - **Spread measured** (standard error > 0, which forces 0 < u < 1): on the logit scale,
 *   logit(û) ± t·SE_u / (û(1 − û)) (the delta method), back-transformed.
 * - **No spread** (every pair at the same value, typically every claim surviving, so û is
 *   often exactly 0 or 1 and the logit is infinite): the pairs say nothing about the spread
 *   between them, so the spread is *assumed*, from the manifest's declared
 *   `analysis.pair_difference_sd` σ_d (the figure `harness plan` sizes power with). Per arm a
 *   pair's cell is assumed to spread by σ_d/√2, per difference by σ_d: under independent arms
 *   the difference of two cells spreading σ_d/√2 spreads exactly σ_d, and under shared pairing
 *   (arms positively correlated) each arm must spread at least σ_d/√2 for the difference to
 *   spread σ_d, so it is the smallest per-arm spread the declaration allows: a floor. That
 *   spread σ is taken as the spread at u = ½, where a proportion spreads most, and shrinks
 *   towards the ends as a proportion's does (σ_u(u) = 2σ·√(u(1 − u)) on the u scale): the
 *   interval is the score (Wilson) inversion {u : (û − u)² ≤ t²·4σ_u²·u(1 − u)/n} with n the
 *   pairs, which has a closed form, positive width for any û including 0 and 1, and needs no
 *   continuity adjustment. At û = 1 its lower end is 1/(1 + k), k = 4t²σ_u²/n: the standard
 *   error floor σ/√n of the estimate, scaled to the proportion's shape. Such an interval says
 *   "assumed spread" and is never called calibrated: it is as good as the declaration.
 */

/** Below this many pairs an interval is shown but labelled: the calibration tests back it only from here up. */
export const CALIBRATED_FROM_PAIRS = 5;

export const Interval = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('none'),
    /** Why there is no interval, in words a report can print, e.g. "one pair". */
    reason: z.string(),
  }),
  z.object({
    kind: z.literal('t'),
    /** e.g. 0.95. */
    confidence: z.number(),
    /** low < high always: no interval has zero width. */
    low: z.number(),
    high: z.number(),
    /** The measured cluster (or stratified) standard error, on the estimate's own scale: 0 when the pairs show no spread. */
    standardError: z.number(),
    /**
     * The per-pair standard deviation assumed because the pairs showed none (on the estimate's
     * own scale: σ_d/√2 per arm, σ_d for a difference, σ_d the manifest's declared
     * `analysis.pair_difference_sd`), or null when the spread was measured. Pooled: set when
     * any stratum showed no spread and entered the pool with the assumed one.
     */
    assumedSpread: z.number().nullable(),
    /** `logit`: logit(û) ± t·SE/(û(1 − û)) from the measured (or pooled) error; `score`: the score inversion of the assumed spread. */
    scale: z.enum(['logit', 'score']),
    /** Degrees of freedom: pairs − 1 within a cap, Satterthwaite's when pooled (fractional). */
    df: z.number(),
    /** t quantile at (1 + confidence)/2 with `df` degrees of freedom. */
    tQuantile: z.number(),
    /** False below `CALIBRATED_FROM_PAIRS` pairs, and when the spread is assumed rather than measured. */
    calibrated: z.boolean(),
    /** "uncalibrated (3 pairs)", "assumed spread (SD 0.177, 6 pairs)" or "uncalibrated (3 pairs, assumed spread SD 0.177)" when not calibrated, otherwise null. */
    label: z.string().nullable(),
  }),
]);
export type Interval = z.infer<typeof Interval>;
type TInterval = Extract<Interval, { kind: 't' }>;

export function uncalibratedLabel(pairs: number, assumedSpread: number | null = null): string {
  const spread = assumedSpread === null ? null : `assumed spread SD ${assumedSpread.toFixed(3)}`;
  if (pairs >= CALIBRATED_FROM_PAIRS) return spread === null ? `uncalibrated (${pairs} pairs)` : `assumed spread (SD ${assumedSpread!.toFixed(3)}, ${pairs} pairs)`;
  return `uncalibrated (${pairs} pairs${spread === null ? '' : `, ${spread}`})`;
}

/** What the interval is of: a survival in [0, 1], or a difference of two in [−1, 1]. */
export type Quantity = 'survival' | 'difference';

/** The per-pair spread assumed for a quantity when its pairs show none, from the declared SD of pair differences (see the file comment). */
export function assumedSpreadOf(quantity: Quantity, pairDifferenceSd: number): number {
  return quantity === 'survival' ? pairDifferenceSd / Math.SQRT2 : pairDifferenceSd;
}

const toUnit = (quantity: Quantity, x: number) => (quantity === 'survival' ? x : (1 + x) / 2);
const fromUnit = (quantity: Quantity, u: number) => (quantity === 'survival' ? u : 2 * u - 1);
/** A standard deviation (or error) on the quantity's scale, carried to the u scale. */
const scaleToUnit = (quantity: Quantity, s: number) => (quantity === 'survival' ? s : s / 2);

const logit = (u: number) => Math.log(u / (1 - u));
const expit = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * The score interval of an assumed spread: {u : (û − u)² ≤ k·u(1 − u)}, k = t²·4σ_u²/n
 * (Wilson's closed form). Width 2√(k·û(1 − û) + k²/4)/(1 + k) > 0 for every û in [0, 1].
 */
function scoreInterval(u: number, k: number): [number, number] {
  const centre = (u + k / 2) / (1 + k);
  const half = Math.sqrt(k * u * (1 - u) + (k * k) / 4) / (1 + k);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

export interface BoundedIntervalArgs {
  quantity: Quantity;
  estimate: number;
  /** The measured standard error (0 when the pairs show no spread). */
  standardError: number;
  /**
   * The standard error the logit interval is built from, when it differs from the measured one
   * (pooled, where strata without spread enter with their assumed error). Default: `standardError`.
   */
  workingStandardError?: number;
  df: number;
  /** Pairs behind the estimate: the n of the assumed spread's error σ/√n. */
  pairs: number;
  /** The pair count the label is judged on: the pairs within a cap, the smallest stratum's when pooled. */
  calibrationPairs: number;
  confidence: number;
  /** The manifest's declared SD of pair differences. */
  pairDifferenceSd: number;
  /** True when some of `workingStandardError` is assumed rather than measured (pooled). */
  partlyAssumed?: boolean;
}

/** The interval of a survival or a difference: see the file comment for both constructions. */
export function boundedInterval(args: BoundedIntervalArgs): TInterval {
  const { quantity, estimate, standardError, df, pairs, calibrationPairs, confidence, pairDifferenceSd } = args;
  const working = args.workingStandardError ?? standardError;
  const range = quantity === 'survival' ? [0, 1] : [-1, 1];
  if (![estimate, standardError, working, df, pairDifferenceSd].every(Number.isFinite) || standardError < 0 || working < standardError || df <= 0 || !(pairs >= 2) || !(pairDifferenceSd > 0)) {
    throw new RangeError(`an interval needs a finite estimate, standard errors >= 0, df > 0, 2+ pairs and a positive declared spread; got ${estimate}, ${standardError}, ${working}, ${df}, ${pairs}, ${pairDifferenceSd}`);
  }
  if (estimate < range[0]! - 1e-12 || estimate > range[1]! + 1e-12) throw new RangeError(`a ${quantity} estimate lies in [${range.join(', ')}], got ${estimate}`);
  const quantile = tQuantile((1 + confidence) / 2, df);
  const u = Math.min(1, Math.max(0, toUnit(quantity, estimate)));
  const seU = scaleToUnit(quantity, working);
  const spread = assumedSpreadOf(quantity, pairDifferenceSd);
  let unit: [number, number];
  let scale: TInterval['scale'];
  let assumed: number | null;
  if (seU > 0 && u > 0 && u < 1) {
    const centre = logit(u);
    const half = (quantile * seU) / (u * (1 - u));
    unit = [expit(centre - half), expit(centre + half)];
    scale = 'logit';
    assumed = standardError === 0 || args.partlyAssumed ? spread : null;
  } else {
    const sigmaU = scaleToUnit(quantity, spread);
    unit = scoreInterval(u, (4 * quantile ** 2 * sigmaU ** 2) / pairs);
    scale = 'score';
    assumed = spread;
  }
  let [low, high] = unit.map((x) => Math.min(range[1]!, Math.max(range[0]!, fromUnit(quantity, x)))) as [number, number];
  // The estimate always lies inside (the logit and score intervals contain û; rounding aside).
  low = Math.min(low, estimate);
  high = Math.max(high, estimate);
  if (!(high > low)) throw new RangeError(`an interval of zero width came out for ${quantity} ${estimate} (standard error ${working}); this is a bug`);
  const calibrated = calibrationPairs >= CALIBRATED_FROM_PAIRS && assumed === null;
  return {
    kind: 't',
    confidence,
    low,
    high,
    standardError,
    assumedSpread: assumed,
    scale,
    df,
    tQuantile: quantile,
    calibrated,
    label: calibrated ? null : uncalibratedLabel(calibrationPairs, assumed),
  };
}

/**
 * The standard error a stratum without spread enters a pool with: the one its own
 * assumed-spread interval implies, (high − low) / (2t).
 */
export function impliedStandardError(interval: TInterval): number {
  return (interval.high - interval.low) / (2 * interval.tQuantile);
}

/** Whether an interval covers a value (false when there is no interval). */
export function covers(interval: Interval, value: number): boolean {
  return interval.kind === 't' && interval.low <= value && value <= interval.high;
}
