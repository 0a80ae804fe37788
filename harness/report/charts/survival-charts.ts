import type { TopLevelSpec } from 'vega-lite';
import { ARMS } from '../../manifest/manifest.js';
import type { Interval } from '../../stats/interval.js';
import { estimateText, share } from '../report-format.js';
import type { Report } from '../report-schema.js';
import { armColours, bandX, calibrationDash, frame, hitLayer, intervalData, panelTitle, panelWidth, slotOffset } from './chart-frame.js';

/**
 * The survival charts: the primary curve (survival by the level each leaf actually sat at, per
 * arm, pooled over caps and per cap), the cap curve, and the paired difference. Each estimate
 * is drawn with its interval (dashed when uncalibrated, absent from 1 pair) and, for a
 * SIMULATED sweep, the planted truth as an open diamond. Panels sit side by side, each only
 * as wide as its levels (or caps) need, the arms in slots within each.
 *
 * Each datum names the table of report.md that prints its number (`table`) and its row there
 * (`row`), so the results site can link the figure to that row.
 */

interface Figure {
  estimate: number;
  interval: Interval;
  truth: number | null;
}

const POOLED = 'all caps (pooled)';
const HEIGHT = 220;
const DIFFERENCE = 'gated − ungated';

interface Row {
  panel: string;
  at: number;
  series: string;
  estimate: number;
  low: number | null;
  high: number | null;
  calibration: string | null;
  truth: number | null;
  tip: string;
  table: string;
  row: string;
}

/** One figure as chart data, with its sentence: where it sits, its estimate, interval and pairs, and the planted truth. */
function row(panel: string, where: string, at: number, series: string, f: Figure, pairs: number, link: { table: string; row: string }): Row {
  const signed = series === DIFFERENCE;
  const what = signed ? `gated − ungated survival` : `${series} survival`;
  const truth = f.truth === null ? '' : `; planted truth ${share(f.truth, signed)}`;
  return { panel, at, series, estimate: f.estimate, ...intervalData(f.interval), truth: f.truth, tip: `${what}, ${where}: ${estimateText(f, pairs, signed)}${truth}`, ...link };
}

const poolPairs = (f: { strata: { pairs: number }[] }) => f.strata.reduce((n, s) => n + s.pairs, 0);

/** The y domain: from a little under the lowest figure (rounded down to 0.1) to the top of the range, never hiding a point. */
function yDomain(values: ReadonlyArray<{ estimate: number; low: number | null; truth: number | null }>, top: number, floor: number): [number, number] {
  const lows = values.flatMap((v) => [v.estimate, v.low ?? v.estimate, v.truth ?? v.estimate]);
  const min = Math.min(top - 0.1, ...lows);
  return [Math.max(floor, Math.floor((min - 0.05) * 10) / 10), top];
}

/** Symmetric around 0, so the eye reads the sign of a difference at once. */
function differenceDomain(values: ReadonlyArray<{ estimate: number; low: number | null; high: number | null; truth: number | null }>): [number, number] {
  const reach = Math.max(0.05, ...values.flatMap((v) => [v.estimate, v.low ?? 0, v.high ?? 0, v.truth ?? 0].map(Math.abs)));
  const edge = Math.min(1, Math.ceil(reach * 10) / 10);
  return [-edge, edge];
}

interface Layout {
  /** The x title, on the first panel only: the panels beside it share it (a second wording read as a second measure). */
  xTitle: string;
  yTitle: string;
  y: [number, number];
  /** Arms in slots within a band (coloured), or one series per band. */
  arms: boolean;
  zeroRule: boolean;
}

/** One panel: interval, estimate, planted truth and the hit columns, over the levels (or caps) its figures sit at. */
function panel(values: readonly Row[], title: string | null, layout: Layout, dash: ReturnType<typeof calibrationDash>, colours: ReturnType<typeof armColours>, first: boolean) {
  const ticks = [...new Set(values.map((v) => v.at))].sort((a, b) => a - b);
  const slots = layout.arms ? colours.domain : [];
  const x = bandX('at', first ? layout.xTitle : null, ticks);
  const offset = layout.arms ? slotOffset('series', slots) : null;
  const place = { x, ...(offset ? { xOffset: offset } : {}) };
  const y = (field: string) => ({ field, type: 'quantitative' as const, scale: { domain: layout.y, nice: false }, title: first ? layout.yTitle : null });
  const colour = layout.arms ? { color: { field: 'series', type: 'nominal' as const, title: 'arm', scale: colours, legend: { orient: 'bottom' as const, direction: 'horizontal' as const } } } : {};
  // Described in words: vega's own caption of a dash legend names the channel ("for strokeDash").
  const dashLegend = { orient: 'bottom' as const, direction: 'horizontal' as const, description: `Legend of the interval lines drawn: ${dash.domain.map((d) => `${d} ${d === 'calibrated' ? 'solid' : 'dashed'}`).join(', ')}` };
  const strokeDash = dash.domain.length ? { strokeDash: { field: 'calibration', type: 'nominal' as const, title: 'interval', scale: dash, legend: dashLegend } } : {};
  return {
    ...(title ? { title: panelTitle(title) } : {}),
    width: panelWidth(ticks.length, Math.max(1, slots.length)),
    height: HEIGHT,
    data: { values: [...values] },
    layer: [
      ...(layout.zeroRule ? [{ mark: { type: 'rule' as const, color: '#888', aria: false }, encoding: { y: { datum: 0, type: 'quantitative' as const, scale: { domain: layout.y } } } }] : []),
      { transform: [{ filter: 'datum.low !== null' }], mark: { type: 'rule' as const, strokeWidth: 2, aria: false }, encoding: { ...place, y: y('low'), y2: { field: 'high' }, ...colour, ...strokeDash } },
      { mark: { type: 'point' as const, filled: true, size: 70, opacity: 1, aria: false }, encoding: { ...place, y: y('estimate'), ...colour } },
      { transform: [{ filter: 'datum.truth !== null' }], mark: { type: 'point' as const, shape: 'diamond', filled: false, size: 100, color: '#222', strokeWidth: 1.2, aria: false }, encoding: { ...place, y: y('truth') } },
      hitLayer(x, offset, HEIGHT),
    ],
  };
}

/** The notes under a chart's title: what is drawn, and only what is drawn. */
function drawnNotes(values: readonly Row[], report: Report): string[] {
  const intervals = values.some((v) => v.low !== null);
  return [
    intervals
      ? `${Math.round(report.survival.confidence * 100)}% t intervals on the cluster standard error, dashed when uncalibrated (< 5 pairs, or a spread assumed); none from 1 pair.`
      : 'No interval is drawn: every figure here is from 1 pair (or has no spread to measure), see the table.',
    ...(values.some((v) => v.truth !== null) ? ['◇ planted truth (closed form of the simulated population)'] : []),
  ];
}

/** Panels side by side, sharing the y scale, the colours and the dashes; each x its own, sized to its figures. */
function panels(values: readonly Row[], order: readonly string[], layout: Layout) {
  const dash = calibrationDash(values.filter((v) => v.low !== null).map((v) => v.calibration));
  const colours = armColours(values.map((v) => v.series));
  const shown = order.filter((p) => values.some((v) => v.panel === p));
  // No figure at all (no claim survived to be counted, no pair measured): one empty panel at level 0, never an axis computed from nothing.
  if (shown.length === 0) return { specs: [{ width: 120, height: HEIGHT, data: { values: [{ at: 0 }] }, mark: { type: 'point' as const, opacity: 0, aria: false }, encoding: { x: bandX('at', layout.xTitle, [0]), y: { datum: 0, type: 'quantitative' as const, scale: { domain: layout.y }, title: layout.yTitle } } }], width: 120 };
  const specs = shown.map((p, i) => panel(values.filter((v) => v.panel === p), order.length > 1 ? p : null, layout, dash, colours, i === 0));
  return { specs, width: specs.reduce((w, s) => w + s.width, 0) };
}

const RESOLVE = { scale: { x: 'independent', y: 'shared', color: 'shared', strokeDash: 'shared' }, axis: { x: 'independent', y: 'independent' } } as const;

function panelOrder(report: Report): string[] {
  return [POOLED, ...[...new Set(report.survival.byCap.map((r) => r.cap))].sort((a, b) => a - b).map((c) => `cap ${c}`)];
}

/** The primary curve: survival by achieved level, per arm; pooled over caps, then each cap. */
export function survivalByLevelSpec(report: Report): TopLevelSpec {
  const values = [
    ...report.survival.pooled.flatMap((r) => ARMS.flatMap((arm) => (r[arm] ? [row(POOLED, `level ${r.level}, all caps pooled`, r.level, arm, r[arm]!, poolPairs(r[arm]!), { table: 'pooled', row: `${r.level}` })] : []))),
    ...report.survival.byCap.flatMap((r) => ARMS.flatMap((arm) => (r[arm] ? [row(`cap ${r.cap}`, `level ${r.level}, cap ${r.cap}`, r.level, arm, r[arm]!, r[arm]!.pairs, { table: 'by-cap', row: `${r.cap}-${r.level}` })] : []))),
  ];
  const { specs, width } = panels(values, panelOrder(report), { xTitle: 'achieved level (root = 0)', yTitle: 'survival', y: yDomain(values, 1, 0), arms: true, zeroRule: false });
  return {
    ...frame(report, 'survival by achieved level, per arm', [
      'Share of requirements claimed by delivered leaves that pass in the merged tree, by the level each leaf sat at (root = 0). Units are cells/pairs, never leaves.',
      ...drawnNotes(values, report),
    ], width, specs.length),
    hconcat: specs,
    resolve: RESOLVE,
  } as TopLevelSpec;
}

/** The cap curve: every level of a cell pooled, per cap and arm. */
export function capCurveSpec(report: Report): TopLevelSpec {
  const values = report.survival.capCurve.flatMap((r) => ARMS.flatMap((arm) => (r[arm] ? [row('caps', `cap ${r.cap}, all levels pooled`, r.cap, arm, r[arm]!, r[arm]!.pairs, { table: 'cap-curve', row: `${r.cap}` })] : [])));
  const { specs, width } = panels(values, ['caps'], { xTitle: 'depth cap', yTitle: 'survival (all levels)', y: yDomain(values, 1, 0), arms: true, zeroRule: false });
  return {
    ...frame(report, 'survival by depth cap (all levels of a cell pooled), per arm', [
      'Beside the primary curve: a cap is what a tree was allowed, not what it used (see the achieved-depth chart).',
      ...drawnNotes(values, report),
    ], width, specs.length),
    hconcat: specs,
    resolve: RESOLVE,
  } as TopLevelSpec;
}

/** The headline: the paired difference gated − ungated per level, pooled and per cap. */
export function pairedDifferenceSpec(report: Report): TopLevelSpec {
  const values = [
    ...report.survival.pooled.flatMap((r) => (r.difference ? [row(POOLED, `level ${r.level}, all caps pooled`, r.level, DIFFERENCE, r.difference, poolPairs(r.difference), { table: 'pooled', row: `${r.level}` })] : [])),
    ...report.survival.byCap.flatMap((r) => (r.difference ? [row(`cap ${r.cap}`, `level ${r.level}, cap ${r.cap}`, r.level, DIFFERENCE, r.difference, r.difference.pairs, { table: 'by-cap', row: `${r.cap}-${r.level}` })] : [])),
  ];
  const { specs, width } = panels(values, panelOrder(report), { xTitle: 'achieved level (root = 0)', yTitle: 'gated − ungated survival', y: differenceDomain(values), arms: false, zeroRule: true });
  return {
    ...frame(report, 'paired difference gated − ungated, by achieved level', [
      `Pairs are (cap, repetition)${report.design.pairing === 'shared' ? ', both arms grading one planned tree with the same leaves' : ''}; above 0 the independent gate kept more work alive.`,
      ...(values.length === 0 ? ['No pair has both arms measured, so there is no paired difference to show (see the UNPAIRED caveat).'] : drawnNotes(values, report)),
    ], width, specs.length),
    hconcat: specs,
    resolve: RESOLVE,
  } as TopLevelSpec;
}
