import { comparisonDepth, comparisonName, type Hypothesis } from '../manifest/hypothesis.js';
import { pairDifferenceSdOf, repetitionsAt, type Manifest } from '../manifest/manifest.js';
import { comparisonDifference } from '../stats/comparison.js';
import { efficacyBoundaries, futilityBoundaries, tBoundary } from '../stats/group-sequential.js';
import type { CellTally, Pairing } from '../stats/survival-stats.js';
import type { SweepEvent } from '../journal/sweep-events.js';
import type { Look, LookRuling } from '../journal/look-taken.js';
import { LookRefusedError } from './look-refused-error.js';
import { rule } from './ruling.js';

/**
 * A look at the pre-registered hypothesis (`harness report --look`), as a pure function of the
 * journal's events (its earlier looks), the manifest and the complete pairs' tallies.
 *
 * Information fraction: complete pairs at caps deep enough for the primary comparison over the
 * design's pairs there (a pooled comparison, levels >= K, counts each pair it pools once), at
 * most 1. The earlier looks' fractions come from the journal, so the boundaries of look k are
 * those of the fractions actually spent (Lan–DeMets spending, two-sided, harness/stats).
 *
 * Under a sequential design each look reads the primary's interval at confidence 1 − p_k, p_k
 * the look's nominal p: the repeated-confidence interval. Its t quantile on the interval's
 * degrees of freedom IS the t-scale boundary (the small-sample correction of the normal one),
 * so "the efficacy boundary crossed" and "the adjusted interval lies above 0" are one event:
 *
 * - STOP: SUPPORTED: the adjusted interval lies above 0 and reaches δ;
 * - STOP: NOT SUPPORTED: it lies wholly below δ (repeated-confidence intervals hold at every
 *   look at once, so this is valid at any look), or the declared futility boundary is crossed
 *   (non-binding: the efficacy boundaries never assume it is obeyed);
 * - CONTINUE; at the final look (K, or the fraction reached 1), which spends what alpha is
 *   left, STOP: INCONCLUSIVE instead.
 *
 * Without `sequential:` a look is the fixed ruling at alpha, journalled; ruling again on more
 * cells than an earlier look saw carries REPEATED LOOKS, NOT ADJUSTED.
 */

export type LookData = Omit<Look, 'seq' | 'at'>;

export const REPEATED_LOOKS = 'REPEATED LOOKS, NOT ADJUSTED';

/** Every look the journal records, in order. */
export function looksOf(events: readonly SweepEvent[]): Look[] {
  return events.flatMap((e) => {
    if (e.type !== 'look_taken') return [];
    const { type: _type, version: _version, ...look } = e;
    return [look];
  });
}

/** The primary comparison's pairs: complete pairs at caps deep enough (measured) over the design's (planned). */
export function primaryPairs(manifest: Manifest, hypothesis: Hypothesis, cells: readonly CellTally[]): { measured: number; planned: number } {
  const depth = comparisonDepth(hypothesis.primary);
  const planned = manifest.depth_caps.filter((cap) => cap >= depth).reduce((n, cap) => n + repetitionsAt(manifest, cap), 0);
  const arms = new Map<string, Set<string>>();
  for (const c of cells) if (c.cap >= depth) arms.set(`${c.cap}/${c.repetition}`, (arms.get(`${c.cap}/${c.repetition}`) ?? new Set()).add(c.arm));
  const measured = [...arms.values()].filter((a) => a.size === manifest.arms.length).length;
  return { measured, planned };
}

/** The caveat a ruling on `cells` complete cells carries after `looks`; null when it is not a repeated look. */
export function repeatedLooksCaveat(looks: readonly Look[], cells: number, sequential: boolean): string | null {
  const first = looks[0];
  if (sequential || !first || cells <= first.cells) return null;
  return `${REPEATED_LOOKS}: look 1 ruled on ${first.cells} cells and this ruling reads ${cells}; the hypothesis declares no sequential: block, so nothing spends alpha across the looks and a true null is found SUPPORTED more often than alpha (two looks about 8.3% at alpha 0.05, five about 14%). Declare sequential: { looks, spending } before recording to stage validly.`;
}

export interface LookInput {
  events: readonly SweepEvent[];
  manifest: Manifest;
  /** Complete pairs' cells. */
  cells: readonly CellTally[];
  pairing: Pairing;
  /** Why the hypothesis is not pre-registered, or null when it is. */
  notRegistered: string | null;
}

function refuse(message: string): never {
  throw new LookRefusedError(`report --look: ${message}; nothing was written`);
}

/** The sequential ruling's word, from the adjusted interval and the futility boundary. */
function sequentialWord(interval: Look['interval'], delta: number, t: number | null, futilityT: number | null, final: boolean): LookRuling {
  const open: LookRuling = final ? 'STOP: INCONCLUSIVE' : 'CONTINUE';
  if (interval === null || interval.kind === 'none') return open;
  if (interval.low > 0 && interval.high >= delta) return 'STOP: SUPPORTED';
  if (interval.high < delta) return 'STOP: NOT SUPPORTED';
  if (futilityT !== null && t !== null && t < futilityT) return 'STOP: NOT SUPPORTED';
  return open;
}

/** The next look, or a LookRefusedError saying why none may be taken. Pure. */
export function takeLook(input: LookInput): LookData {
  const { manifest, events } = input;
  const h = manifest.hypothesis;
  if (!h) refuse('the manifest declares no hypothesis, so there is no ruling to look at; declare hypothesis: before recording');
  if (input.notRegistered !== null) refuse(`NOT PRE-REGISTERED: ${input.notRegistered}`);
  const earlier = looksOf(events);
  const k = earlier.length + 1;
  const design = h.sequential;
  const last = earlier.at(-1);
  if (design && k > design.looks) refuse(`look ${k} would be past the ${design.looks} the hypothesis declares (sequential.looks: ${design.looks}); every look has been taken and look ${design.looks}'s ruling (${last?.ruling}) stands`);
  if (design && last && last.ruling.startsWith('STOP')) refuse(`look ${last.look} ruled ${last.ruling}, so the sequential design has stopped; a further look would spend alpha after the ruling`);
  const pairs = primaryPairs(manifest, h, input.cells);
  const comparison = comparisonName(h.primary);
  if (pairs.measured === 0) refuse(`no complete pair reaches the primary comparison (${comparison}) yet; record a cap that deep first`);
  const fraction = Math.min(1, pairs.measured / pairs.planned);
  if (design && last && fraction <= last.fraction) refuse(`no pair of the primary comparison was added since look ${last.look} (${pairs.measured} of ${pairs.planned} pairs then and now); record more before looking again`);
  const cells = input.cells.length;
  const throughSeq = events.at(-1)!.seq;
  const sd = pairDifferenceSdOf(manifest).sd;
  const delta = h.smallest_difference;
  const read = (confidence: number) => comparisonDifference(input.cells, input.pairing, h.primary, confidence, sd);
  const statisticOf = (found: ReturnType<typeof read>): LookData['statistic'] => {
    if (!found || found.interval.kind !== 't') return null;
    const se = found.interval.standardError;
    return { estimate: found.estimate, standardError: se, t: se > 0 ? found.estimate / se : null, df: found.interval.df };
  };
  const withClaims = (found: ReturnType<typeof read>) => found?.strata.reduce((n, s) => n + s.pairs, 0) ?? 0;
  const base = { look: k, comparison, fraction, cells, throughSeq };
  if (!design) {
    const found = read(1 - h.alpha);
    return { ...base, design: null, pairs: { ...pairs, withClaims: withClaims(found) }, boundary: null, futility: null, statistic: statisticOf(found), interval: found?.interval ?? null, ruling: rule(found?.interval ?? null, delta), caveat: repeatedLooksCaveat(earlier, cells, false) };
  }
  const final = k === design.looks || fraction >= 1;
  const fractions = [...earlier.map((l) => l.fraction), fraction];
  const bounds = efficacyBoundaries({ spending: design.spending, alpha: h.alpha, fractions, finalLook: final });
  const z = bounds.z[k - 1]!;
  const nominalP = bounds.nominalP[k - 1]!;
  const found = read(1 - nominalP);
  const statistic = statisticOf(found);
  const df = statistic?.df ?? Math.max(1, pairs.measured - 1);
  const futilityZ = design.futility && !final ? futilityBoundaries({ spending: design.spending, beta: 1 - h.power, alpha: h.alpha, fractions, drift: (delta * Math.sqrt(pairs.planned)) / sd }).z[k - 1]! : null;
  // The t scale keeps the sign: a futility boundary below 0 stays below 0.
  const futility = futilityZ === null ? null : { z: futilityZ, t: Math.sign(futilityZ) * tBoundary(Math.abs(futilityZ), df) };
  return {
    ...base,
    design: { looks: design.looks, spending: design.spending, futility: design.futility === true },
    pairs: { ...pairs, withClaims: withClaims(found) },
    boundary: { z, t: tBoundary(z, df), nominalP, cumulativeAlpha: bounds.cumulativeAlpha[k - 1]!, final },
    futility,
    statistic,
    interval: found?.interval ?? null,
    ruling: sequentialWord(found?.interval ?? null, delta, statistic?.t ?? null, futility?.t ?? null, final),
    caveat: null,
  };
}
