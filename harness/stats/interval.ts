import { z } from 'zod';
import { tQuantile } from './t-distribution.js';

/**
 * A confidence interval, or an explicit statement that there is none. Every number in it is
 * finite (zod 4's `z.number()` refuses NaN and ±Infinity), so a report built from it cannot
 * print either.
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
    low: z.number(),
    high: z.number(),
    /** The cluster (or stratified) standard error the half-width is built from. */
    standardError: z.number(),
    /** Degrees of freedom: pairs − 1 within a cap, Satterthwaite's when pooled (fractional). */
    df: z.number(),
    /** t quantile at (1 + confidence)/2 with `df` degrees of freedom. */
    tQuantile: z.number(),
    /** False below `CALIBRATED_FROM_PAIRS` pairs, and when the pairs show no spread at all. */
    calibrated: z.boolean(),
    /** "uncalibrated (3 pairs)" or "uncalibrated (6 pairs, no spread)" when not calibrated, otherwise null. */
    label: z.string().nullable(),
  }),
]);
export type Interval = z.infer<typeof Interval>;

export function uncalibratedLabel(pairs: number, noSpread = false): string {
  return `uncalibrated (${pairs} pairs${noSpread ? ', no spread' : ''})`;
}

/**
 * estimate ± t_{(1+confidence)/2, df} × standardError, clipped to `range` (the parameter's
 * own range: a survival is in [0, 1], a difference of two in [−1, 1]; clipping cannot lose
 * coverage of a truth that lies in that range). `calibrationPairs` is the pair count the
 * label is judged on: the pairs themselves within a cap, the smallest stratum's when pooled.
 *
 * A standard error of exactly 0 (every pair at the same value, typically all claims surviving)
 * gives a zero-width interval. It is never calibrated, whatever the pairs: in the calibration
 * runs such intervals missed a truth near 1 every time, because identical pairs say nothing
 * about the spread between them.
 */
export function tInterval(args: { estimate: number; standardError: number; df: number; calibrationPairs: number; confidence: number; range: readonly [number, number] }): Interval {
  const { estimate, standardError, df, calibrationPairs, confidence, range } = args;
  if (![estimate, standardError, df].every(Number.isFinite) || standardError < 0 || df <= 0) {
    throw new RangeError(`an interval needs a finite estimate, standard error >= 0 and df > 0; got ${estimate}, ${standardError}, ${df}`);
  }
  const quantile = tQuantile((1 + confidence) / 2, df);
  const half = quantile * standardError;
  const noSpread = standardError === 0;
  const calibrated = calibrationPairs >= CALIBRATED_FROM_PAIRS && !noSpread;
  return {
    kind: 't',
    confidence,
    low: Math.max(range[0], estimate - half),
    high: Math.min(range[1], estimate + half),
    standardError,
    df,
    tQuantile: quantile,
    calibrated,
    label: calibrated ? null : uncalibratedLabel(calibrationPairs, noSpread),
  };
}

/** Whether an interval covers a value (false when there is no interval). */
export function covers(interval: Interval, value: number): boolean {
  return interval.kind === 't' && interval.low <= value && value <= interval.high;
}
