/**
 * A chart spec redrawn for the sweep page so that it fits a phone without scrolling sideways:
 * panels side by side (`hconcat`) are stacked (`vconcat`), and its type is drawn a size up. The
 * page then scales the drawing down to the width it has; at 390 px a stacked chart is at most
 * about 360 px wide, so 13 px type stays at least 11 px (tests/site/checks/charts.ts measures
 * it). The report's own SVG, the download, keeps the side-by-side layout. Pure.
 */

type Json = Record<string, unknown>;

/** The type size drawn for the page: 13 px, which stays at least 11 px scaled to a 390 px phone. */
export const PAGE_FONT_PX = 13;
const FONT_KEYS = new Set(['fontSize', 'labelFontSize', 'titleFontSize', 'subtitleFontSize']);

function visit(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) visit(item);
    return;
  }
  const o = node as Json;
  for (const [key, value] of Object.entries(o)) {
    if (key === 'data' || key === 'datasets') continue;
    if (FONT_KEYS.has(key) && typeof value === 'number' && value < PAGE_FONT_PX) o[key] = PAGE_FONT_PX;
    else visit(value);
  }
}

/** The spec stacked and its type enlarged (a copy: the argument is not changed). */
export function narrowSpec(spec: object): Json {
  const out = structuredClone(spec) as Json;
  if (Array.isArray(out.hconcat)) {
    out.vconcat = out.hconcat;
    delete out.hconcat;
  }
  visit(out);
  return out;
}
