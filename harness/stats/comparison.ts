import type { Comparison } from '../manifest/hypothesis.js';
import { survivalStats, type CellTally, type Pairing, type PooledEstimate } from './survival-stats.js';

/**
 * The gated − ungated difference one pre-registered comparison names, with its interval at a
 * given confidence, from the same cluster machinery as every other figure (survivalStats: pairs
 * (cap, repetition) as clusters, cluster-linearized standard error, caps pooled as strata
 * weighted by pairs, Satterthwaite degrees of freedom).
 *
 * - `level: L`: the pooled-over-caps difference at achieved level L, exactly the headline's row.
 * - `levels_from: K`: each cell's claims at every level >= K summed into one tally (so a pair's
 *   difference is Σ gated surviving − Σ ungated surviving over those levels, over Σ claimed),
 *   then the same estimator: the pair stays the cluster, its leaves are never independent.
 *
 * Level 0 never enters: the manifest refuses a comparison that includes it (no merge there, so
 * under shared pairing the arms are identical by design), and this drops it again regardless.
 */

/** The cells' tallies cut to what a comparison reads: level L alone, or levels >= K summed into one entry at K. */
export function comparisonTallies(cells: readonly CellTally[], comparison: Comparison): CellTally[] {
  if (comparison.level !== undefined) {
    const level = comparison.level;
    return cells.map((c) => ({ ...c, levels: level >= 1 ? c.levels.filter((t) => t.level === level) : [] }));
  }
  const from = Math.max(1, comparison.levels_from!);
  return cells.map((c) => {
    const kept = c.levels.filter((t) => t.level >= from);
    if (kept.length === 0) return { ...c, levels: [] };
    return { ...c, levels: [{ level: from, claimed: kept.reduce((n, t) => n + t.claimed, 0), surviving: kept.reduce((n, t) => n + t.surviving, 0) }] };
  });
}

/** The comparison's pooled difference at `confidence`, or null when no complete pair has claims it reads. */
export function comparisonDifference(cells: readonly CellTally[], pairing: Pairing, comparison: Comparison, confidence: number, pairDifferenceSd?: number): PooledEstimate | null {
  const tallies = comparisonTallies(cells, comparison);
  const level = comparison.level ?? Math.max(1, comparison.levels_from!);
  const stats = survivalStats({ pairing, cells: tallies }, { confidence, ...(pairDifferenceSd !== undefined ? { pairDifferenceSd } : {}) });
  return stats.pooled.find((row) => row.level === level)?.difference ?? null;
}

/**
 * The two-sided p-value of "no difference" as the interval itself reads it: 1 − the highest
 * confidence whose interval still excludes 0, found by bisection. Inverting the interval the
 * ruling reads (logit scale, or an assumed spread where pairs show none) keeps Holm's order
 * consistent with the rulings read from those intervals; a p from estimate / SE would call a no-spread difference p = 0.
 */
export function comparisonPValue(cells: readonly CellTally[], pairing: Pairing, comparison: Comparison, pairDifferenceSd?: number): number | null {
  const at = (confidence: number) => comparisonDifference(cells, pairing, comparison, confidence, pairDifferenceSd)?.interval;
  const excludes = (confidence: number) => {
    const i = at(confidence);
    return i !== undefined && i.kind === 't' && (i.low > 0 || i.high < 0);
  };
  const first = at(0.5);
  if (first === undefined || first.kind === 'none') return null;
  if (!excludes(1e-6)) return 1;
  if (excludes(1 - 1e-12)) return 1e-12;
  let lo = 1e-6;
  let hi = 1 - 1e-12;
  // 22 halvings: the p-value to about 2e-7, finer than the 4 decimals it prints and any α it is compared with.
  for (let i = 0; i < 22; i++) {
    const mid = (lo + hi) / 2;
    if (excludes(mid)) lo = mid;
    else hi = mid;
  }
  return 1 - lo;
}
