import { RunFileInvalidError } from './run-file-read.js';

/**
 * A chart SVG the site may serve: drawing only. Refused: scripts, event handlers, embedded
 * HTML, entity declarations, style sheets, and any reference that leaves the file (a URL with
 * a scheme or `//`), which would also break the site offline. The report's renderer (vega)
 * writes none of these, so a hit means the file was not written by `harness report`.
 */
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [/<script\b/i, 'a script'],
  [/\son[a-z]+\s*=/i, 'an event handler attribute'],
  [/<foreignObject\b/i, 'embedded HTML (foreignObject)'],
  [/<!ENTITY\b|<!DOCTYPE\b/i, 'a document type or entity declaration'],
  [/<\?xml-stylesheet\b|@import\b/i, 'a style sheet reference'],
  [/(?:href|src)\s*=\s*["']\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i, 'a link or source outside the file'],
  [/url\(\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i, 'a url() outside the file'],
];

export function assertPlainSvg(svg: string, shownAs: string): void {
  if (!/^\s*<svg\b/.test(svg)) throw new RunFileInvalidError(`${shownAs}: not an SVG drawing (it must start with <svg)`);
  for (const [pattern, what] of FORBIDDEN) {
    if (pattern.test(svg)) throw new RunFileInvalidError(`${shownAs}: holds ${what}; the site serves charts as drawings only (re-run harness report to regenerate the charts)`);
  }
}
