import { ARMS, type Arm, type SimParams } from '../../../harness/index.js';
import { samplePair, streamDraws, type DefectModel } from '../../../harness/testing.js';

/** A ratio estimate pooled over cells, with its delta-method standard error (cells are the unit). */
export interface RatioEstimate {
  ratio: number | null;
  se: number;
  cells: number;
  claims: number;
  /** Mean claims per cell (the denominator's expectation) and its standard error. */
  claimsPerCell: number;
  claimsPerCellSe: number;
}

function ratioOf(pairs: readonly [number, number][]): RatioEstimate {
  const n = pairs.length;
  const num = pairs.reduce((a, [y]) => a + y, 0);
  const den = pairs.reduce((a, [, x]) => a + x, 0);
  const xbar = den / n;
  const claimsPerCellSe = Math.sqrt(pairs.reduce((a, [, x]) => a + (x - xbar) ** 2, 0) / (n - 1) / n);
  if (den === 0) return { ratio: null, se: 0, cells: n, claims: 0, claimsPerCell: 0, claimsPerCellSe };
  const r = num / den;
  const ss = pairs.reduce((a, [y, x]) => a + (y - r * x) ** 2, 0);
  return { ratio: r, se: Math.sqrt(ss / (n - 1) / n) / xbar, cells: n, claims: den, claimsPerCell: xbar, claimsPerCellSe };
}

export interface MonteCarlo {
  /** arm -> level -> estimate (levels 0..cap: a leaf sits at most at level cap). */
  levels: Record<Arm, RatioEstimate[]>;
  /** arm -> all levels pooled. */
  pooled: Record<Arm, RatioEstimate>;
  /** arm -> merge level 0..cap - 1 -> survival after that merge level (each node graded on its own requirements). */
  merges: Record<Arm, RatioEstimate[]>;
  /** arm -> counted claims that failed at a merge and passed at a shallower one, over all cells. */
  revivals: Record<Arm, number>;
}

/**
 * The Monte Carlo of the generative model: the pure sampler itself, fed a fast keyless stream
 * of uniforms instead of sha256 identity draws, pooled as the report's ratio estimator pools.
 */
export function monteCarlo(params: SimParams, options: { cap: number; mergeAttempts: number; defects: DefectModel; requirements: readonly string[]; cells: number; stream: number }): MonteCarlo {
  const draws = streamDraws(options.stream);
  const perLevel: Record<Arm, [number, number][][]> = { gated: [], ungated: [] };
  const pooled: Record<Arm, [number, number][]> = { gated: [], ungated: [] };
  const perMerge: Record<Arm, [number, number][][]> = { gated: [], ungated: [] };
  const revivals: Record<Arm, number> = { gated: 0, ungated: 0 };
  for (const arm of ARMS) for (let l = 0; l <= options.cap; l++) perLevel[arm].push([]);
  for (const arm of ARMS) for (let k = 0; k < options.cap; k++) perMerge[arm].push([]);
  for (let i = 0; i < options.cells; i++) {
    const pair = samplePair(params, { cap: options.cap, repetition: i, mergeAttempts: options.mergeAttempts, defects: options.defects, requirements: options.requirements, draws });
    for (const arm of ARMS) {
      const counts = new Array(options.cap + 1).fill(null).map((): [number, number] => [0, 0]);
      for (const l of pair.arms[arm].levels) counts[l.level] = [l.passing, l.claims];
      counts.forEach((c, l) => perLevel[arm][l]!.push(c));
      pooled[arm].push(counts.reduce<[number, number]>((a, c) => [a[0] + c[0], a[1] + c[1]], [0, 0]));
      const merges = new Array(options.cap).fill(null).map((): [number, number] => [0, 0]);
      for (const m of pair.arms[arm].mergeSurvival.levels) merges[m.mergeLevel] = [m.passing, m.claims];
      merges.forEach((c, k) => perMerge[arm][k]!.push(c));
      revivals[arm] += pair.arms[arm].mergeSurvival.revivals.length;
    }
  }
  return {
    levels: { gated: perLevel.gated.map(ratioOf), ungated: perLevel.ungated.map(ratioOf) },
    pooled: { gated: ratioOf(pooled.gated), ungated: ratioOf(pooled.ungated) },
    merges: { gated: perMerge.gated.map(ratioOf), ungated: perMerge.ungated.map(ratioOf) },
    revivals,
  };
}
