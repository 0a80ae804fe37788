import type { TopLevelSpec } from 'vega-lite';
import { achievedDepthSpec, cellsSpec } from './charts/cell-charts.js';
import { costSpec } from './charts/cost-chart.js';
import { capCurveSpec, pairedDifferenceSpec, survivalByLevelSpec } from './charts/survival-charts.js';
import type { Report } from './report-schema.js';

/**
 * The report's charts, in reading order: each a vega-lite spec, a pure function of report.json,
 * written as charts/NAME.vl.json and rendered to charts/NAME.svg beside it.
 *
 * `table` names the table report.md prints just before the chart and how many of its leading
 * columns key a row; every datum of a chart names its table and row key (`table`, `row`) in
 * the same terms, so a page showing report.md can link each figure to the row printing it.
 */
export interface ChartListing {
  name: string;
  title: string;
  spec: (report: Report) => TopLevelSpec;
  table: { name: string; keys: number };
}

export const CHARTS: readonly ChartListing[] = [
  { name: 'survival-by-level', title: 'Survival by achieved level, per arm (the primary curve)', spec: survivalByLevelSpec, table: { name: 'pooled', keys: 1 } },
  { name: 'paired-difference', title: 'Paired difference gated − ungated, by achieved level', spec: pairedDifferenceSpec, table: { name: 'by-cap', keys: 2 } },
  { name: 'cap-curve', title: 'Survival by depth cap, per arm', spec: capCurveSpec, table: { name: 'cap-curve', keys: 1 } },
  { name: 'achieved-depth', title: 'Achieved depth per arm', spec: achievedDepthSpec, table: { name: 'depth', keys: 3 } },
  { name: 'cells', title: 'Every cell: survival, spec fraction and tests carried', spec: cellsSpec, table: { name: 'cells', keys: 1 } },
  { name: 'cost', title: 'Cost per cap: actual, learned forecast and declared scenario', spec: costSpec, table: { name: 'cost', keys: 1 } },
];

/** Every chart's spec for a report, by name. */
export function chartSpecs(report: Report): Array<{ name: string; spec: TopLevelSpec }> {
  return CHARTS.map((chart) => ({ name: chart.name, spec: chart.spec(report) }));
}
