import { ARMS, DEFAULT_PAIR_DIFFERENCE_SD, type Arm } from '../manifest/manifest.js';
import { survivalStats, type ArmEstimate, type CellTally, type DifferenceEstimate, type PooledEstimate } from '../stats/survival-stats.js';
import type { Pairing } from '../stats/survival-stats.js';
import { pooledTruth, type PlantedTruth } from './planted-truth.js';
import type { ArmFigure, CapRow, DifferenceFigure, LevelRow, PooledFigure, PooledRow, Report } from './report-schema.js';

/**
 * The survival section: harness/stats' estimates (cells or pairs as clusters, never leaves),
 * each with its planted truth beside it when the sweep is simulated.
 *
 * - by cap and achieved level: the primary curve's strata;
 * - pooled over caps per level: the primary curve itself;
 * - the cap curve: every level of a cell pooled (its tally summed over levels), per cap.
 */

const arm = (e: ArmEstimate | null, truth: number | null): ArmFigure | null => e && { estimate: e.estimate, pairs: e.pairs, claimed: e.claimed, surviving: e.surviving, interval: e.interval, truth };
const difference = (e: DifferenceEstimate | null, truth: number | null): DifferenceFigure | null => e && { estimate: e.estimate, pairs: e.pairs, unpairedCells: e.unpairedCells, interval: e.interval, truth };
const pooled = (e: PooledEstimate | null, truthAt: (cap: number) => number | null): PooledFigure | null => e && { ...e, truth: pooledTruth(e.strata, truthAt) };

/** A cell's tally with every level summed into one: the cap curve's unit. */
function allLevels(cell: CellTally): CellTally {
  const claimed = cell.levels.reduce((n, t) => n + t.claimed, 0);
  const surviving = cell.levels.reduce((n, t) => n + t.surviving, 0);
  return { ...cell, levels: [{ level: 0, claimed, surviving }] };
}

/**
 * `pairDifferenceSd` is the manifest's declared SD of pair differences (pass
 * `pairDifferenceSdOf(manifest).sd`): where a cap's pairs show no spread, the intervals assume
 * the spread it implies and say "assumed spread". Default `DEFAULT_PAIR_DIFFERENCE_SD`, which
 * is what `pairDifferenceSdOf` gives for a manifest that names none.
 */
export function survivalSection(tallies: readonly CellTally[], pairing: Pairing, confidence: number, truth: PlantedTruth | null, pairDifferenceSd: number = DEFAULT_PAIR_DIFFERENCE_SD): Report['survival'] {
  const options = { confidence, pairDifferenceSd };
  const stats = survivalStats({ pairing, cells: [...tallies] }, options);
  const byCap: LevelRow[] = stats.caps.flatMap((cap) =>
    cap.levels.map((row) => ({
      cap: cap.cap,
      level: row.level,
      gated: arm(row.gated, truth?.survival(cap.cap, row.level, 'gated') ?? null),
      ungated: arm(row.ungated, truth?.survival(cap.cap, row.level, 'ungated') ?? null),
      difference: difference(row.difference, truth?.difference(cap.cap, row.level) ?? null),
    })),
  );
  const pooledRows: PooledRow[] = stats.pooled.map((row) => {
    const at = (which: Arm | 'difference') => (cap: number) => (which === 'difference' ? truth?.difference(cap, row.level) : truth?.survival(cap, row.level, which)) ?? null;
    return { level: row.level, gated: pooled(row.gated, at('gated')), ungated: pooled(row.ungated, at('ungated')), difference: pooled(row.difference, at('difference')) };
  });
  const curve = survivalStats({ pairing, cells: tallies.map(allLevels) }, options);
  const capCurve: CapRow[] = curve.caps.map((cap) => {
    const row = cap.levels[0];
    const armOf = (which: Arm) => arm(row?.[which] ?? null, truth?.capCurve(cap.cap, which) ?? null);
    const [gated, ungated] = ARMS.map(armOf) as [ArmFigure | null, ArmFigure | null];
    return { cap: cap.cap, gated, ungated, difference: difference(row?.difference ?? null, truth?.capDifference(cap.cap) ?? null) };
  });
  return { estimator: 'cluster-ratio', confidence: stats.confidence, byCap, pooled: pooledRows, capCurve };
}
