import { count, tokens, usd } from '../internal/figures.js';
import { textTable, wrap } from '../internal/text-table.js';
import type { DesignBill, DesignSearch } from './plan-design.js';
import { wallDuration } from './wall-time-text.js';

/** Prose indented by two, every line. */
const para = (text: string, indent = '  ') => wrap(text, 96 - indent.length).map((l) => `${indent}${l}`);

/** The plan's text for the design search (plan-design.ts): the manifest's design beside the cheapest one, and the lines to paste. */

const pct = (p: number | undefined) => (p === undefined ? 'no test' : p > 0.999 && p < 1 ? 'over 99.9%' : `${Number((100 * p).toFixed(1))}%`);

function row(name: string, d: DesignBill, priced: boolean): string[] {
  const caps = Object.entries(d.repetitions).map(([cap, reps]) => `${cap}:${reps}`).join(' ');
  return [
    name,
    `b = ${d.width}`,
    caps,
    String(d.primaryPairs),
    count(d.sessions),
    tokens(d.tokenBound),
    usd(d.costBoundUsd),
    ...(priced ? [d.pricedUsd === undefined ? 'unknown' : usd(d.pricedUsd)] : []),
    d.wallSeconds === undefined ? 'unknown' : wallDuration(d.wallSeconds),
    pct(d.power),
    d.fits ? 'yes' : 'NO',
  ];
}

export function designLines(search: DesignSearch, options: { delta: number; alpha: number; power: number; priced: boolean }): string[] {
  const { delta, alpha, power, priced } = options;
  const seq = search.sequential;
  const header = ['design', 'width', 'pairs per cap (cap:pairs)', 'primary pairs', 'sessions', 'token bound', 'cost bound', ...(priced ? ['priced'] : []), 'wall time', 'power', 'fits'];
  const rows = [row("manifest's", search.manifest, priced)];
  if (search.cheapest) rows.push(row('cheapest', search.cheapest, priced));
  else if (search.reachable) rows.push(row('largest that fits', search.reachable.design, priced));
  const need = search.fixedPairsNeeded === undefined ? 'more than 10,000 pairs' : `${search.fixedPairsNeeded} pairs (exact noncentral t)`;
  const lines = [
    `Design search: the cheapest design whose primary comparison (${search.comparison}, caps ${search.reaching.join(', ')}) detects δ = ${delta} at alpha ${alpha} with ${pct(power)} power, SD of pair differences ${search.sd.toFixed(3)}:`,
    ...para(`a fixed design needs ${need}${search.pairsPlanned !== undefined && search.pairsPlanned !== search.fixedPairsNeeded ? `; the sequential design plans ${search.pairsPlanned} (its inflation factor)` : ''}; widths searched: ${search.widths.join(', ')}${search.widthBound ? ' (max_children bounds the bill)' : ' (projected_branching: a scenario)'}.`),
    '',
    ...textTable([header, ...rows], header.map((_, i) => (i < 3 ? 'left' : 'right'))),
    '',
  ];
  if (search.cheapest) {
    lines.push(...para(`The cheapest design reaches the power within max_sessions${search.manifest.fits ? '' : ' (the manifest\'s own does not fit)'}. Paste into the manifest (it becomes a new sweep, with a new digest):`));
  } else {
    const mde = search.reachable?.smallestDifference;
    lines.push(
      ...para(
        search.reachable
          ? `NO design within max_sessions and max_cost_usd reaches ${pct(power)} power for δ = ${delta}. The largest that fits detects ${mde === undefined ? 'no difference up to 1' : `a difference of ${mde.toFixed(3)} or more`} at that power; raise the ceilings, ask a larger smallest_difference, or expect INCONCLUSIVE. Its lines:`
          : `NO design within max_sessions and max_cost_usd records even the curve's minimum; raise the ceilings.`,
      ),
    );
  }
  lines.push(...search.yaml.map((l) => `    ${l}`));
  if (seq) {
    const e = (d: number) => seq.expected.find((x) => x.difference === d)!;
    const fig = (x: { pairs: number; sessions: number; pricedUsd?: number }) => `${x.pairs.toFixed(1)} pairs, ${count(Math.round(x.sessions))} sessions${priced && x.pricedUsd !== undefined ? `, ${usd(x.pricedUsd)}` : ''}`;
    lines.push(
      '',
      `  Sequential (${seq.looks} looks, ${seq.spending}${seq.futility ? ', non-binding futility' : ''}; inflation factor ${seq.inflation.toFixed(3)}), expected at most ${search.cheapest!.primaryPairs} primary pairs:`,
      `    planted difference 0: ${fig(e(0))} expected (stops early only by futility or a false positive)`,
      `    planted difference δ = ${delta}: ${fig(e(delta))} expected, power ${pct(e(delta).power)}`,
      `    the fixed design: ${fig({ ...seq.fixed, pairs: seq.fixed.pairs })}, always`,
    );
  }
  lines.push(...search.assumptions.flatMap((a) => para(`Assumes ${a}.`)));
  return lines;
}
