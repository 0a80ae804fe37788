import { normalCdfAccurate } from './internal/normal-tail.js';
import { exitProbabilities, nextStage, solveDecreasing, type Stage } from './internal/sequential-grid.js';
import { Spending, spentAlpha } from './spending.js';
import { fixedDesignPairs } from './power.js';
import { tQuantile } from './t-distribution.js';

/**
 * Group-sequential designs: a sweep looked at K times, with a boundary at each look that keeps
 * the total false-positive rate at alpha however many looks are taken (Lan–DeMets alpha
 * spending; gsDesign and rpact are the references this reproduces).
 *
 * **Convention (two conventions exist; this is the gsDesign/rpact one).** A two-sided design at
 * alpha spends the one-sided spending function at alpha/2 on each side, symmetrically: two
 * equal looks at alpha 0.05 under O'Brien–Fleming spending give 2.963 and 1.969, three give
 * 3.710, 2.511 and 1.993. The other convention applies the function to the two-sided total
 * (α*(t) with a = 0.05, then split), which gives 2.772 and 1.979 at two looks; it is not used.
 * Pocock-type spending is linear in its total, so both conventions give 2.157 and 2.201.
 * (2.797 and 1.977 are the classic O'Brien–Fleming constants, which are not a spending
 * function's.)
 *
 * Bad arguments throw RangeError: they are a caller's bug, since a manifest's `sequential`
 * block is validated by its schema before it gets here.
 */

export { Spending, spentAlpha };

function checkProbability(p: number, what: string): void {
  if (!(p > 0 && p < 1)) throw new RangeError(`${what} must lie strictly between 0 and 1, got ${p}`);
}

function checkFractions(fractions: number[]): void {
  if (fractions.length === 0) throw new RangeError('a design needs at least one look (fractions is empty)');
  fractions.forEach((t, k) => {
    if (!(t > 0 && t <= 1)) throw new RangeError(`look ${k + 1}: the information fraction must lie in (0, 1], got ${t}`);
    if (k > 0 && !(t > fractions[k - 1]!)) throw new RangeError(`look ${k + 1}: information fractions must increase strictly, got ${fractions[k - 1]} then ${t}`);
  });
}

function checkSpending(spending: Spending): void {
  if (!Spending.safeParse(spending).success) throw new RangeError(`unknown spending function ${JSON.stringify(spending)}: use obrien_fleming or pocock`);
}

/** Cumulative two-sided alpha allowed by look k: the one-sided function at alpha/2, doubled; all of it at the final look. */
function cumulativeTwoSided(spending: Spending, alpha: number, fractions: number[], finalLook: boolean): number[] {
  return fractions.map((t, k) => (k === fractions.length - 1 && (finalLook || t === 1) ? alpha : 2 * spentAlpha(spending, alpha / 2, t)));
}

const Z_CEILING = 40;

/** Two-sided p-value of |Z| >= z, accurate far into the tail. */
function twoSidedP(z: number): number {
  return 2 * normalCdfAccurate(-z);
}

export interface EfficacyBoundaries {
  /** |Z| at or above z[k] at look k rejects (two-sided, symmetric). */
  z: number[];
  /** Two-sided alpha spent by each look, cumulative. */
  cumulativeAlpha: number[];
  /** Two-sided nominal p-value of each boundary: the p a fixed test would need to cross it. */
  nominalP: number[];
}

/**
 * Two-sided symmetric efficacy boundaries (z scale) for looks at the given cumulative
 * information fractions (strictly increasing, the last at most 1). A look at fraction 1, or
 * the last one when `finalLook` is set (the sweep ends short of its plan), spends all that is
 * left. Each boundary solves P₀(no earlier crossing, Z_k >= z_k) = the increment of the
 * one-sided function at alpha/2, by recursive integration under the null.
 */
export function efficacyBoundaries(args: { spending: Spending; alpha: number; fractions: number[]; finalLook?: boolean }): EfficacyBoundaries {
  const { spending, alpha, fractions } = args;
  checkSpending(spending);
  checkProbability(alpha, 'alpha');
  checkFractions(fractions);
  const cumulativeAlpha = cumulativeTwoSided(spending, alpha, fractions, args.finalLook ?? false);
  const z: number[] = [];
  let stage: Stage | null = null;
  fractions.forEach((t, k) => {
    const perSide = (cumulativeAlpha[k]! - (k === 0 ? 0 : cumulativeAlpha[k - 1]!)) / 2;
    const prev = stage;
    const c = solveDecreasing((x) => exitProbabilities(prev, t, 0, x, -x).up, perSide, 0, Z_CEILING);
    z.push(c);
    const next = fractions[k + 1];
    if (next !== undefined) stage = nextStage(prev, t, 0, -c, c, next - t);
  });
  return { z, cumulativeAlpha, nominalP: z.map(twoSidedP) };
}

/**
 * The same boundary on the t scale for a look whose paired t statistic has `df` degrees of
 * freedom: the t quantile with the boundary's nominal two-sided p-value. Normal boundaries
 * applied to a t statistic reject too often when pairs are few (about 5.6% instead of 5% at
 * 25 + 25 pairs; the sequential calibration shows it), and matching the nominal p removes
 * most of that.
 */
export function tBoundary(z: number, df: number): number {
  if (!(Number.isFinite(z) && z > 0)) throw new RangeError(`the z boundary must be a positive finite number, got ${z}`);
  if (!(Number.isFinite(df) && df >= 1)) throw new RangeError(`degrees of freedom must be a finite number >= 1, got ${df}`);
  const tail = normalCdfAccurate(-z);
  // The lower quantile of a tiny tail keeps its digits; 1 − tail would round them away.
  return -tQuantile(tail, df);
}

/** One pass of a design at drift θ: its stop and crossing probabilities per look. */
interface Pass {
  /** P(cross the upper efficacy boundary at look k, not stopped before). */
  up: number[];
  /** P(cross the lower efficacy boundary, or fall below the futility boundary, at look k). */
  down: number[];
}

/**
 * Walks a design at drift θ. `efficacy` are the two-sided boundaries; `futility`, when given,
 * stops paths below it (never above the efficacy boundary, and equal to it at the last look,
 * which must rule). Paths stop below max(futility, −efficacy).
 */
function walk(fractions: number[], theta: number, efficacy: number[], futility: number[] | null): Pass {
  const up: number[] = [];
  const down: number[] = [];
  let stage: Stage | null = null;
  fractions.forEach((t, k) => {
    const lower = futility === null ? -efficacy[k]! : Math.max(futility[k]!, -efficacy[k]!);
    const exits = exitProbabilities(stage, t, theta, efficacy[k]!, lower);
    up.push(exits.up);
    down.push(exits.down);
    const next = fractions[k + 1];
    if (next !== undefined) stage = nextStage(stage, t, theta, lower, efficacy[k]!, next - t);
  });
  return { up, down };
}

/**
 * Futility boundaries by beta spending at the design's drift θ: each solves
 * P_θ(not stopped before, Z_k < b_k) = the increment of the same spending family at total
 * beta. They are non-binding: the efficacy boundaries are computed as if they did not exist
 * (so alpha holds when a sweep continues past one), as gsDesign's test.type = 4 does. A
 * boundary never exceeds the efficacy boundary, and the last equals it (the final look rules).
 */
function futilityFor(spending: Spending, beta: number, fractions: number[], drift: number, efficacy: number[]): number[] {
  const b: number[] = [];
  let stage: Stage | null = null;
  let spent = 0;
  fractions.forEach((t, k) => {
    const c = efficacy[k]!;
    const last = k === fractions.length - 1;
    let bound = c;
    if (!last) {
      const target = spentAlpha(spending, beta, t) - spent;
      const prev = stage;
      // P(Z_k < b) rises with b; solve on its negation, which falls.
      bound = solveDecreasing((x) => -exitProbabilities(prev, t, drift, c, x).down, -target, drift * Math.sqrt(t) - Z_CEILING, c);
      bound = Math.min(bound, c);
    }
    const lower = Math.max(bound, -c);
    b.push(bound);
    spent += exitProbabilities(stage, t, drift, c, lower).down;
    const next = fractions[k + 1];
    if (next !== undefined) stage = nextStage(stage, t, drift, lower, c, next - t);
  });
  return b;
}

/** Non-binding futility boundaries (beta spending, same family) for a design with drift θ (z's mean at full information). */
export function futilityBoundaries(args: { spending: Spending; beta: number; alpha: number; fractions: number[]; drift: number }): { z: number[] } {
  checkProbability(args.beta, 'beta');
  if (!Number.isFinite(args.drift)) throw new RangeError(`the drift must be finite, got ${args.drift}`);
  const efficacy = efficacyBoundaries(args).z;
  return { z: futilityFor(args.spending, args.beta, args.fractions, args.drift, efficacy) };
}

export interface OperatingCharacteristics {
  /** P(reject at some look, on either side): the test's power (alpha at drift 0 without futility), as `pairedTestPower` counts it. */
  power: number;
  /** P(cross the upper boundary): rejection in the direction of a positive difference. */
  upperCrossing: number;
  /** E[information fraction at stop], where the maximum is fraction 1. */
  expectedFraction: number;
  /** P(the sweep stops at look k); the last look takes all that is left. */
  stopProbabilities: number[];
  efficacy: number[];
  /** Futility boundaries used, or null. */
  futility: number[] | null;
}

/**
 * Power, expected information and stop probabilities of a K-look design at drift θ (θ = 0 is
 * the null). With `futility`, boundaries are designed by beta spending at `designDrift`
 * (default: the drift at which this design reaches power 1 − beta) and counted as binding
 * here, so power is the conservative figure and alpha is below nominal (non-binding in use).
 */
export function sequentialOperatingCharacteristics(args: {
  spending: Spending;
  alpha: number;
  beta?: number;
  fractions: number[];
  drift: number;
  futility?: boolean;
  designDrift?: number;
}): OperatingCharacteristics {
  const { spending, alpha, fractions, drift } = args;
  const beta = args.beta ?? 0.2;
  checkProbability(beta, 'beta');
  if (!Number.isFinite(drift)) throw new RangeError(`the drift must be finite, got ${drift}`);
  const efficacy = efficacyBoundaries({ spending, alpha, fractions }).z;
  let futility: number[] | null = null;
  if (args.futility) {
    const design = args.designDrift ?? solveDrift(spending, alpha, beta, fractions, true);
    futility = futilityFor(spending, beta, fractions, design, efficacy);
  }
  const pass = walk(fractions, drift, efficacy, futility);
  const stops = pass.up.map((u, k) => u + pass.down[k]!);
  const beforeLast = stops.slice(0, -1).reduce((a, b) => a + b, 0);
  const stopProbabilities = [...stops.slice(0, -1), Math.max(0, 1 - beforeLast)];
  const upperCrossing = pass.up.reduce((a, b) => a + b, 0);
  // A lower exit is a rejection only where it is past the lower efficacy boundary, i.e. without futility.
  const lowerRejection = futility === null ? pass.down.reduce((a, b) => a + b, 0) : 0;
  return {
    power: Math.min(1, upperCrossing + lowerRejection),
    upperCrossing: Math.min(1, upperCrossing),
    expectedFraction: stopProbabilities.reduce((sum, p, k) => sum + p * fractions[k]!, 0),
    stopProbabilities,
    efficacy,
    futility,
  };
}

/** Rejection probability (either side; with futility, upper only) of a design at drift θ, futility designed at θ itself. */
function powerAt(spending: Spending, alpha: number, beta: number, fractions: number[], theta: number, futility: boolean): number {
  const efficacy = efficacyBoundaries({ spending, alpha, fractions }).z;
  const bounds = futility ? futilityFor(spending, beta, fractions, theta, efficacy) : null;
  const pass = walk(fractions, theta, efficacy, bounds);
  const up = pass.up.reduce((a, b) => a + b, 0);
  return bounds === null ? up + pass.down.reduce((a, b) => a + b, 0) : up;
}

/**
 * The drift at which the design reaches power 1 − beta. With futility the boundaries move with
 * the drift, and the answer is where the last futility boundary meets the last efficacy one
 * (gsDesign's definition of the maximum information).
 */
function solveDrift(spending: Spending, alpha: number, beta: number, fractions: number[], futility: boolean): number {
  let lo = 0;
  let hi = 8;
  while (powerAt(spending, alpha, beta, fractions, hi, futility) < 1 - beta) hi *= 2;
  while (hi - lo > 1e-7) {
    const mid = (lo + hi) / 2;
    if (powerAt(spending, alpha, beta, fractions, mid, futility) < 1 - beta) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Equally spaced fractions k/K. */
export function equalFractions(looks: number): number[] {
  if (!(Number.isInteger(looks) && looks >= 1)) throw new RangeError(`looks must be an integer >= 1, got ${looks}`);
  return Array.from({ length: looks }, (_, k) => (k + 1) / looks);
}

/**
 * The drift (z's mean at full information) at which a design of `looks` equal looks reaches
 * `power`: the number a sample size is solved from. One look gives the fixed design's
 * z₁₋α/₂ + z_power to within 4e-6 (its far tail, Φ(−4.8), is counted as power too).
 */
export function sequentialDrift(args: { spending: Spending; alpha: number; power: number; looks: number; futility?: boolean }): number {
  checkSpending(args.spending);
  checkProbability(args.alpha, 'alpha');
  checkProbability(args.power, 'power');
  if (!(args.power > args.alpha)) throw new RangeError(`power (${args.power}) must exceed alpha (${args.alpha})`);
  return solveDrift(args.spending, args.alpha, 1 - args.power, equalFractions(args.looks), args.futility ?? false);
}

/**
 * The maximum-information inflation factor of a K-look design against the fixed design with
 * the same alpha and power: (drift_K / drift_1)². Multiply the fixed design's pairs by it.
 */
export function inflationFactor(args: { spending: Spending; alpha: number; power: number; looks: number; futility?: boolean }): number {
  const sequential = sequentialDrift(args);
  const fixed = sequentialDrift({ ...args, looks: 1, futility: false });
  return (sequential / fixed) ** 2;
}

/**
 * Two-sided rejection probability of fixed boundaries `z` (one per look, symmetric) at drift θ:
 * what looking K times at the same unadjusted 1.96 costs. Two equal looks at alpha 0.05 reject
 * a true null 8.3% of the time, five 14.2% (the figures the REPEATED LOOKS caveat rests on).
 */
export function crossingProbability(args: { z: number[]; fractions: number[]; drift?: number }): number {
  checkFractions(args.fractions);
  if (args.z.length !== args.fractions.length) throw new RangeError(`one boundary per look: ${args.z.length} boundaries for ${args.fractions.length} looks`);
  args.z.forEach((c, k) => {
    if (!(c > 0 && Number.isFinite(c))) throw new RangeError(`look ${k + 1}: the boundary must be a positive finite number, got ${c}`);
  });
  const pass = walk(args.fractions, args.drift ?? 0, args.z, null);
  return Math.min(1, [...pass.up, ...pass.down].reduce((a, b) => a + b, 0));
}

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
