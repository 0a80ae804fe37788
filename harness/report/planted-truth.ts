import type { Arm } from '../manifest/manifest.js';
import type { DefectModel } from '../sim/defect-model.js';
import type { SimModel } from '../sim/sim-params.js';
import { achievedDepthDistribution, expectedCurves, type ArmTruthByCap } from '../sim/truth.js';

/**
 * report/'s one door into sim/ (tests/architecture.test.ts holds it): the planted parameters'
 * schema and text, the defect model's type, and the corpus's defect table the truth is read from.
 */
export { SimParams, plantedText, withBound } from '../sim/sim-params.js';
export type { DefectModel } from '../sim/defect-model.js';
export { defectModelOf } from '../sim/defect-table.js';
export { DEFECTS_FILE, corpusDir, loadDefectTable } from '../sim/corpus-files.js';

/**
 * The planted truth of a SIMULATED sweep, from the sim's exact closed form: what each measured
 * figure of the report estimates. Survival per level is the ratio of expected totals per cell
 * (expected surviving claims / expected claims), the quantity the report's ratio estimator
 * converges to; the cap curve pools every level the same way.
 */
export interface PlantedTruth {
  /** How the figures were computed, in one line for the report. */
  readonly description: string;
  survival(cap: number, level: number, arm: Arm): number | null;
  difference(cap: number, level: number): number | null;
  capCurve(cap: number, arm: Arm): number | null;
  /** gated − ungated over the levels from `fromLevel` on (1 under shared pairing: level 0 is identical by design). Default 0. */
  capDifference(cap: number, fromLevel?: number): number | null;
  /** Survival after merge level `mergeLevel` (grade_merges): the closed form per merge level; null where no node can split. */
  mergeSurvival(cap: number, mergeLevel: number, arm: Arm): number | null;
  /** P(the deepest leaf sits at `deepestLevel`) at `cap`. */
  depthProbability(cap: number, deepestLevel: number): number;
  specFraction(cap: number, arm: Arm): number;
}

export interface TruthOptions {
  caps: readonly number[];
  mergeAttempts: number;
  defects: DefectModel;
  requirements: readonly string[];
}

export function plantedTruth(params: SimModel, options: TruthOptions): PlantedTruth {
  const curves: Record<Arm, ArmTruthByCap> = expectedCurves(params, options);
  const depth = new Map(options.caps.map((cap) => [cap, achievedDepthDistribution(params, cap, options.requirements.length)]));
  const survival = (cap: number, level: number, arm: Arm) => curves[arm][cap]?.levels.find((l) => l.level === level)?.survival ?? null;
  const capCurve = (cap: number, arm: Arm) => curves[arm][cap]?.survival ?? null;
  const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);
  return {
    description: 'closed form of the simulated population (harness/sim/truth.ts): expected surviving claims / expected claims per cell, exact over the random tree shape',
    survival,
    difference: (cap, level) => minus(survival(cap, level, 'gated'), survival(cap, level, 'ungated')),
    capCurve,
    capDifference: (cap, fromLevel = 0) => {
      const from = (arm: Arm) => curves[arm][cap]?.levels.filter((l) => l.level >= fromLevel) ?? [];
      const claims = from('gated').reduce((n, l) => n + l.expectedClaims, 0);
      const passing = (arm: Arm) => from(arm).reduce((n, l) => n + l.expectedPassing, 0);
      // Both arms share the claims (shared pairing), so the difference is of passing totals over one denominator.
      return claims > 0 ? (passing('gated') - passing('ungated')) / claims : null;
    },
    mergeSurvival: (cap, mergeLevel, arm) => curves[arm][cap]?.merges.find((m) => m.level === mergeLevel)?.survival ?? null,
    // Achieved depth is the deepest leaf's level, as the engine counts it.
    depthProbability: (cap, deepestLevel) => depth.get(cap)?.find((d) => d.depth === deepestLevel)?.probability ?? 0,
    specFraction: (cap, arm) => curves[arm][cap]?.specFraction ?? 0,
  };
}

/** A pooled figure's truth: the same strata-weighted sum of the caps' truths; null when any stratum has none. */
export function pooledTruth(strata: ReadonlyArray<{ cap: number; weight: number }>, truthAt: (cap: number) => number | null): number | null {
  let sum = 0;
  for (const s of strata) {
    const t = truthAt(s.cap);
    if (t === null) return null;
    sum += s.weight * t;
  }
  return strata.length === 0 ? null : sum;
}
