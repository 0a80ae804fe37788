import jstat from 'jstat';
import { integrate } from './internal/gauss-kronrod.js';

const { jStat } = jstat;

/**
 * Central and noncentral t, and the normal quantile. Central quantiles come from jstat
 * (inverse regularized incomplete beta; relative error below 1e-8 against reference values,
 * see the tests). The noncentral t is computed here, by quadrature over the chi variable,
 * because no well-kept JavaScript package gets it right: jstat's series stops before its
 * terms peak once the noncentrality passes about 20, which is exactly where 2 pairs live.
 */

function checkProbability(p: number, what: string): void {
  if (!(p > 0 && p < 1)) throw new RangeError(`${what} must lie strictly between 0 and 1, got ${p}`);
}

function checkDf(df: number, minimum: number): void {
  if (!(Number.isFinite(df) && df >= minimum)) throw new RangeError(`degrees of freedom must be a finite number >= ${minimum}, got ${df}`);
}

/** The p-quantile of Student's t with `df` degrees of freedom (df may be fractional, as Satterthwaite's is). */
export function tQuantile(p: number, df: number): number {
  checkProbability(p, 'p');
  checkDf(df, Number.MIN_VALUE);
  return jStat.studentt.inv(p, df);
}

/** The p-quantile of the standard normal. */
export function normalQuantile(p: number): number {
  checkProbability(p, 'p');
  return jStat.normal.inv(p, 0, 1);
}

/** Φ(x), the standard normal CDF. */
export function normalCdf(x: number): number {
  return jStat.normal.cdf(x, 0, 1);
}

/**
 * The truncation of the chi variable's range: outside [lo, hi] it carries below e^-40 (4e-18)
 * of probability on each side, by the Chernoff bound P(χ²_ν/ν ≷ w²) <= exp((ν/2)(1 + 2 ln w − w²)).
 */
const LOG_TAIL = -40;

function chernoffLog(df: number, w: number): number {
  return (df / 2) * (1 + 2 * Math.log(w) - w * w);
}

function bisect(f: (w: number) => number, lo: number, hi: number): number {
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  return hi;
}

function chiRange(df: number): [number, number] {
  let hi = 2;
  while (chernoffLog(df, hi) > LOG_TAIL) hi *= 2;
  const upper = bisect((w) => chernoffLog(df, w) - LOG_TAIL, 1, hi);
  // Below 1 the bound rises towards w = 1, so the crossing is found with the sign flipped.
  const lower = bisect((w) => LOG_TAIL - chernoffLog(df, w), Number.MIN_VALUE, 1);
  return [lower, upper];
}

/** Absolute tolerance of each quadrature; the total error bound is stated on `noncentralTCdf`. */
const QUADRATURE_TOLERANCE = 1e-13;

/**
 * E[h(W)] for W = sqrt(χ²_df / df), the scaled chi variable of Student's t. The density is
 * normalised by the same quadrature (∫h·g / ∫g), so no log-gamma constant enters the error.
 * `df >= 1`: below 1 the density is unbounded at 0.
 */
export function expectationOverScaledChi(df: number, h: (w: number) => number): number {
  checkDf(df, 1);
  const [lo, hi] = chiRange(df);
  const mode = Math.sqrt((df - 1) / df);
  const logPeak = df === 1 ? 0 : (df - 1) * Math.log(mode) - (df * mode * mode) / 2;
  const density = (w: number): number => {
    const logShape = df === 1 ? -(w * w) / 2 : (df - 1) * Math.log(w) - (df * w * w) / 2;
    return Math.exp(logShape - logPeak);
  };
  const mass = integrate(density, lo, hi, QUADRATURE_TOLERANCE);
  const weighted = integrate((w) => h(w) * density(w), lo, hi, QUADRATURE_TOLERANCE);
  return weighted / mass;
}

/**
 * P(T <= t) for T noncentral t with `df` (>= 1) degrees of freedom and noncentrality δ:
 * T = (Z + δ) / W, so P(T <= t) = E[Φ(t·W − δ)] over the scaled chi variable W.
 *
 * Computed by adaptive Gauss–Kronrod quadrature, not by an approximation. Error bound:
 * quadrature tolerance 1e-13 per integral (K15−G7 estimate) plus 1e-17 of truncated chi
 * tails, plus the normal CDF's own error (jstat's Chebyshev erf, ~1e-15); checked in the
 * tests against reference values to 1e-10.
 */
export function noncentralTCdf(t: number, df: number, noncentrality: number): number {
  if (!Number.isFinite(t) || !Number.isFinite(noncentrality)) throw new RangeError(`t and the noncentrality must be finite, got ${t} and ${noncentrality}`);
  const p = expectationOverScaledChi(df, (w) => normalCdf(t * w - noncentrality));
  return Math.min(1, Math.max(0, p));
}
