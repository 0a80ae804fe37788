import type { TopLevelSpec } from 'vega-lite';
import type { Interval } from '../../stats/interval.js';
import { faceLines } from '../report-face.js';
import type { Report } from '../report-schema.js';
import { textWidth, wrapItemsToWidth, wrapToWidth } from './text-width.js';

/**
 * What every chart shares: its title with the sweep's face (SIMULATED and the planted
 * parameters, every caveat) as subtitle lines wrapped to the chart's own width, fixed colours
 * per arm, type large enough to read on a phone without scaling, and a config that does not
 * depend on the machine (no fonts measured, no external data).
 *
 * Every figure a reader can point at is drawn twice: the visible mark, hidden from assistive
 * technology, and over it a transparent column as wide as its slot and as tall as its panel
 * (hitLayer), which carries the figure's sentence as tooltip and description (the SVG's
 * <title>) and, on the results site, the link. So every target is at least HIT_PX wide and
 * never overlaps another.
 */

export const ARM_COLOURS = { domain: ['gated', 'ungated'], range: ['#1b6ca8', '#d1495b'] };

/** Font sizes in px: 12 px text stays at least 11 px tall when drawn unscaled. */
export const FONT = { label: 12, title: 12, chartTitle: 15, subtitle: 12 } as const;

/** The narrowest slot a figure gets, in px: a 24 px pointer target (WCAG 2.5.8) with room to spare. */
export const HIT_PX = 30;

/** Room a panel's y axis (labels and title) takes beside its plot, in px, for wrapping the subtitle. */
const AXIS_ROOM = 70;

/** What the site and a reader's tools take from a spec besides the drawing: its title and notes in words. */
export interface ChartMeta {
  title: string;
  /** The chart's own notes (what is drawn, how), without the sweep's face lines. */
  notes: string[];
}

/** A face line (the planted parameters, or the caveats) wrapped between its items only, so a parameter never parts from its value nor a caveat's tag from itself. */
function faceWrap(line: string, width: number): string[] {
  const separator = line.includes(' · ') ? ' · ' : ', ';
  return wrapItemsToWidth(line.trim().split(separator), separator, width, FONT.subtitle);
}

/**
 * The top-level frame of a chart. `plotWidth` is the sum of its panels' plot widths, so the
 * subtitle wraps to the drawing rather than widening the canvas past it.
 */
export function frame(report: Report, title: string, lines: readonly string[], plotWidth: number, panels = 1): Pick<TopLevelSpec, '$schema' | 'title' | 'background' | 'config' | 'padding' | 'usermeta'> {
  const width = Math.max(340, plotWidth + panels * AXIS_ROOM);
  const text = `${report.sweep.name}: ${title}${report.simulated ? ' (SIMULATED)' : ''}`;
  const wrap = (line: string) => (textWidth(line, FONT.subtitle) <= width ? [line] : wrapToWidth(line, width, FONT.subtitle));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: textWidth(text, FONT.chartTitle, 'bold') <= width ? text : wrapToWidth(text, width / 1.1, FONT.chartTitle),
      subtitle: [...faceLines(report, Number.MAX_SAFE_INTEGER).flatMap((line) => faceWrap(line, width)), ...lines.flatMap(wrap)],
      anchor: 'start',
      fontSize: FONT.chartTitle,
      subtitleFontSize: FONT.subtitle,
      subtitleColor: '#333',
    },
    background: 'white',
    padding: 12,
    usermeta: { title: text, notes: [...lines] } satisfies ChartMeta,
    config: {
      font: 'Helvetica, Arial, sans-serif',
      view: { stroke: '#ccc' },
      axis: { labelFontSize: FONT.label, titleFontSize: FONT.title, labelColor: '#222', titleColor: '#222' },
      legend: { labelFontSize: FONT.label, titleFontSize: FONT.title, labelColor: '#222', titleColor: '#222' },
      header: { labelFontSize: FONT.label, titleFontSize: FONT.title },
      title: { subtitleFontSize: FONT.subtitle },
    },
  };
}

/** A panel's heading inside a concatenated chart. */
export const panelTitle = (text: string) => ({ text, fontSize: FONT.title, fontWeight: 'normal' as const, anchor: 'middle' as const, offset: 6 });

/** An ordinal x of `field`, its categories in `domain` order, each a band of `step` px. */
export function bandX(field: string, title: string | null, domain: ReadonlyArray<string | number>) {
  return { field, type: 'ordinal' as const, title, sort: [...domain], scale: { domain: [...domain], paddingInner: 0.15, paddingOuter: 0.1 }, axis: { labelAngle: 0, labelFontSize: FONT.label } };
}

/** The slots within a band (arms, or cells of one cap), side by side with no gap, so each slot's column meets the next. */
export function slotOffset(field: string, domain: readonly string[]) {
  return { field, type: 'nominal' as const, sort: [...domain], scale: { domain: [...domain], paddingInner: 0, paddingOuter: 0 } };
}

/** The narrowest panel, in px: room for its heading and a short axis title. */
const MIN_PANEL_PX = 64;

/** Width of a panel with `bands` categories of `slots` slots each: every slot at least HIT_PX after the band padding. */
export function panelWidth(bands: number, slots: number): number {
  const band = Math.ceil((slots * HIT_PX) / 0.85) + 2;
  return Math.max(MIN_PANEL_PX, Math.round(bands * band + band * 0.2));
}

/**
 * The transparent column over a figure's slot: the whole panel height, its slot's width. It
 * carries the figure's sentence (`tip`) as tooltip and description; the site adds the link.
 */
export function hitLayer(x: object, offset: object | null, height: number) {
  return {
    mark: { type: 'bar' as const, opacity: 0, cursor: 'pointer' as const },
    encoding: { x, ...(offset ? { xOffset: offset } : {}), y: { value: 0 }, y2: { value: height }, tooltip: { field: 'tip', type: 'nominal' as const }, description: { field: 'tip', type: 'nominal' as const } },
  };
}

/** An interval as chart data: its ends, and whether it is labelled uncalibrated (drawn dashed). Null ends: no interval. */
export function intervalData(interval: Interval): { low: number | null; high: number | null; calibration: string | null } {
  if (interval.kind === 'none') return { low: null, high: null, calibration: null };
  return { low: interval.low, high: interval.high, calibration: interval.calibrated ? 'calibrated' : 'uncalibrated' };
}

const DASHES: Record<string, number[]> = { calibrated: [1, 0], uncalibrated: [4, 3] };

/** The dash scale of the intervals drawn, only those: a legend entry for a style no interval has would say what is not there. */
export function calibrationDash(drawn: ReadonlyArray<string | null>) {
  const domain = Object.keys(DASHES).filter((k) => drawn.includes(k));
  return { domain, range: domain.map((k) => DASHES[k]!) };
}

/** The arm colours of the arms drawn, only those. */
export function armColours(drawn: readonly string[]) {
  const domain = ARM_COLOURS.domain.filter((a) => drawn.includes(a));
  return { domain, range: domain.map((a) => ARM_COLOURS.range[ARM_COLOURS.domain.indexOf(a)]!) };
}

/** `1 pair`, `2 pairs`: counts in a figure's sentence. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
