import { wrap } from '../internal/text-table.js';
import type { Caveat, Report } from './report-schema.js';

/**
 * What goes on the face of every artifact: SIMULATED with the planted parameters, and every
 * caveat, in short lines a chart subtitle or a terminal can hold. report.md prints the caveats
 * in full; these are the same caveats, shortened, never dropped.
 */

const SHORT: Record<Caveat['kind'], (report: Report) => string> = {
  simulated: () => 'SIMULATED: a synthetic agent population, not a model',
  same_family: () => 'SAME FAMILY: the judge shares the executor’s family, biasing the difference toward 0',
  ceiling: (r) => `CEILING REACHED: ${r.counts.cells.unmeasured} cell(s) left unmeasured by max_sessions`,
  quota: () => 'QUOTA STOP: the provider account ran out of quota',
  code_changed: () => 'CODE CHANGED during the sweep',
  recorded: () => 'caveat recorded by harness record (see report.md)',
  interrupted: (r) => `INTERRUPTED: ${r.counts.cells.interrupted} cell(s) did not finish`,
  incomplete: (r) => `${r.counts.cells.measured} of ${r.counts.cells.design} cells measured`,
  independence: (r) => `INDEPENDENCE NOT SHOWN at ${r.independence.gatedMerges - r.independence.independentMerges} gated merge(s)`,
  unpriced: () => 'UNPRICED sessions: dollars unknown',
  escalations: (r) => `${r.counts.escalations} NEEDS_HUMAN escalation(s) parked`,
  uncalibrated: () => 'intervals from fewer than 5 pairs are uncalibrated',
};

/**
 * Face lines at most `width` characters: the planted parameters first, then the caveats'
 * short forms. `uncalibrated` is left to the artifacts that draw intervals (they mark each one).
 */
export function faceLines(report: Report, width = 110): string[] {
  const lines: string[] = [];
  if (report.simulated) lines.push(...wrap(`SIMULATED (planted: ${report.simulated.text})`, width, '  '));
  const kinds = [...new Set(report.caveats.map((c) => c.kind))].filter((k) => k !== 'simulated' && k !== 'uncalibrated');
  const shorts = [...new Set(kinds.map((k) => SHORT[k](report)))];
  if (shorts.length > 0) lines.push(...wrap(shorts.join(' · '), width, '  '));
  return lines;
}
