import { comparisonDepth, comparisonName, type Comparison, type Hypothesis } from '../manifest/hypothesis.js';
import { repetitionsAt, type Manifest } from '../manifest/manifest.js';
import { minimumDetectableDifference, pairedTestPower } from '../stats/power.js';

/**
 * Whether the design can detect the hypothesis's smallest difference δ at the power it asks for:
 * the exact noncentral-t power of a paired two-sided test (harness/stats/power.ts) on the pairs
 * a comparison can pool, with the plan's SD of pair differences. Power judges the plan, never
 * the ruling.
 *
 * The pairs a comparison at level L (or over levels >= K) can pool are every pair at a declared
 * cap >= L (or >= K): a shallower cap holds no leaf there. That is an upper bound on the pairs
 * (a tree that stops shallow adds none), and the test's n − 1 degrees of freedom are at least
 * the pooled interval's Satterthwaite ones, so the power printed is the most the design can
 * have: a design this says cannot detect δ cannot.
 *
 * Secondaries are sized at α/m, the strictest level Holm's step-down reads one at.
 */

/** Most pairs a search for "pairs needed" tries before it says more than that. */
const MOST_PAIRS = 10_000;

export interface ComparisonPower {
  comparison: string;
  role: 'primary' | 'secondary';
  /** The level the comparison is sized at: alpha (primary), alpha / m (secondary). */
  alpha: number;
  /** Pairs at declared caps deep enough to hold the comparison's levels. */
  pairs: number;
  /** Power to detect δ; null with fewer than 2 pairs (no test). */
  power: number | null;
  /** The smallest difference these pairs detect at the power wanted; null with fewer than 2 pairs, or above 1. */
  minimumDetectable: number | null;
  /** Pairs that would reach the power wanted (same SD, same level); null past MOST_PAIRS. */
  pairsNeeded: number | null;
  detectable: boolean;
  text: string;
}

export interface PlanHypothesis {
  smallestDifference: number;
  alpha: number;
  power: number;
  sd: number;
  comparisons: ComparisonPower[];
  /** Whether the primary comparison can detect δ at the power wanted: the plan's verdict. */
  detectable: boolean;
}

const pct = (p: number) => (p > 0.999 && p < 1 ? 'over 99.9%' : `${Number((100 * p).toFixed(1))}%`);

export function pairsNeeded(sd: number, difference: number, alpha: number, power: number): number | null {
  const enough = (n: number) => pairedTestPower({ pairs: n, sd, difference, alpha }) >= power;
  if (!enough(MOST_PAIRS)) return null;
  let lo = 1;
  let hi = 2;
  while (!enough(hi)) [lo, hi] = [hi, hi * 2];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (enough(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

function sized(manifest: Manifest, c: Comparison, role: ComparisonPower['role'], alpha: number, h: Hypothesis, sd: number): ComparisonPower {
  const depth = comparisonDepth(c);
  const caps = manifest.depth_caps.filter((cap) => cap >= depth);
  const pairs = caps.reduce((n, cap) => n + repetitionsAt(manifest, cap), 0);
  const delta = h.smallest_difference;
  const needed = pairsNeeded(sd, delta, alpha, h.power);
  const needText = needed === null ? `more than ${MOST_PAIRS.toLocaleString('en-US')} pairs would be needed` : `about ${needed} pairs would be needed`;
  const where = `${pairs} ${pairs === 1 ? 'pair' : 'pairs'} at ${caps.length === 1 ? 'cap' : 'caps'} ${caps.length ? caps.join(', ') : '(none)'}`;
  const base = { comparison: comparisonName(c), role, alpha, pairs, pairsNeeded: needed };
  if (pairs < 2) {
    return { ...base, power: null, minimumDetectable: null, detectable: false, text: `CANNOT detect δ = ${delta}: ${where}, and a paired test needs at least 2; ${needText}` };
  }
  const power = pairedTestPower({ pairs, sd, difference: delta, alpha });
  const mde = minimumDetectableDifference({ pairs, sd, alpha, power: h.power });
  const minimumDetectable = mde.kind === 'noncentral-t' && mde.difference <= 1 ? mde.difference : null;
  const detectable = power >= h.power;
  const mdeText = minimumDetectable === null ? 'no difference up to 1 reaches it' : `the smallest it detects is ${minimumDetectable.toFixed(3)}`;
  const text = detectable
    ? `can detect δ = ${delta}: ${where} give ${pct(power)} power at alpha ${Number(alpha.toPrecision(4))} (${pct(h.power)} wanted; ${mdeText})`
    : `CANNOT detect δ = ${delta} at ${pct(h.power)} power: ${where} give ${pct(power)} at alpha ${Number(alpha.toPrecision(4))} (${mdeText}); ${needText}`;
  return { ...base, power, minimumDetectable, detectable, text };
}

/** The plan's judgement of the hypothesis, with the plan's SD of pair differences. */
export function planHypothesis(manifest: Manifest, sd: number): PlanHypothesis | undefined {
  const h = manifest.hypothesis;
  if (!h) return undefined;
  const m = h.secondary.length;
  const comparisons = [sized(manifest, h.primary, 'primary', h.alpha, h, sd), ...h.secondary.map((c) => sized(manifest, c, 'secondary', h.alpha / m, h, sd))];
  return { smallestDifference: h.smallest_difference, alpha: h.alpha, power: h.power, sd, comparisons, detectable: comparisons[0]!.detectable };
}

/** The plan's lines for the hypothesis. */
export function hypothesisLines(plan: PlanHypothesis): string[] {
  const lines = [
    `Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = ${plan.smallestDifference}, alpha ${plan.alpha}, power wanted ${pct(plan.power)}`,
    `(paired two-sided t, exact noncentral t, SD of pair differences ${plan.sd.toFixed(3)}; pairs counted at every cap deep enough, an upper bound):`,
  ];
  for (const c of plan.comparisons) lines.push(`  ${c.comparison} (${c.role}${c.role === 'secondary' ? ', at alpha / m, Holm\'s strictest' : ''}): ${c.text}.`);
  lines.push(
    plan.detectable
      ? '  The design can detect δ on the primary comparison at the power wanted.'
      : '  The design CANNOT detect δ on the primary comparison at the power wanted: add repetitions at the deep caps, or expect INCONCLUSIVE.',
  );
  return lines;
}
