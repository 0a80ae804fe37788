import type { Manifest } from '../manifest/manifest.js';
import type { SweepEvent } from '../journal/sweep-events.js';
import type { Look } from '../journal/look-taken.js';
import { markdownTable, share } from './report-format.js';
import type { RulingSection, RulingWord } from './report-schema.js';
import { looksOf, repeatedLooksCaveat } from './sequential-look.js';

/**
 * The looks in the report: every look the journal records (`report --look` took them; plain
 * `report` and the site only read them), the standing ruling of a sequential design, and the
 * REPEATED LOOKS, NOT ADJUSTED caveat of a fixed design ruled on again after more cells.
 */

/** The fixed word a sequential look's ruling stands for in the ruling section. */
function standingWord(look: Look): RulingWord {
  if (look.ruling === 'STOP: SUPPORTED' || look.ruling === 'SUPPORTED') return 'SUPPORTED';
  if (look.ruling === 'STOP: NOT SUPPORTED' || look.ruling === 'NOT SUPPORTED') return 'NOT SUPPORTED';
  return 'INCONCLUSIVE';
}

/** The ruling section with its looks: under a sequential design the primary's ruling is the last look's, never the fixed interval's. */
export function withLooks(section: RulingSection, input: { events: readonly SweepEvent[]; manifest: Manifest; cells: number }): RulingSection {
  const looks = looksOf(input.events);
  const out: RulingSection = { ...section, ...(looks.length ? { looks } : {}) };
  if (section.registration !== 'pre-registered') return out;
  const design = input.manifest.hypothesis?.sequential;
  if (design) {
    const last = looks.at(-1);
    out.comparisons = section.comparisons.map((c) =>
      c.role !== 'primary' ? c : { ...c, ruling: last ? standingWord(last) : 'INCONCLUSIVE', ruledAt: last ? `look ${last.look} of ${design.looks}: ${last.ruling}` : `no look taken yet (harness report --look takes look 1 of ${design.looks})` },
    );
    return out;
  }
  const caveat = repeatedLooksCaveat(looks, input.cells, false);
  return caveat ? { ...out, caveat } : out;
}

const p = (x: number) => (x < 0.0001 ? x.toExponential(1) : Number(x.toPrecision(3)).toString());

function intervalText(look: Look): string {
  const i = look.interval;
  if (i === null) return 'no complete pair has claims there';
  const estimate = look.statistic ? share(look.statistic.estimate, true) : '–';
  if (i.kind === 'none') return `${estimate} (no interval: ${i.reason})`;
  const what = look.boundary ? `${Number((100 * i.confidence).toPrecision(6))}% repeated-confidence interval` : `${Number((100 * i.confidence).toFixed(2))}% interval, unadjusted`;
  return `${estimate} [${share(i.low, true)}, ${share(i.high, true)}] (${what})`;
}

function boundaryText(look: Look): string {
  const b = look.boundary;
  if (!b) return 'no boundary (no sequential design): read at alpha';
  const futility = look.futility ? `; futility below t ${look.futility.t.toFixed(3)} (z ${look.futility.z.toFixed(3)})` : '';
  return `|t| > ${b.t.toFixed(3)} (z ${b.z.toFixed(3)}, nominal p ${p(b.nominalP)}, alpha spent ${p(b.cumulativeAlpha)}${b.final ? ', the final look: the rest spent' : ''})${futility}`;
}

function statisticText(look: Look): string {
  const s = look.statistic;
  if (!s) return 'no statistic';
  return s.t === null ? `no spread measured (df ${s.df.toFixed(1)})` : `t ${s.t.toFixed(3)} on ${s.df.toFixed(1)} df`;
}

const lookHead = (look: Look) =>
  `look ${look.look}${look.design ? ` of ${look.design.looks} (${look.design.spending}${look.design.futility ? ', non-binding futility' : ''})` : ' (no sequential design)'}, ${look.comparison}: ${look.ruling}`;

/** A look as the terminal prints it. */
export function lookLines(look: Look): string[] {
  return [
    `  ${lookHead(look)}`,
    `    information ${look.pairs.measured} of ${look.pairs.planned} pairs (fraction ${look.fraction.toFixed(3)}), ${look.cells} cells`,
    `    boundary ${boundaryText(look)}`,
    `    statistic ${statisticText(look)}; gated − ungated ${intervalText(look)}`,
    ...(look.caveat ? [`    ${look.caveat}`] : []),
  ];
}

/** The ruling's looks and caveat on the terminal, after the ruling lines. */
export function looksLines(section: RulingSection): string[] {
  const lines: string[] = [];
  if (section.looks?.length) lines.push('Looks taken (harness report --look; each journalled):', ...section.looks.flatMap(lookLines));
  if (section.caveat) lines.push(section.caveat);
  return lines;
}

/** report.md's list of looks, under the ruling. */
export function looksMarkdown(section: RulingSection | undefined): string[] {
  if (!section) return [];
  const lines: string[] = [];
  if (section.caveat) lines.push(`**${section.caveat}**`, '');
  if (!section.looks?.length) return lines;
  const rows = section.looks.map((l) => [String(l.look), l.design ? `${l.design.looks} (${l.design.spending})` : '–', `${l.pairs.measured} / ${l.pairs.planned} (${l.fraction.toFixed(3)})`, boundaryText(l), statisticText(l), intervalText(l), `**${l.ruling}**`]);
  return [
    ...lines,
    '### Looks taken',
    '',
    'Each look was taken by `harness report --look` and journalled (event `look_taken`); plain `harness report` and the site take none. Under a sequential design each look reads the primary comparison at its spent boundary (Lan–DeMets alpha spending on the information fraction, pairs measured over pairs planned), on the t scale of its degrees of freedom.',
    '',
    ...markdownTable(['look', 'of K', 'pairs (fraction)', 'boundary', 'statistic', 'gated − ungated', 'ruling'], rows),
    '',
    ...section.looks.flatMap((l) => (l.caveat ? [`Look ${l.look}: ${l.caveat}`, ''] : [])),
  ];
}
