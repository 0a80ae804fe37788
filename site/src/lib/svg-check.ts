import { RunFileInvalidError } from './run-file-read.js';

/**
 * A chart SVG the site may serve, as a file or inline in a sweep page: drawing only. Refused:
 * scripts, event handlers, embedded HTML, entity declarations, style sheets and style
 * elements (inline, one would restyle the whole page), any reference that leaves the file (a
 * URL with a scheme or `//`), which would also break the site offline, and any element but
 * the few vega draws with (inline, an HTML element name inside <svg> ends the drawing and
 * starts page markup). The report's renderer (vega) writes none of these, so a hit means the
 * file was not written by `harness report`.
 */
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [/<script\b/i, 'a script'],
  [/\son[a-z]+\s*=/i, 'an event handler attribute'],
  [/<foreignObject\b/i, 'embedded HTML (foreignObject)'],
  [/<!ENTITY\b|<!DOCTYPE\b/i, 'a document type or entity declaration'],
  [/<\?xml-stylesheet\b|@import\b/i, 'a style sheet reference'],
  [/<style\b/i, 'a style element'],
  [/(?:href|src)\s*=\s*["']\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i, 'a link or source outside the file'],
  [/url\(\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i, 'a url() outside the file'],
];

/** What vega's SVG writer emits: groups, shapes, text, links, tooltips and clip paths. */
const ELEMENTS = new Set(['svg', 'g', 'path', 'rect', 'line', 'circle', 'ellipse', 'text', 'tspan', 'a', 'title', 'defs', 'clipPath', 'linearGradient', 'radialGradient', 'stop', 'pattern']);

export function assertPlainSvg(svg: string, shownAs: string): void {
  if (!/^\s*<svg\b/.test(svg)) throw new RunFileInvalidError(`${shownAs}: not an SVG drawing (it must start with <svg)`);
  for (const [pattern, what] of FORBIDDEN) {
    if (pattern.test(svg)) throw new RunFileInvalidError(`${shownAs}: holds ${what}; the site serves charts as drawings only (re-run harness report to regenerate the charts)`);
  }
  for (const m of svg.matchAll(/<\/?([A-Za-z][A-Za-z0-9:_-]*)/g)) {
    if (!ELEMENTS.has(m[1]!)) throw new RunFileInvalidError(`${shownAs}: holds a <${m[1]}> element, which is not drawing; the site serves charts as drawings only (re-run harness report to regenerate the charts)`);
  }
}
