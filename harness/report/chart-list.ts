import type { TopLevelSpec } from 'vega-lite';
import { achievedDepthSpec, cellsSpec } from './charts/cell-charts.js';
import { costSpec } from './charts/cost-chart.js';
import { capCurveSpec, pairedDifferenceSpec, survivalByLevelSpec } from './charts/survival-charts.js';
import type { Report } from './report-schema.js';

/**
 * The report's charts, in reading order: each a vega-lite spec, a pure function of report.json,
 * written as charts/NAME.vl.json and rendered to charts/NAME.svg beside it.
 */
export const CHARTS: ReadonlyArray<{ name: string; title: string; spec: (report: Report) => TopLevelSpec }> = [
  { name: 'survival-by-level', title: 'Survival by achieved level, per arm (the primary curve)', spec: survivalByLevelSpec },
  { name: 'paired-difference', title: 'Paired difference gated − ungated, by achieved level', spec: pairedDifferenceSpec },
  { name: 'cap-curve', title: 'Survival by depth cap, per arm', spec: capCurveSpec },
  { name: 'achieved-depth', title: 'Achieved depth per arm', spec: achievedDepthSpec },
  { name: 'cells', title: 'Every cell: survival, spec fraction and tests carried', spec: cellsSpec },
  { name: 'cost', title: 'Cost per cap: actual, learned forecast and declared scenario', spec: costSpec },
];

/** Every chart's spec for a report, by name. */
export function chartSpecs(report: Report): Array<{ name: string; spec: TopLevelSpec }> {
  return CHARTS.map((chart) => ({ name: chart.name, spec: chart.spec(report) }));
}
