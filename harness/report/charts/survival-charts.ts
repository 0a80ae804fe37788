import type { TopLevelSpec } from 'vega-lite';
import { ARMS } from '../../manifest/manifest.js';
import type { Interval } from '../../stats/interval.js';
import type { Report } from '../report-schema.js';
import { ARM_COLOURS, CALIBRATION_DASH, frame, intervalData } from './chart-frame.js';

/**
 * The survival charts: the primary curve (survival by the level each leaf actually sat at, per
 * arm, pooled over caps and per cap), the cap curve, and the paired difference. Each estimate
 * is drawn with its interval (dashed when uncalibrated, absent from 1 pair) and, for a
 * SIMULATED sweep, the planted truth as an open diamond.
 */

interface Figure {
  estimate: number;
  interval: Interval;
  truth: number | null;
}

const POOLED = 'all caps (pooled)';

/** Arms sit either side of their level or cap, so neither hides the other. */
const SHIFT: Record<string, number> = { gated: -0.14, ungated: 0.14 };

function row(panel: string, at: number, series: string, f: Figure, pairs: number | null) {
  return { panel, at, x: at + (SHIFT[series] ?? 0), series, estimate: f.estimate, ...intervalData(f.interval), truth: f.truth, pairs, label: f.interval.kind === 't' ? f.interval.label ?? 'calibrated' : f.interval.reason };
}

/** The y domain: from a little under the lowest figure (rounded down to 0.1) to the top of the range, never hiding a point. */
function yDomain(values: ReadonlyArray<{ estimate: number; low: number | null; truth: number | null }>, top: number, floor: number): [number, number] {
  const lows = values.flatMap((v) => [v.estimate, v.low ?? v.estimate, v.truth ?? v.estimate]);
  const min = Math.min(top - 0.1, ...lows);
  return [Math.max(floor, Math.floor((min - 0.05) * 10) / 10), top];
}

function panels(report: Report): string[] {
  return [POOLED, ...[...new Set(report.survival.byCap.map((r) => r.cap))].map((c) => `cap ${c}`)];
}

/** Estimate, interval and truth layers, coloured by series; x is the level or cap, each arm shifted to its side. */
function layers(ticks: readonly number[], xTitle: string, yTitle: string, y: [number, number], coloured: boolean, zeroRule: boolean, truth: boolean) {
  const x = { field: 'x', type: 'quantitative' as const, title: xTitle, scale: { domain: [ticks[0]! - 0.5, ticks.at(-1)! + 0.5], nice: false, zero: false }, axis: { values: [...ticks], format: 'd', grid: false } };
  const colour = coloured ? { color: { field: 'series', type: 'nominal' as const, title: 'arm', scale: ARM_COLOURS, legend: { orient: 'bottom' as const } } } : {};
  const tooltip = [
    { field: 'series', title: 'series' },
    { field: 'estimate', format: '.3f' },
    { field: 'low', format: '.3f' },
    { field: 'high', format: '.3f' },
    { field: 'pairs' },
    { field: 'label', title: 'interval' },
    { field: 'truth', format: '.3f', title: 'planted truth' },
  ];
  return [
    ...(zeroRule ? [{ mark: { type: 'rule' as const, color: '#888' }, encoding: { y: { datum: 0, type: 'quantitative' as const, scale: { domain: y } } } }] : []),
    {
      transform: [{ filter: 'datum.low !== null' }],
      mark: { type: 'rule' as const, strokeWidth: 2 },
      encoding: { x, y: { field: 'low', type: 'quantitative' as const, title: yTitle, scale: { domain: y } }, y2: { field: 'high' }, ...colour, strokeDash: { field: 'calibration', type: 'nominal' as const, title: 'interval', scale: CALIBRATION_DASH, legend: { orient: 'bottom' as const } } },
    },
    { mark: { type: 'point' as const, filled: true, size: 60, opacity: 1 }, encoding: { x, y: { field: 'estimate', type: 'quantitative' as const, title: yTitle, scale: { domain: y } }, ...colour, tooltip } },
    ...(truth ? [{
      transform: [{ filter: 'datum.truth !== null' }],
      mark: { type: 'point' as const, shape: 'diamond', filled: false, size: 90, color: '#222', strokeWidth: 1.2 },
      encoding: { x, y: { field: 'truth', type: 'quantitative' as const, scale: { domain: y } } },
    }] : []),
  ];
}

/** The x ticks: every level (or cap) a figure sits at; with no figure at all (no claim survived to be counted) level 0, so the axis is still a finite range. */
const levelTicks = (values: ReadonlyArray<{ at: number }>) => (values.length > 0 ? [...new Set(values.map((v) => v.at))].sort((a, b) => a - b) : [0]);

/** Symmetric around 0, so the eye reads the sign of a difference at once. */
function differenceDomain(values: ReadonlyArray<{ estimate: number; low: number | null; high: number | null; truth: number | null }>): [number, number] {
  const reach = Math.max(0.05, ...values.flatMap((v) => [v.estimate, v.low ?? 0, v.high ?? 0, v.truth ?? 0].map(Math.abs)));
  const edge = Math.min(1, Math.ceil(reach * 10) / 10);
  return [-edge, edge];
}

const TRUTH_NOTE = (report: Report) => (report.simulated ? ['◇ planted truth (closed form of the simulated population)'] : []);

/** The primary curve: survival by achieved level, per arm; pooled over caps, then each cap. */
export function survivalByLevelSpec(report: Report): TopLevelSpec {
  const values = [
    ...report.survival.pooled.flatMap((r) => ARMS.flatMap((arm) => (r[arm] ? [row(POOLED, r.level, arm, r[arm]!, r[arm]!.strata.reduce((n, s) => n + s.pairs, 0))] : []))),
    ...report.survival.byCap.flatMap((r) => ARMS.flatMap((arm) => (r[arm] ? [row(`cap ${r.cap}`, r.level, arm, r[arm]!, r[arm]!.pairs)] : []))),
  ];
  return {
    ...frame(report, 'survival by achieved level, per arm', [
      'Share of requirements claimed by delivered leaves that pass in the merged tree, by the level each leaf sat at (root = 0).',
      `Units are cells/pairs, never leaves; ${Math.round(report.survival.confidence * 100)}% t intervals on the cluster standard error, dashed when uncalibrated (<5 pairs).`,
      ...TRUTH_NOTE(report),
    ]),
    data: { values },
    facet: { column: { field: 'panel', type: 'nominal', title: null, sort: panels(report) } },
    spec: { width: 150, height: 220, layer: layers(levelTicks(values), 'achieved level (root = 0)', 'survival', yDomain(values, 1, 0), true, false, Boolean(report.simulated)) },
  } as TopLevelSpec;
}

/** The cap curve: every level of a cell pooled, per cap and arm. */
export function capCurveSpec(report: Report): TopLevelSpec {
  const values = report.survival.capCurve.flatMap((r) => ARMS.flatMap((arm) => (r[arm] ? [row('caps', r.cap, arm, r[arm]!, r[arm]!.pairs)] : [])));
  return {
    ...frame(report, 'survival by depth cap (all levels of a cell pooled), per arm', [
      'Beside the primary curve: a cap is what a tree was allowed, not what it used (see the achieved-depth chart).',
      ...TRUTH_NOTE(report),
    ]),
    data: { values },
    width: 320,
    height: 240,
    layer: layers(levelTicks(values), 'depth cap', 'survival', yDomain(values, 1, 0), true, false, Boolean(report.simulated)),
  } as TopLevelSpec;
}

/** The headline: the paired difference gated − ungated per level, pooled and per cap. */
export function pairedDifferenceSpec(report: Report): TopLevelSpec {
  const values = [
    ...report.survival.pooled.flatMap((r) => (r.difference ? [row(POOLED, r.level, 'gated − ungated', r.difference, r.difference.strata.reduce((n, s) => n + s.pairs, 0))] : [])),
    ...report.survival.byCap.flatMap((r) => (r.difference ? [row(`cap ${r.cap}`, r.level, 'gated − ungated', r.difference, r.difference.pairs)] : [])),
  ];
  // No pair with both arms measured: an empty frame that says so, never an axis computed from nothing.
  const ticks = levelTicks(values);
  return {
    ...frame(report, 'paired difference gated − ungated, by achieved level', [
      `Pairs are (cap, repetition)${report.design.pairing === 'shared' ? ', both arms grading one planned tree with the same leaves' : ''}; above 0 the independent gate kept more work alive.`,
      ...(values.length === 0 ? ['No pair has both arms measured, so there is no paired difference to show (see the UNPAIRED caveat).'] : []),
      ...TRUTH_NOTE(report),
    ]),
    data: { values },
    facet: { column: { field: 'panel', type: 'nominal', title: null, sort: panels(report) } },
    spec: { width: 150, height: 220, layer: layers(ticks, 'achieved level (root = 0)', 'gated − ungated survival', differenceDomain(values), false, true, Boolean(report.simulated)) },
  } as TopLevelSpec;
}
