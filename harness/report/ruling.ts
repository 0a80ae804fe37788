import { comparisonName, hypothesisPin, type Comparison, type Hypothesis } from '../manifest/hypothesis.js';
import { firstDifference } from '../journal/journal-header.js';
import type { JsonValue } from '../journal/json-value.js';
import { markdownTable, share } from './report-format.js';
import { comparisonDifference, comparisonPValue } from '../stats/comparison.js';
import { holmLevels } from '../stats/holm.js';
import type { Interval } from '../stats/interval.js';
import type { CellTally, Pairing } from '../stats/survival-stats.js';
import type { RulingComparison, RulingSection, RulingWord } from './report-schema.js';

/**
 * The pre-registered ruling: each comparison the manifest's `hypothesis:` names, ruled on from
 * its (1 − α) interval alone (the secondaries at their Holm-adjusted α):
 *
 * - NOT SUPPORTED when the upper bound is below δ (the smallest difference that matters);
 * - SUPPORTED when the lower bound is above 0 and the upper bound reaches δ;
 * - INCONCLUSIVE otherwise, and whenever there is no interval.
 *
 * The power the hypothesis asks for judged the plan; it never enters a ruling. A hypothesis the
 * journal's header does not pin as the manifest states it is NOT PRE-REGISTERED, and gets no
 * ruling: it may have been written after the data were seen.
 */

/** The one rule. Pure; `null` (no interval at all) is INCONCLUSIVE. */
export function rule(interval: Interval | null, smallestDifference: number): RulingWord {
  if (interval === null || interval.kind === 'none') return 'INCONCLUSIVE';
  if (interval.high < smallestDifference) return 'NOT SUPPORTED';
  if (interval.low > 0 && interval.high >= smallestDifference) return 'SUPPORTED';
  return 'INCONCLUSIVE';
}

/** Why the manifest's hypothesis is not the pinned one, or null when it is. */
export function registrationProblem(manifest: Hypothesis | undefined, pinned: JsonValue | undefined): string | null {
  if (manifest === undefined && pinned === undefined) return null;
  if (pinned === undefined) return "the manifest declares a hypothesis the journal's header does not pin, so it may have been written after cells were recorded";
  if (manifest === undefined) return "the journal's header pins a hypothesis the manifest no longer declares";
  const diff = firstDifference(pinned, hypothesisPin(manifest));
  return diff ? `the manifest's hypothesis differs from the one the journal's header pins (${diff.path} ${JSON.stringify(diff.from ?? null)} pinned, ${JSON.stringify(diff.to ?? null)} in the manifest)` : null;
}

type Sample = Pick<RulingInput, 'cells' | 'pairing' | 'pairDifferenceSd'>;

function ruled(sample: Sample, comparison: Comparison, role: RulingComparison['role'], alpha: number, delta: number): RulingComparison {
  const found = comparisonDifference(sample.cells, sample.pairing, comparison, 1 - alpha, sample.pairDifferenceSd);
  const base = { comparison: comparisonName(comparison), role, alpha };
  if (!found) return { ...base, estimate: null, pairs: 0, pValue: null, interval: null, ruling: 'INCONCLUSIVE' };
  const pairs = found.strata.reduce((n, s) => n + s.pairs, 0);
  return { ...base, estimate: found.estimate, pairs, pValue: found.interval.kind === 't' ? comparisonPValue(sample.cells, sample.pairing, comparison, sample.pairDifferenceSd) : null, interval: found.interval, ruling: rule(found.interval, delta) };
}

export interface RulingInput {
  cells: readonly CellTally[];
  pairing: Pairing;
  /** The manifest's declared SD of pair differences: the spread assumed where pairs show none. Default: the stats' default. */
  pairDifferenceSd?: number;
  /** The manifest's block (the run folder's manifest). */
  hypothesis: Hypothesis | undefined;
  /** What the journal's header pins; undefined when it pins none. */
  pinned: JsonValue | undefined;
}

/** The ruling section, or undefined when neither the manifest nor the journal names a hypothesis. */
export function rulingSection(input: RulingInput): RulingSection | undefined {
  const { hypothesis, pinned } = input;
  if (hypothesis === undefined && pinned === undefined) return undefined;
  const problem = registrationProblem(hypothesis, pinned);
  if (problem !== null || hypothesis === undefined) return { registration: 'not pre-registered', why: problem, hypothesis: hypothesis ?? null, comparisons: [] };
  const { alpha, smallest_difference: delta } = hypothesis;
  const primary = ruled(input, hypothesis.primary, 'primary', alpha, delta);
  // Holm ranks the secondaries by the p-values of their unadjusted (1 − α) estimates: the
  // p-value does not depend on the confidence, only the interval read at the adjusted level does.
  const first = hypothesis.secondary.map((c) => ruled(input, c, 'secondary', alpha, delta));
  const levels = holmLevels(first.map((r) => r.pValue ?? 1), alpha);
  // A secondary read at alpha itself (Holm's last step) is the first pass's figure already.
  const secondary = hypothesis.secondary.map((c, i) => (levels[i] === alpha ? first[i]! : ruled(input, c, 'secondary', levels[i]!, delta)));
  return { registration: 'pre-registered', why: null, hypothesis, comparisons: [primary, ...secondary] };
}

/** A confidence as people write it: 95%, 97.5%, 98.33%. */
const confidenceText = (alpha: number) => `${Number((100 * (1 - alpha)).toFixed(2))}%`;

function intervalText(c: RulingComparison): string {
  if (c.estimate === null || c.interval === null) return 'no complete pair has claims there';
  const n = `${c.pairs} ${c.pairs === 1 ? 'pair' : 'pairs'}`;
  if (c.interval.kind === 'none') return `${share(c.estimate, true)} (${n}, no interval: ${c.interval.reason})`;
  const label = c.interval.label ? `, ${c.interval.label}` : '';
  return `${share(c.estimate, true)} [${share(c.interval.low, true)}, ${share(c.interval.high, true)}] (${confidenceText(c.alpha)} interval, ${n}${label})`;
}

const NOT_PRE_REGISTERED = (why: string | null) => `NOT PRE-REGISTERED: ${why ?? 'the journal pins no hypothesis'}; no ruling is given.`;

/** The ruling as `harness report` prints it on the terminal: one line per comparison. */
export function rulingLines(section: RulingSection): string[] {
  if (section.registration === 'not pre-registered') return [NOT_PRE_REGISTERED(section.why)];
  const h = section.hypothesis!;
  return [
    `Pre-registered ruling (δ ${share(h.smallest_difference)}, alpha ${h.alpha}${h.secondary.length ? ', secondaries Holm-adjusted' : ''}):`,
    ...section.comparisons.map((c) => `  ${c.comparison} (${c.role}): ${c.ruling}${c.ruledAt ? ` at ${c.ruledAt}` : ''}, gated − ungated ${intervalText(c)}${c.ruledAt ? ' (the fixed interval, shown; the sequential design rules at its looks)' : ''}`),
  ];
}

/** report.md's section. */
export function rulingMarkdown(section: RulingSection | undefined): string[] {
  if (!section) return [];
  const head = ['## Pre-registered ruling', ''];
  if (section.registration === 'not pre-registered') return [...head, `**${NOT_PRE_REGISTERED(section.why)}**`, ''];
  const h = section.hypothesis!;
  const rows = section.comparisons.map((c) => [c.comparison, c.role, String(Number(c.alpha.toPrecision(4))), c.pValue === null ? '–' : c.pValue < 0.0001 ? '< 0.0001' : c.pValue.toFixed(4), intervalText(c), `**${c.ruling}**${c.ruledAt ? ` (${c.ruledAt})` : ''}`]);
  return [
    ...head,
    `The manifest's hypothesis, pinned in the journal's header before any cell was recorded: gated − ungated survival, smallest difference that matters δ = ${share(h.smallest_difference)}, alpha ${h.alpha}${h.secondary.length ? ` (the ${h.secondary.length === 1 ? 'secondary comparison' : `${h.secondary.length} secondary comparisons`} at Holm-adjusted alpha)` : ''}. Each comparison is ruled on from its (1 − alpha) interval: NOT SUPPORTED when the upper bound is below δ; SUPPORTED when the lower bound is above 0 and the upper bound reaches δ; INCONCLUSIVE otherwise. The power asked for (${Number((100 * h.power).toFixed(2))}%) judged the plan; it does not enter a ruling. Level 0 is never compared: it has no merge.${h.sequential ? ` The hypothesis declares a sequential design (up to ${h.sequential.looks} looks, ${h.sequential.spending} spending${h.sequential.futility ? ', non-binding futility' : ''}): the primary comparison is ruled by its looks (below, each taken by \`harness report --look\`), not by the fixed interval shown here.` : ''}`,
    '',
    ...markdownTable(['comparison', 'role', 'alpha', 'p (no difference)', 'gated − ungated', 'ruling'], rows),
    '',
  ];
}
