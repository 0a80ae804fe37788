import { wrap } from '../internal/text-table.js';
import type { Caveat, Report } from './report-schema.js';

/**
 * What goes on the face of every artifact: SIMULATED with the planted parameters, and every
 * caveat, in short lines a chart subtitle or a terminal can hold. report.md prints the caveats
 * in full; these are the same caveats, shortened, never dropped.
 */

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const SHORT: Record<Caveat['kind'], (report: Report) => string> = {
  simulated: () => 'SIMULATED: a synthetic agent population, not a model',
  same_family: () => 'SAME FAMILY: the judge shares the executor’s family, biasing the difference toward 0',
  ceiling: (r) => `CEILING REACHED: ${plural(r.counts.cells.unmeasured, 'cell')} left unmeasured by max_sessions`,
  quota: () => 'QUOTA STOP: the provider account ran out of quota',
  code_changed: () => 'CODE CHANGED during the sweep',
  recorded: () => 'caveat recorded by harness record (see report.md)',
  interrupted: (r) => `INTERRUPTED: ${plural(r.counts.cells.interrupted, 'cell')} did not finish`,
  incomplete: (r) => `${r.counts.cells.measured} of ${r.counts.cells.design} cells measured`,
  independence: (r) => `INDEPENDENCE NOT SHOWN at ${plural(r.independence.gatedMerges - r.independence.independentMerges, 'gated merge')}`,
  unpriced: () => 'UNPRICED sessions: dollars unknown',
  escalations: (r) => `${plural(r.counts.escalations, 'NEEDS_HUMAN escalation')} parked`,
  uncalibrated: () => 'intervals from fewer than 5 pairs are uncalibrated',
  unpaired: (r) => `UNPAIRED: ${plural(r.counts.unpaired.length, 'cell')} measured without its other arm, left out of every survival figure`,
  cut_short: () => 'CUT SHORT: some leaves or merges ran out of their token allocation or hit the length limit',
  worst_case_charges: () => 'WORST-CASE CHARGES: some calls were charged the most they could have cost',
  unreachable: () => 'PROVIDER UNREACHABLE: the sweep stopped; the same command re-runs what it lost',
  estimated_usage: () => 'ESTIMATED USAGE: some calls reported no readable usage; their tokens are estimates',
  timed_out: () => 'TIMED OUT: some oracle cases ran past their limit and counted as failures',
  no_claims: (r) => `NO CLAIMS: ${plural(r.counts.noClaims.length, 'cell')} delivered no claim`,
};

/** Breaks a comma-separated list only between its items, so `judge_recall 0.8` never splits from its value. */
function wrapItems(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of text.split(', ')) {
    const next = line ? `${line}, ${item}` : item;
    if (next.length > width && line) {
      lines.push(`${line},`);
      line = `  ${item}`;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Face lines at most `width` characters: the planted parameters first, then the caveats'
 * short forms. `uncalibrated` is left to the artifacts that draw intervals (they mark each one).
 */
export function faceLines(report: Report, width = 110): string[] {
  const lines: string[] = [];
  if (report.simulated) lines.push(...wrapItems(`SIMULATED (planted: ${report.simulated.text})`, width));
  const kinds = [...new Set(report.caveats.map((c) => c.kind))].filter((k) => k !== 'simulated' && k !== 'uncalibrated');
  const shorts = [...new Set(kinds.map((k) => SHORT[k](report)))];
  if (shorts.length > 0) lines.push(...wrap(shorts.join(' · '), width, '  '));
  return lines;
}
