import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { textWidth } from './charts/text-width.js';

/**
 * vega-lite → vega → SVG on the server: no browser, no canvas, no network (every chart's data
 * is inline). Text widths come from a fixed table of Helvetica's (charts/text-width.ts) rather
 * than vega's rough estimate or the machine's fonts, so a chart is sized to what it draws and
 * the bytes do not depend on the machine; the SVG definition ids (clip paths, gradients) are
 * reset before each render, so the same spec gives the same bytes every time. Renders one
 * chart at a time: the id counter and the text measure are global to vega.
 *
 * Vega's SVG writer drops a mark's tooltip; it keeps the mark's description as its
 * aria-label. Every mark that has both a role and a label (the charts give that only to the
 * marks a reader points at, with the tooltip's text as the description) gets it again as an
 * SVG <title>, which a browser shows on hover, in the file and inline on a page alike. The
 * root <svg> is named by the chart's title (vega drops a spec's description).
 */

export interface RenderedChart {
  svg: string;
  /** What vega-lite or vega warned about while compiling or running the spec (a spec bug). */
  warnings: string[];
}

interface TextItem {
  fontSize?: number;
  fontWeight?: unknown;
  limit?: number;
}

/** The width vega lays a text item out with: Helvetica's, after vega's own truncation to the item's limit. */
function measure(item: TextItem, text: unknown): number {
  const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  let s = text == null ? '' : String(text).trim();
  const limit = Number(item.limit) || 0;
  if (limit > 0 && textWidth(s, size, item.fontWeight) >= limit) {
    while (s.length > 0 && textWidth(`${s}…`, size, item.fontWeight) >= limit) s = s.slice(0, -1);
    s = `${s}…`;
  }
  return textWidth(s, size, item.fontWeight);
}

/** Each labelled mark (role graphics-symbol and an aria-label) gets its label as a <title> child; vega escaped it for an attribute, which is valid text too. */
export function titledMarks(svg: string): string {
  return svg.replace(/<(path|rect|circle|line|text)\b([^>]*?)(\/?)>/g, (whole, tag: string, attrs: string, selfClosing: string) => {
    const label = /\saria-label="([^"]*)"/.exec(attrs)?.[1];
    if (label === undefined || !/\srole="graphics-symbol"/.test(attrs)) return whole;
    return selfClosing ? `<${tag}${attrs}><title>${label}</title></${tag}>` : `<${tag}${attrs}><title>${label}</title>`;
  });
}

const attribute = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The drawing's accessible name, from the spec's own title in words (`usermeta.title`, see chart-frame.ts), on the root <svg>. */
export function namedSvg(svg: string, spec: TopLevelSpec): string {
  const title = (spec as { usermeta?: { title?: unknown } }).usermeta?.title;
  return typeof title === 'string' ? svg.replace(/^<svg\b/, `<svg aria-label="${attribute(title)}"`) : svg;
}

export async function renderSvg(spec: TopLevelSpec): Promise<RenderedChart> {
  const warnings: string[] = [];
  const handler = (_method: string, level: string, args: unknown[]) => warnings.push(`${level} ${args.map(String).join(' ')}`);
  const logger = vega.logger(vega.Warn, undefined, handler);
  vega.resetSVGDefIds();
  // vega's types omit textMetrics; its width is the documented hook for a measure of one's own (vl-convert sets it too).
  const metrics = (vega as unknown as { textMetrics: { width: (item: TextItem, text: unknown) => number } }).textMetrics;
  const before = metrics.width;
  metrics.width = measure;
  const view = new vega.View(vega.parse(compile(spec, { logger }).spec), { renderer: 'none', logger, logLevel: vega.Warn });
  try {
    return { svg: namedSvg(titledMarks(await view.toSVG()), spec), warnings };
  } finally {
    view.finalize();
    metrics.width = before;
  }
}
