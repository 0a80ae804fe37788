import { hash } from 'node:crypto';
import { ARMS, SimParams } from '../../../harness/index.js';
import {
  efficacyBoundaries,
  pairedTestPower,
  sequentialDesignPairs,
  sequentialOperatingCharacteristics,
  tBoundary,
  tQuantile,
  type Spending,
} from '../../../harness/index.js';
import { expectedSurvival, isolatedDefects, samplePair, streamDraws } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';
import { DEFAULT_POPULATION } from './calibration-support.js';

/**
 * The sequential calibration (issue 30, item 4): do group-sequential rulings keep their false-
 * positive rate and reach their power when a SIMULATED sweep is looked at in stages? No Docker.
 *
 * How. Pairs (cap, repetition) are drawn from the pure generative model of the simulated
 * population (harness/sim's sampler, shared pairing), into a pool per scenario. Each staged
 * sweep then draws its pairs from the pool (with replacement) one at a time, and at each look
 * computes what the report computes for the primary comparison: the paired difference of the
 * cap's survival, Σ(gated − ungated surviving) / Σ claimed, with its cluster-linearized
 * standard error and t = D/SE on n − 1 df (harness/stats/cluster-ratio.ts), and stops when a
 * rule's boundary is crossed. Resampling a pool makes the planted truth of the swept
 * population exact and known: under the null each pair's arms are swapped with probability
 * 1/2 (with equal recalls and 2 merge attempts the arms are exchangeable given the shared
 * leaves, so the swap is a symmetry of the model), making the truth exactly 0; under the
 * effect the truth is the pool's own ratio, which is also what the design is sized for
 * (smallest_difference), with the pool's SD of pair differences. The closed-form truth of the
 * generative model is shown beside it.
 */

export interface Rule {
  name: string;
  /** Cumulative pairs at each look. */
  looks: number[];
  /** |t| at or above this at look k (n pairs) rejects. */
  threshold: (k: number, n: number) => number;
  /** The power the design claims at the effect (null when the rule makes no claim). */
  claimedPower: number | null;
  /** E[pairs] the design predicts under the null and the effect (normal theory), or null. */
  predictedPairs: { null: number; effect: number } | null;
}

export interface RuleFigures {
  name: string;
  looks: number[];
  /** Share of null sweeps that rejected, and its Monte Carlo standard error. */
  falsePositive: number;
  falsePositiveSe: number;
  /** Share of effect sweeps that rejected with a positive difference. */
  power: number;
  powerSe: number;
  claimedPower: number | null;
  meanPairsNull: number;
  meanPairsEffect: number;
  predictedPairs: { null: number; effect: number } | null;
}

export interface ScenarioFigures {
  collapse: boolean;
  /** The planted difference of the swept (resampled) population: smallest_difference. */
  difference: number;
  /** The generative model's closed-form difference (the pool estimates it). */
  closedFormDifference: number;
  sd: number;
  nullSd: number;
  fixedPairs: { normal: number; t: number };
  maxPairs: number;
  rules: RuleFigures[];
}

export interface SequentialCalibration {
  sweeps: number;
  poolPairs: number;
  seed: number;
  alpha: number;
  power: number;
  cap: number;
  scenarios: ScenarioFigures[];
}

export interface CalibrationOptions {
  sweeps: number;
  poolPairs: number;
  seed: number;
  /** Which populations: without the collapse mode, with it, or both (in that order). */
  collapse: boolean[];
  /** Drops a mechanism, to show the tests fail without it (mutation checks only). */
  without?: 'boundaries' | 't-correction';
}

const ALPHA = 0.05;
const POWER = 0.8;
const CAP = 2;
const MERGE_ATTEMPTS = 2;
const COLLAPSE = { rate: 0.15, severity: 0.6 };
/** Equal recalls with 2 merge attempts: the arms are equal in truth. */
const NULL_RECALLS = { judge_recall: 0.3, self_review_recall: 0.3 };
/** The effect per population: a judge recall that puts the fixed design near 50-90 pairs. */
const EFFECT_RECALLS = { off: { judge_recall: 0.4, self_review_recall: 0.3 }, on: { judge_recall: 0.8, self_review_recall: 0.3 } };

const defects = isolatedDefects(SPEC_IDS);
const RESAMPLE_KEY = { node: 'root', role: 'planner', attempt: 1, decision: 'resample' } as const;

/** A pool of pairs: per pair the difference of surviving claims (gated − ungated) and the claims. */
interface Pool {
  d: Float64Array;
  c: Float64Array;
}

function drawPool(params: SimParams, pairs: number, tag: string): Pool {
  const d = new Float64Array(pairs);
  const c = new Float64Array(pairs);
  for (let i = 0; i < pairs; i++) {
    const seed = hash('sha256', `sequential-calibration/${tag}/${i}`, 'buffer').readUInt32BE(0);
    const pair = samplePair(params, { cap: CAP, repetition: 1, mergeAttempts: MERGE_ATTEMPTS, defects, requirements: SPEC_IDS, draws: streamDraws(seed) });
    const total = (arm: 'gated' | 'ungated', field: 'claims' | 'passing') => pair.arms[arm].levels.reduce((sum, l) => sum + l[field], 0);
    d[i] = total('gated', 'passing') - total('ungated', 'passing');
    c[i] = total('gated', 'claims');
  }
  return { d, c };
}

/** The ratio difference of a pool and the SD of its pairs' linearized differences. */
function poolMoments(pool: Pool): { difference: number; sd: number } {
  const n = pool.d.length;
  let sd = 0;
  let sc = 0;
  for (let i = 0; i < n; i++) {
    sd += pool.d[i]!;
    sc += pool.c[i]!;
  }
  const difference = sd / sc;
  const meanClaims = sc / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += ((pool.d[i]! - difference * pool.c[i]!) / meanClaims) ** 2;
  return { difference, sd: Math.sqrt(ss / (n - 1)) };
}

function closedFormDifference(params: SimParams): number {
  const [g, u] = ARMS.map((arm) => expectedSurvival(params, { cap: CAP, arm, mergeAttempts: MERGE_ATTEMPTS, defects, requirements: SPEC_IDS }).survival!);
  return g! - u!;
}

/** The rules every sweep is ruled by, on the same pairs (common random numbers). */
function rulesFor(design: ReturnType<typeof sequentialDesignPairs>, pocock: ReturnType<typeof sequentialDesignPairs>, drift: (pairs: number) => number, without: CalibrationOptions['without']): Rule[] {
  const zOf = (spending: Spending, looks: number[]) => {
    const last = looks.at(-1)!;
    return efficacyBoundaries({ spending, alpha: ALPHA, fractions: looks.map((n) => n / last) }).z;
  };
  const predicted = (spending: Spending, looks: number[]) => {
    const fractions = looks.map((n) => n / looks.at(-1)!);
    const at = (theta: number) => sequentialOperatingCharacteristics({ spending, alpha: ALPHA, fractions, drift: theta });
    const effect = at(drift(looks.at(-1)!));
    return { power: effect.power, pairs: { null: at(0).expectedFraction * looks.at(-1)!, effect: effect.expectedFraction * looks.at(-1)! } };
  };
  const sequential = (name: string, spending: Spending, looks: number[], corrected: boolean): Rule => {
    const z = without === 'boundaries' ? looks.map(() => 1.959963984540054) : zOf(spending, looks);
    const p = predicted(spending, looks);
    const correct = corrected && without !== 't-correction';
    return { name, looks, threshold: (k, n) => (correct ? tBoundary(z[k]!, n - 1) : z[k]!), claimedPower: p.power, predictedPairs: p.pairs };
  };
  const unadjusted = (name: string, looks: number[]): Rule => ({ name, looks, threshold: (_k, n) => tQuantile(1 - ALPHA / 2, n - 1), claimedPower: null, predictedPairs: null });
  const fixed = design.fixed.t;
  return [
    sequential(`O'Brien-Fleming, 3 looks, t-corrected`, 'obrien_fleming', design.pairsPerLook, true),
    sequential(`O'Brien-Fleming, 3 looks, normal boundaries`, 'obrien_fleming', design.pairsPerLook, false),
    sequential(`Pocock, 2 looks, t-corrected`, 'pocock', pocock.pairsPerLook, true),
    { name: 'fixed design, 1 look (t test)', looks: [fixed], threshold: (_k, n) => tQuantile(1 - ALPHA / 2, n - 1), claimedPower: pairedTestPower({ pairs: fixed, sd: 1, difference: drift(1) }), predictedPairs: { null: fixed, effect: fixed } },
    unadjusted('unadjusted t, 2 looks (25+25)', [25, 50]),
    unadjusted('unadjusted t, 5 looks (10 each)', [10, 20, 30, 40, 50]),
    sequential(`O'Brien-Fleming 25+25, normal boundaries`, 'obrien_fleming', [25, 50], false),
    sequential(`O'Brien-Fleming 25+25, t-corrected`, 'obrien_fleming', [25, 50], true),
  ];
}

/** Rules one sweep: the look that stopped it and the sign of t there (0: never rejected). */
function ruleSweep(rule: Rule, prefix: Prefix): { pairs: number; sign: number } {
  for (const [k, n] of rule.looks.entries()) {
    const t = prefix.t(n);
    if (t !== null && Math.abs(t) >= rule.threshold(k, n)) return { pairs: n, sign: Math.sign(t) };
  }
  return { pairs: rule.looks.at(-1)!, sign: 0 };
}

/** Running sums over one sweep's pairs, so the paired t at any prefix costs O(1). */
interface Prefix {
  t(n: number): number | null;
}

function sweepPrefix(pool: Pool, pairs: number, next: () => number, flip: boolean): Prefix {
  const sums = new Float64Array((pairs + 1) * 5);
  for (let i = 0; i < pairs; i++) {
    const j = Math.floor(next() * pool.d.length);
    const d = flip && next() < 0.5 ? -pool.d[j]! : pool.d[j]!;
    const c = pool.c[j]!;
    const o = i * 5;
    sums[o + 5] = sums[o]! + d;
    sums[o + 6] = sums[o + 1]! + c;
    sums[o + 7] = sums[o + 2]! + d * d;
    sums[o + 8] = sums[o + 3]! + d * c;
    sums[o + 9] = sums[o + 4]! + c * c;
  }
  return {
    t(n) {
      const o = n * 5;
      const [sd, sc, sdd, sdc, scc] = [sums[o]!, sums[o + 1]!, sums[o + 2]!, sums[o + 3]!, sums[o + 4]!];
      if (!(sc > 0)) return null;
      const D = sd / sc;
      const meanClaims = sc / n;
      // Σ influence² with influence (d − D·c)/mean(c); the influences sum to 0.
      const ss = (sdd - 2 * D * sdc + D * D * scc) / (meanClaims * meanClaims);
      const se = Math.sqrt(Math.max(0, ss) / (n - 1) / n);
      // No spread: the report would assume one and label it; no rejection is counted here.
      return se > 1e-12 ? D / se : null;
    },
  };
}

/** One population (collapse mode off or on): pools, design, and every rule over the sweeps. */
function scenario(collapse: boolean, options: CalibrationOptions): ScenarioFigures {
  const mode = collapse ? { collapse: COLLAPSE } : {};
  const nullParams = SimParams.parse({ ...DEFAULT_POPULATION, ...NULL_RECALLS, ...mode });
  const effectParams = SimParams.parse({ ...DEFAULT_POPULATION, ...EFFECT_RECALLS[collapse ? 'on' : 'off'], ...mode });
  const tag = `${options.seed}/${collapse ? 'collapse' : 'smooth'}`;
  const nullPool = drawPool(nullParams, options.poolPairs, `${tag}/null`);
  const effectPool = drawPool(effectParams, options.poolPairs, `${tag}/effect`);
  const { difference, sd } = poolMoments(effectPool);
  const design = sequentialDesignPairs({ spending: 'obrien_fleming', alpha: ALPHA, power: POWER, looks: 3, difference, sd });
  const pocock = sequentialDesignPairs({ spending: 'pocock', alpha: ALPHA, power: POWER, looks: 2, difference, sd });
  const drift = (pairs: number) => (difference / sd) * Math.sqrt(pairs);
  const rules = rulesFor(design, pocock, drift, options.without);
  const longest = Math.max(...rules.map((r) => r.looks.at(-1)!));
  // A stream source ignores its key; the resampling needs only its uniforms.
  const stream = streamDraws(hash('sha256', `sequential-calibration/${tag}/sweeps`, 'buffer').readUInt32BE(0));
  const next = () => stream(RESAMPLE_KEY);
  const tallies = rules.map(() => ({ rejectNull: 0, pairsNull: 0, powerHits: 0, pairsEffect: 0 }));
  for (let s = 0; s < options.sweeps; s++) {
    const underNull = sweepPrefix(nullPool, longest, next, true);
    const underEffect = sweepPrefix(effectPool, longest, next, false);
    rules.forEach((rule, r) => {
      const a = ruleSweep(rule, underNull);
      const b = ruleSweep(rule, underEffect);
      tallies[r]!.rejectNull += Number(a.sign !== 0);
      tallies[r]!.pairsNull += a.pairs;
      tallies[r]!.powerHits += Number(b.sign > 0);
      tallies[r]!.pairsEffect += b.pairs;
    });
  }
  const n = options.sweeps;
  const se = (p: number) => Math.sqrt((p * (1 - p)) / n);
  return {
    collapse,
    difference,
    closedFormDifference: closedFormDifference(effectParams),
    sd,
    nullSd: poolMoments(nullPool).sd,
    fixedPairs: design.fixed,
    maxPairs: design.maxPairs,
    rules: rules.map((rule, r) => {
      const t = tallies[r]!;
      const falsePositive = t.rejectNull / n;
      const power = t.powerHits / n;
      return {
        name: rule.name,
        looks: rule.looks,
        falsePositive,
        falsePositiveSe: se(ALPHA),
        power,
        powerSe: se(power),
        claimedPower: rule.claimedPower,
        meanPairsNull: t.pairsNull / n,
        meanPairsEffect: t.pairsEffect / n,
        predictedPairs: rule.predictedPairs,
      };
    }),
  };
}

/** The whole calibration: pure in its options (every draw is seeded from them). */
export function sequentialCalibration(options: CalibrationOptions): SequentialCalibration {
  return { sweeps: options.sweeps, poolPairs: options.poolPairs, seed: options.seed, alpha: ALPHA, power: POWER, cap: CAP, scenarios: options.collapse.map((c) => scenario(c, options)) };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The table `npm run calibration:sequential` prints and docs/sequential-calibration.md quotes. */
export function sequentialTable(result: SequentialCalibration): string {
  const lines = [
    `SIMULATED sequential calibration: ${result.sweeps} staged sweeps per rule and truth, pools of ${result.poolPairs} pairs, cap ${result.cap}, alpha ${result.alpha}, design power ${result.power}, seed ${result.seed}`,
    `goals: false positives <= alpha + 2 MC SE (${pct(result.alpha + 2 * Math.sqrt((result.alpha * (1 - result.alpha)) / result.sweeps))}); power within 5 points of the design's claim`,
  ];
  for (const s of result.scenarios) {
    lines.push(
      '',
      `collapse mode ${s.collapse ? `ON (rate ${COLLAPSE.rate}, severity ${COLLAPSE.severity})` : 'OFF'}: planted difference (smallest_difference) ${s.difference.toFixed(4)} (closed form ${s.closedFormDifference.toFixed(4)}), pair SD ${s.sd.toFixed(3)} (null ${s.nullSd.toFixed(3)}); fixed design ${s.fixedPairs.normal} pairs (normal) / ${s.fixedPairs.t} (t)`,
      `${'rule'.padEnd(42)} ${'looks (pairs)'.padEnd(18)} ${'false pos.'.padStart(10)} ${'power'.padStart(7)} ${'claim'.padStart(7)} ${'pairs|null'.padStart(10)} ${'pairs|eff'.padStart(9)} ${'predicted (null/eff)'.padStart(20)}`,
    );
    for (const r of s.rules) {
      lines.push(
        `${r.name.padEnd(42)} ${r.looks.join('+').replace(/(\d+)\+/g, '$1,').padEnd(18)} ${pct(r.falsePositive).padStart(10)} ${pct(r.power).padStart(7)} ${(r.claimedPower === null ? '-' : pct(r.claimedPower)).padStart(7)} ${r.meanPairsNull.toFixed(1).padStart(10)} ${r.meanPairsEffect.toFixed(1).padStart(9)} ${(r.predictedPairs === null ? '-' : `${r.predictedPairs.null.toFixed(1)} / ${r.predictedPairs.effect.toFixed(1)}`).padStart(20)}`,
      );
    }
  }
  return lines.join('\n');
}
