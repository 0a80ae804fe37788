import { comparisonDepth, comparisonName, type Hypothesis } from '../manifest/hypothesis.js';
import { repetitionsAt, type Manifest } from '../manifest/manifest.js';
import { minimumDetectableDifference, pairedTestPower } from '../stats/power.js';
import { inflationFactor, sequentialOperatingCharacteristics } from '../stats/group-sequential.js';
import { sequentialPower, tCorrectedDrift } from '../stats/sequential-design.js';
import type { ModelPairName } from '../providers/role-pairs.js';
import { projectPlan, type PlanInput, type PlanProjection } from './plan-arithmetic.js';
import { pairsNeeded } from './plan-hypothesis.js';

/**
 * The plan designs the sweep: the cheapest repetitions per cap (and, where the manifest bounds
 * the width with `max_children`, the width) whose primary comparison reaches the power the
 * hypothesis asks for, within max_sessions and max_cost_usd. Pure.
 *
 * What it assumes, said beside the result:
 * - The primary's information is its pairs (a pair at any cap deep enough counts once, however
 *   many levels it pools), each spreading by the plan's SD of pair differences, whatever its
 *   cap or width. So the extra pairs go to the cheapest cap deep enough, and the narrowest
 *   width is cheapest; every other cap keeps a minimum for the curve (2 pairs, or fewer when
 *   the manifest asks for fewer).
 * - The bill is the plan's own: every tree at its whole cap at the width (a bound under
 *   max_children, a scenario at projected_branching).
 * - A sequential design plans its maximum pairs: the fixed design's times the inflation factor
 *   of its spending function and looks; its expected pairs assume looks at equal fractions
 *   and that stages add the primary's pairs at the cheapest cap after the first.
 */

/** Pairs every cap keeps for the curve, unless the manifest asks for fewer. */
export const CURVE_MINIMUM = 2;
/** Most primary pairs the search considers. */
const MOST_PAIRS = 10_000;

export interface DesignBill {
  /** Tree width the bill is computed at. */
  width: number;
  repetitions: Record<number, number>;
  primaryPairs: number;
  sessions: number;
  tokenBound: number;
  costBoundUsd: number;
  pricedUsd?: number;
  /** Wall time forecast in seconds; absent when it cannot be forecast. */
  wallSeconds?: number;
  /** Power to detect δ on the primary (the sequential design's, under one); absent with fewer than 2 pairs. */
  power?: number;
  /** Within max_sessions and max_cost_usd. */
  fits: boolean;
}

export interface SequentialPlan {
  looks: number;
  spending: NonNullable<Hypothesis['sequential']>['spending'];
  futility: boolean;
  inflation: number;
  /** Expected primary pairs and sessions when the planted difference is 0 and when it is δ; the fixed design's beside. */
  expected: Array<{ difference: number; pairs: number; sessions: number; pricedUsd?: number; power: number }>;
  fixed: { pairs: number; sessions: number; pricedUsd?: number };
}

export interface DesignSearch {
  comparison: string;
  /** Caps the primary comparison reaches, and the one the extra pairs go to. */
  reaching: number[];
  sd: number;
  /** Pairs a fixed design needs for the power (exact noncentral t); absent past MOST_PAIRS. */
  fixedPairsNeeded?: number;
  /** Pairs the design plans (the fixed need, inflated under a sequential design). */
  pairsPlanned?: number;
  widths: number[];
  widthBound: boolean;
  manifest: DesignBill;
  /** The cheapest design that reaches the power within the ceilings; absent when none does. */
  cheapest?: DesignBill;
  /** When none does: the largest design within the ceilings and the smallest difference it detects (absent above 1). */
  reachable?: { design: DesignBill; smallestDifference?: number };
  sequential?: SequentialPlan;
  assumptions: string[];
  /** The manifest lines to paste for the cheapest (or largest reachable) design. */
  yaml: string[];
}

export interface DesignSearchInput {
  manifest: Manifest;
  input: PlanInput;
  sd: number;
  maxCostUsd?: number;
  /** The wall time of a bill (its sessions by pair), or undefined when it cannot be forecast. */
  wallSeconds: (sessionsByPair: Record<ModelPairName, number>) => number | undefined;
}

function billOf(search: DesignSearchInput, width: number, repetitions: Record<number, number>, reaching: readonly number[], power: (pairs: number) => number | undefined): DesignBill {
  const projection: PlanProjection = projectPlan({ ...search.input, caps: search.manifest.depth_caps, repetitions, branching: width });
  const { total } = projection;
  const primaryPairs = reaching.reduce((n, cap) => n + repetitions[cap]!, 0);
  const cost = total.pricedUsd ?? total.costBoundUsd;
  const fits = total.sessions <= search.manifest.max_sessions && (search.maxCostUsd === undefined || cost <= search.maxCostUsd);
  const wall = search.wallSeconds(total.sessionsByPair);
  const p = power(primaryPairs);
  return {
    width,
    repetitions,
    primaryPairs,
    sessions: total.sessions,
    tokenBound: total.tokenBound,
    costBoundUsd: total.costBoundUsd,
    ...(total.pricedUsd !== undefined ? { pricedUsd: total.pricedUsd } : {}),
    ...(wall !== undefined ? { wallSeconds: wall } : {}),
    ...(p !== undefined ? { power: p } : {}),
    fits,
  };
}

const costOf = (b: DesignBill) => b.pricedUsd ?? b.sessions;

/** The sequential design's power at `pairs` planned pairs, or the fixed t test's without one. */
function powerFn(h: Hypothesis, sd: number): (pairs: number) => number | undefined {
  const seq = h.sequential;
  return (pairs) => {
    if (pairs < 2) return undefined;
    if (!seq || seq.looks === 1) return pairedTestPower({ pairs, sd, difference: h.smallest_difference, alpha: h.alpha });
    return sequentialPower({ spending: seq.spending, alpha: h.alpha, power: h.power, looks: seq.looks, futility: seq.futility === true, pairs, sd, difference: h.smallest_difference });
  };
}

/** The repetitions with `primary` pairs: the curve minimum everywhere, the rest at `at`. */
function allocation(manifest: Manifest, reaching: readonly number[], at: number, primary: number, minimum = CURVE_MINIMUM): Record<number, number> {
  const reps = Object.fromEntries(manifest.depth_caps.map((cap) => [cap, Math.min(minimum, repetitionsAt(manifest, cap))])) as Record<number, number>;
  const floor = reaching.reduce((n, cap) => n + reps[cap]!, 0);
  reps[at] = reps[at]! + Math.max(0, primary - floor);
  return reps;
}

export function searchDesign(search: DesignSearchInput): DesignSearch | undefined {
  const { manifest, sd } = search;
  const h = manifest.hypothesis;
  if (!h || manifest.arms.length < 2) return undefined;
  const depth = comparisonDepth(h.primary);
  const reaching = manifest.depth_caps.filter((cap) => cap >= depth);
  if (reaching.length === 0) return undefined;
  const bound = manifest.max_children;
  const widths = bound === undefined ? [manifest.projected_branching] : Array.from({ length: bound - 1 }, (_, i) => i + 2);
  const power = powerFn(h, sd);
  const own = Object.fromEntries(manifest.depth_caps.map((cap) => [cap, repetitionsAt(manifest, cap)]));
  const ownDesign = billOf(search, bound ?? manifest.projected_branching, own, reaching, power);
  const fixed = pairsNeeded(sd, h.smallest_difference, h.alpha, h.power) ?? undefined;
  const seq = h.sequential && h.sequential.looks > 1 ? h.sequential : undefined;
  const inflation = seq ? inflationFactor({ spending: seq.spending, alpha: h.alpha, power: h.power, looks: seq.looks, futility: seq.futility === true }) : 1;
  const planned = fixed === undefined ? undefined : Math.max(2, Math.ceil(fixed * inflation - 1e-9));
  const floor = reaching.reduce((n, cap) => n + Math.min(CURVE_MINIMUM, repetitionsAt(manifest, cap)), 0);
  const sized = widths.map((width) => {
    // The cheapest cap deep enough, per pair, at this width.
    const perPair = (cap: number) => costOf(billOf(search, width, allocation(manifest, reaching, cap, floor + 1), reaching, () => undefined));
    const at = [...reaching].sort((a, b) => perPair(a) - perPair(b) || a - b)[0]!;
    return { width, at, bill: (pairs: number, minimum = CURVE_MINIMUM) => billOf(search, width, allocation(manifest, reaching, at, pairs, minimum), reaching, power) };
  });
  let cheapest: DesignBill | undefined;
  for (const { bill } of planned === undefined ? [] : sized) {
    const candidate = bill(Math.max(planned!, floor));
    if (candidate.fits && (!cheapest || costOf(candidate) < costOf(cheapest))) cheapest = candidate;
  }
  // None reaches the power within the ceilings: the most primary pairs that fit, over the widths.
  let reachable: DesignBill | undefined;
  for (const { bill: billAt } of cheapest ? [] : sized) {
    // The curve's minimum of 2 pairs a cap, or 1 when even that does not fit.
    const minimum = billAt(floor).fits ? CURVE_MINIMUM : 1;
    const least = reaching.reduce((n, cap) => n + Math.min(minimum, repetitionsAt(manifest, cap)), 0);
    const bill = (pairs: number) => billAt(pairs, minimum);
    if (!bill(least).fits) continue;
    const step = bill(least + 1).sessions - bill(least).sessions;
    let lo = least;
    let hi = Math.min(MOST_PAIRS, least + Math.ceil(manifest.max_sessions / Math.max(1, step)) + 2);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (bill(mid).fits) lo = mid;
      else hi = mid;
    }
    const most = bill(lo);
    if (!reachable || most.primaryPairs > reachable.primaryPairs || (most.primaryPairs === reachable.primaryPairs && costOf(most) < costOf(reachable))) reachable = most;
  }
  const result: DesignSearch = {
    comparison: comparisonName(h.primary),
    reaching,
    sd,
    ...(fixed !== undefined ? { fixedPairsNeeded: fixed } : {}),
    ...(planned !== undefined ? { pairsPlanned: planned } : {}),
    widths,
    widthBound: bound !== undefined,
    manifest: ownDesign,
    ...(cheapest ? { cheapest } : {}),
    assumptions: assumptionsOf(bound !== undefined, seq !== undefined),
    yaml: [],
  };
  if (!cheapest && reachable) {
    // The smallest difference the largest affordable design detects, at the fixed design's level (deflated for the looks).
    const pairs = Math.round(reachable.primaryPairs / inflation);
    const mde = pairs >= 2 ? minimumDetectableDifference({ pairs, sd, alpha: h.alpha, power: h.power }) : undefined;
    result.reachable = { design: reachable, ...(mde?.kind === 'noncentral-t' && mde.difference <= 1 ? { smallestDifference: mde.difference } : {}) };
  }
  const chosen = cheapest ?? reachable;
  if (chosen) result.yaml = yamlLines(manifest, chosen, bound !== undefined);
  if (seq && cheapest && fixed !== undefined) result.sequential = sequentialPlan(search, h, seq, inflation, cheapest, reaching, fixed);
  return result;
}

function sequentialPlan(search: DesignSearchInput, h: Hypothesis, seq: NonNullable<Hypothesis['sequential']>, inflation: number, design: DesignBill, reaching: readonly number[], fixedPairs: number): SequentialPlan {
  const fractions = Array.from({ length: seq.looks }, (_, i) => (i + 1) / seq.looks);
  const at = reaching.find((cap) => design.repetitions[cap]! > Math.min(CURVE_MINIMUM, repetitionsAt(search.manifest, cap))) ?? reaching[0]!;
  // Sessions and price of one more pair at the cap the extra pairs go to.
  const one = billOf(search, design.width, { ...design.repetitions, [at]: design.repetitions[at]! + 1 }, reaching, () => undefined);
  const perPairSessions = one.sessions - design.sessions;
  const perPairUsd = one.pricedUsd !== undefined && design.pricedUsd !== undefined ? one.pricedUsd - design.pricedUsd : undefined;
  const at0 = (pairs: number) => ({ sessions: design.sessions - (design.primaryPairs - pairs) * perPairSessions, ...(perPairUsd !== undefined ? { pricedUsd: design.pricedUsd! - (design.primaryPairs - pairs) * perPairUsd } : {}) });
  const expected = [0, h.smallest_difference].map((difference) => {
    // At the t-corrected drift, as the design table's power: the t statistic's looks, not the normal theory's.
    const drift = tCorrectedDrift({ pairs: design.primaryPairs, sd: search.sd, difference, alpha: h.alpha });
    const oc = sequentialOperatingCharacteristics({ spending: seq.spending, alpha: h.alpha, beta: 1 - h.power, fractions, drift, futility: seq.futility === true, designDrift: (h.smallest_difference * Math.sqrt(design.primaryPairs)) / search.sd });
    const pairs = oc.expectedFraction * design.primaryPairs;
    return { difference, pairs, ...at0(pairs), power: oc.power };
  });
  return { looks: seq.looks, spending: seq.spending, futility: seq.futility === true, inflation, expected, fixed: { pairs: fixedPairs, ...at0(fixedPairs) } };
}

function assumptionsOf(bounded: boolean, sequential: boolean): string[] {
  return [
    'each pair of the primary comparison spreads by the plan\'s SD whatever its cap or width, so the extra pairs go to the cheapest cap deep enough and every other cap keeps at most 2 for the curve',
    bounded ? 'widths from 2 up to max_children are searched; the bill is the bound at each (every tree full at that width)' : 'the width is projected_branching (a scenario, not a bound): declare max_children to let plan search narrower trees',
    ...(sequential ? ['a sequential design plans the fixed design\'s pairs times its inflation factor; its expected pairs assume looks at equal fractions'] : []),
  ];
}

function yamlLines(manifest: Manifest, design: DesignBill, bounded: boolean): string[] {
  const counts = manifest.depth_caps.map((cap) => design.repetitions[cap]!);
  const mode = [...counts].sort((a, b) => counts.filter((c) => c === b).length - counts.filter((c) => c === a).length || a - b)[0]!;
  const by = manifest.depth_caps.filter((cap) => design.repetitions[cap] !== mode);
  return [
    'repetitions:',
    `  default: ${mode}`,
    ...(by.length ? ['  by_cap:', ...by.map((cap) => `    ${cap}: ${design.repetitions[cap]}`)] : []),
    ...(bounded ? [`max_children: ${design.width}`] : []),
  ];
}
