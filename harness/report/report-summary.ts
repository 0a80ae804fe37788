import { count } from '../internal/figures.js';
import { textTable } from '../internal/text-table.js';
import { oneLine } from '../record/progress.js';
import { faceLines } from './report-face.js';
import type { Interval } from '../stats/interval.js';
import { share, truthText } from './report-format.js';
import type { Report } from './report-schema.js';

/**
 * What the terminal shows after `harness report`: the face (SIMULATED, caveats), the per-level
 * table pooled over caps, the cells measured, and where the files are. Everything else is in
 * report.md.
 */
/** `0.810 [0.741, 0.879]*`: the star marks an uncalibrated interval; a figure from 1 pair has none. */
function compact(figure: { estimate: number; interval: Interval } | null, signed = false): string {
  if (!figure) return '–';
  const { interval } = figure;
  if (interval.kind === 'none') return `${share(figure.estimate, signed)} (no interval)`;
  return `${share(figure.estimate, signed)} [${share(interval.low, signed)}, ${share(interval.high, signed)}]${interval.calibrated ? '' : '*'}`;
}

export function renderSummary(report: Report, paths: { report: string; files: readonly string[] }): string {
  const pairs = (f: { strata: { pairs: number }[] } | null) => (f ? f.strata.reduce((n, s) => n + s.pairs, 0) : 0);
  const truth = Boolean(report.simulated);
  const header = ['level', 'pairs', 'gated', 'ungated', 'gated − ungated', ...(truth ? ['planted g / u'] : [])];
  const rows = report.survival.pooled.map((row) => [
    String(row.level),
    String(Math.max(pairs(row.gated), pairs(row.ungated), pairs(row.difference))),
    compact(row.gated),
    compact(row.ungated),
    compact(row.difference, true),
    ...(truth ? [`${truthText(row.gated?.truth ?? null)} / ${truthText(row.ungated?.truth ?? null)}`] : []),
  ]);
  const starred = rows.some((r) => r.some((cell) => cell.endsWith('*')));
  const c = report.counts.cells;
  const lines = [
    `harness report: ${oneLine(report.sweep.name)} (run ${oneLine(report.sweep.run)})`,
    ...faceLines(report, 100),
    '',
    `Survival by achieved level (root = 0), pooled over caps, ${Math.round(report.survival.confidence * 100)}% intervals:`,
    '',
    ...textTable([header, ...rows], header.map((_, i) => (i < 2 ? 'right' : 'left'))),
    ...(starred ? ['  * uncalibrated: fewer than 5 pairs, or no spread between them'] : []),
    '',
    `cells: ${c.measured} measured of ${c.design}${c.unavailable ? `, ${c.unavailable} unavailable` : ''}${c.unmeasured ? `, ${c.unmeasured} unmeasured` : ''}${c.interrupted ? `, ${c.interrupted} interrupted` : ''}${c.notRecorded ? `, ${c.notRecorded} not recorded` : ''}; ${count(report.cost.actual.sessions + report.cost.unmeasured.sessions)} sessions`,
    '',
    `wrote ${paths.report}/`,
    ...paths.files.map((f) => `  ${f}`),
  ];
  return `${lines.join('\n')}\n`;
}
