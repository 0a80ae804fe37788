import { count } from '../internal/figures.js';
import { textTable } from '../internal/text-table.js';
import { oneLine } from '../sweep/progress.js';
import { faceLines } from './report-face.js';
import { estimateText, truthText } from './report-format.js';
import type { Report } from './report-schema.js';

/**
 * What the terminal shows after `harness report`: the face (SIMULATED, caveats), the per-level
 * table pooled over caps, the cells measured, and where the files are. Everything else is in
 * report.md.
 */
export function renderSummary(report: Report, paths: { report: string; files: readonly string[] }): string {
  const pairs = (f: { strata: { pairs: number }[] }) => f.strata.reduce((n, s) => n + s.pairs, 0);
  const truth = Boolean(report.simulated);
  const header = ['level', 'gated', 'ungated', 'gated − ungated', ...(truth ? ['planted g / u'] : [])];
  const rows = report.survival.pooled.map((row) => [
    String(row.level),
    row.gated ? estimateText(row.gated, pairs(row.gated)) : '–',
    row.ungated ? estimateText(row.ungated, pairs(row.ungated)) : '–',
    row.difference ? estimateText(row.difference, pairs(row.difference), true) : '–',
    ...(truth ? [`${truthText(row.gated?.truth ?? null)} / ${truthText(row.ungated?.truth ?? null)}`] : []),
  ]);
  const c = report.counts.cells;
  const lines = [
    `harness report: ${oneLine(report.sweep.name)} (run ${oneLine(report.sweep.run)})`,
    ...faceLines(report, 100),
    '',
    `Survival by achieved level (root = 0), pooled over caps, ${Math.round(report.survival.confidence * 100)}% intervals:`,
    '',
    ...textTable([header, ...rows], header.map((_, i) => (i === 0 ? 'right' : 'left'))),
    '',
    `cells: ${c.measured} measured of ${c.design}${c.unavailable ? `, ${c.unavailable} unavailable` : ''}${c.unmeasured ? `, ${c.unmeasured} unmeasured` : ''}${c.interrupted ? `, ${c.interrupted} interrupted` : ''}${c.notRecorded ? `, ${c.notRecorded} not recorded` : ''}; ${count(report.cost.actual.sessions + report.cost.unmeasured.sessions)} sessions`,
    '',
    `wrote ${paths.report}/`,
    ...paths.files.map((f) => `  ${f}`),
  ];
  return `${lines.join('\n')}\n`;
}
