import type { TopLevelSpec } from 'vega-lite';
import type { Interval } from '../../stats/interval.js';
import { faceLines } from '../report-face.js';
import type { Report } from '../report-schema.js';

/**
 * What every chart shares: its title with the sweep's face (SIMULATED and the planted
 * parameters, every caveat) as subtitle lines, fixed colours per arm, and a config that does
 * not depend on the machine (no fonts measured, no external data).
 */

export const ARM_COLOURS = { domain: ['gated', 'ungated'], range: ['#1b6ca8', '#d1495b'] };

export function frame(report: Report, title: string, lines: readonly string[] = []): Pick<TopLevelSpec, '$schema' | 'title' | 'background' | 'config' | 'padding'> {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${report.sweep.name}: ${title}${report.simulated ? ' (SIMULATED)' : ''}`,
      subtitle: [...faceLines(report), ...lines],
      anchor: 'start',
      fontSize: 14,
      subtitleFontSize: 10,
    },
    background: 'white',
    padding: 12,
    config: { font: 'Helvetica, Arial, sans-serif', view: { stroke: '#ccc' }, axis: { labelFontSize: 10, titleFontSize: 11 } },
  };
}

/** An interval as chart data: its ends, and whether it is labelled uncalibrated (drawn dashed). Null ends: no interval. */
export function intervalData(interval: Interval): { low: number | null; high: number | null; calibration: string } {
  if (interval.kind === 'none') return { low: null, high: null, calibration: 'none (1 pair)' };
  return { low: interval.low, high: interval.high, calibration: interval.calibrated ? 'calibrated' : 'uncalibrated' };
}

export const CALIBRATION_DASH = { domain: ['calibrated', 'uncalibrated', 'none (1 pair)'], range: [[1, 0], [4, 3], [1, 0]] };
