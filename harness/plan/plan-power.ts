import { pairDifferenceSdOf, type Manifest } from '../manifest/manifest.js';
import { minimumDetectableDifference, pairDifferenceSd, type MinimumDetectable } from '../stats/power.js';
import { survivalStats } from '../stats/survival-stats.js';
import { survivalTally, type CellMeasurement } from '../journal/cell-measurement.js';

/**
 * Power before paying: the smallest gated − ungated difference in survival that the declared
 * repetitions can detect at each cap (paired t test, two-sided α = 0.05, 80% power, exact
 * noncentral t from harness/stats). The SD of the pair differences is the manifest's
 * `analysis.pair_difference_sd` (or its documented default), or the spread a recorded run
 * measured (`plan --from`). The difference is the cap curve's: every level of a cell pooled.
 */

export const POWER = { alpha: 0.05, power: 0.8 } as const;

export type SdSource =
  | { kind: 'manifest'; named: boolean }
  | { kind: 'run'; run: string; caps: Array<{ cap: number; pairs: number; sd: number }> };

export interface CapPower {
  cap: number;
  pairs: number;
  mde: MinimumDetectable;
  /** What the plan prints: a difference, "undetectable" above 1, or why there is no test. */
  text: string;
}

export interface PlanPower {
  sd: number;
  source: SdSource;
  /** When --from was given but its pairs could not size the SD, why the manifest's was used. */
  fallback?: string;
  alpha: number;
  power: number;
  caps: CapPower[];
}

/**
 * The SD of pair differences a recorded run shows: per cap with 2+ complete pairs, the SD of
 * the pairs' linearized differences (standard error × √pairs), pooled over caps by degrees of
 * freedom. Caps whose pairs show no spread at all are left out. Null when no cap is left.
 */
export function recordedPairSd(cells: readonly CellMeasurement[]): { sd: number; caps: Array<{ cap: number; pairs: number; sd: number }> } | null {
  const tallies = cells.map((cell) => {
    const t = survivalTally(cell);
    return { ...t, levels: [{ level: 0, claimed: t.levels.reduce((n, l) => n + l.claimed, 0), surviving: t.levels.reduce((n, l) => n + l.surviving, 0) }] };
  });
  if (tallies.length === 0) return null;
  const stats = survivalStats({ pairing: cells[0]!.pairing, cells: tallies });
  const caps = stats.caps.flatMap((cap) => {
    const difference = cap.levels[0]?.difference;
    const sd = difference ? pairDifferenceSd(difference) : null;
    // A cap whose pairs never differ (cap 1 has no merge to differ at) says nothing about the spread where they can.
    return difference && sd !== null && sd > 0 ? [{ cap: cap.cap, pairs: difference.pairs, sd }] : [];
  });
  const df = caps.reduce((n, c) => n + c.pairs - 1, 0);
  if (df === 0) return null;
  const sd = Math.sqrt(caps.reduce((s, c) => s + (c.pairs - 1) * c.sd ** 2, 0) / df);
  return { sd, caps };
}

function capText(mde: MinimumDetectable): string {
  if (mde.kind === 'none') return `no test (${mde.reason})`;
  // A survival difference lives in [-1, 1]; a larger one is not a figure, it is a verdict.
  if (mde.difference > 1) return 'undetectable: no survival difference is large enough';
  return `minimum detectable difference ${mde.difference.toFixed(2)} (the normal approximation would say ${mde.normalApproximation.toFixed(2)})`;
}

export interface PowerOptions {
  caps: readonly number[];
  repetitions: (cap: number) => number;
  /** A recorded run to learn the SD from: its shown path and its measured cells. */
  from?: { run: string; cells: readonly CellMeasurement[] };
}

export function planPower(manifest: Manifest, options: PowerOptions): PlanPower {
  const declared = pairDifferenceSdOf(manifest);
  const recorded = options.from ? recordedPairSd(options.from.cells) : null;
  const sd = recorded?.sd ?? declared.sd;
  const source: SdSource = recorded ? { kind: 'run', run: options.from!.run, caps: recorded.caps } : { kind: 'manifest', named: declared.named };
  const fallback = options.from && !recorded ? `${options.from.run} has no cap with 2 complete pairs that differ, so its spread cannot be measured` : undefined;
  const caps = options.caps.map((cap) => {
    const pairs = options.repetitions(cap);
    const mde: MinimumDetectable = manifest.arms.length < 2 ? { kind: 'none', pairs, reason: 'one arm only, so there is no pair to difference' } : minimumDetectableDifference({ pairs, sd, ...POWER });
    return { cap, pairs, mde, text: capText(mde) };
  });
  return { sd, source, ...(fallback ? { fallback } : {}), ...POWER, caps };
}
