import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * vega-lite → vega → SVG on the server: no browser, no canvas, no network (every chart's data
 * is inline). Text widths are estimated rather than measured, so the bytes do not depend on
 * the machine's fonts; the SVG definition ids (clip paths, gradients) are reset before each
 * render, so the same spec gives the same bytes every time. Renders one chart at a time: the
 * id counter is global to vega.
 */

export interface RenderedChart {
  svg: string;
  /** What vega-lite or vega warned about while compiling or running the spec (a spec bug). */
  warnings: string[];
}

export async function renderSvg(spec: TopLevelSpec): Promise<RenderedChart> {
  const warnings: string[] = [];
  const handler = (_method: string, level: string, args: unknown[]) => warnings.push(`${level} ${args.map(String).join(' ')}`);
  const logger = vega.logger(vega.Warn, undefined, handler);
  vega.resetSVGDefIds();
  const view = new vega.View(vega.parse(compile(spec, { logger }).spec), { renderer: 'none', logger, logLevel: vega.Warn });
  try {
    return { svg: await view.toSVG(), warnings };
  } finally {
    view.finalize();
  }
}
