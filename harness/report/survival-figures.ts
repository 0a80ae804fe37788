import { ARMS, DEFAULT_PAIR_DIFFERENCE_SD, type Arm } from '../manifest/manifest.js';
import { survivalStats, type ArmEstimate, type CellTally, type DifferenceEstimate, type PooledEstimate } from '../stats/survival-stats.js';
import type { Pairing } from '../stats/survival-stats.js';
import { pooledTruth, type PlantedTruth } from './planted-truth.js';
import { IDENTICAL_BY_DESIGN } from './report-format.js';
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
  // Under shared pairing a root that executes is one tree both arms grade: its difference is 0 by construction.
  const byDesign = (level: number) => pairing === 'shared' && level === 0;
  const byCap: LevelRow[] = stats.caps.flatMap((cap) =>
    cap.levels.map((row) => {
      const d = difference(row.difference, truth?.difference(cap.cap, row.level) ?? null);
      return {
        cap: cap.cap,
        level: row.level,
        gated: arm(row.gated, truth?.survival(cap.cap, row.level, 'gated') ?? null),
        ungated: arm(row.ungated, truth?.survival(cap.cap, row.level, 'ungated') ?? null),
        difference: d && byDesign(row.level) ? { ...d, interval: { kind: 'none' as const, reason: IDENTICAL_BY_DESIGN } } : d,
      };
    }),
  );
  const pooledRows: PooledRow[] = stats.pooled.map((row) => {
    const at = (which: Arm | 'difference') => (cap: number) => (which === 'difference' ? truth?.difference(cap, row.level) : truth?.survival(cap, row.level, which)) ?? null;
    const d = pooled(row.difference, at('difference'));
    return { level: row.level, gated: pooled(row.gated, at('gated')), ungated: pooled(row.ungated, at('ungated')), difference: d && byDesign(row.level) ? { ...d, interval: { kind: 'none' as const, reason: IDENTICAL_BY_DESIGN } } : d };
  });
  const curve = survivalStats({ pairing, cells: tallies.map(allLevels) }, options);
  // The cap curve's difference leaves level 0 out under shared pairing: its zeros by design would only dilute it.
  const merged = pairing === 'shared' ? survivalStats({ pairing, cells: tallies.map((t) => allLevels({ ...t, levels: t.levels.filter((l) => l.level > 0) })) }, options) : curve;
  const capCurve: CapRow[] = curve.caps.map((cap) => {
    const row = cap.levels[0];
    const armOf = (which: Arm) => arm(row?.[which] ?? null, truth?.capCurve(cap.cap, which) ?? null);
    const [gated, ungated] = ARMS.map(armOf) as [ArmFigure | null, ArmFigure | null];
    const diff = merged.caps.find((c) => c.cap === cap.cap)?.levels[0]?.difference ?? null;
    return { cap: cap.cap, gated, ungated, difference: difference(diff, truth?.capDifference(cap.cap, pairing === 'shared' ? 1 : 0) ?? null) };
  });
  return { estimator: 'cluster-ratio', confidence: stats.confidence, byCap, pooled: pooledRows, capCurve };
}
