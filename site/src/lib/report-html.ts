import { RunFileInvalidError } from './run-file-read.js';

/**
 * report.md, rendered to HTML, made into the body of a sweep page. report.md is a pure function
 * of report.json written by the harness, so the page says exactly what the report says; this
 * only (1) refuses anything but the plain document markdown produces, (2) wraps tables so they
 * scroll on a phone, (3) links every cell id in a table to its cell page, and (4) replaces the
 * cells chart with the copy whose dots are links. Links stay relative (`charts/...`,
 * `cells/...`), which resolve from the sweep page under any base path.
 */

const TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 'code', 'a', 'img', 'blockquote', 'br', 'hr', 'del']);
const ATTRIBUTES: Record<string, RegExp> = {
  id: /^[A-Za-z0-9_-]*$/,
  align: /^(left|right|center)$/,
  style: /^text-align:\s*(left|right|center);?$/,
  src: /^charts\/[A-Za-z0-9._-]+\.svg$/,
  alt: /^[^"<>]*$/,
  href: /^(#[A-Za-z0-9_-]*|charts\/[A-Za-z0-9._-]+\.svg)$/,
};

/** Refuses any tag or attribute a report.md could not have produced (raw HTML smuggled in a text field). */
export function assertPlainReportHtml(html: string, shownAs: string): void {
  for (const m of html.matchAll(/<\/?([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    const tag = m[1]!.toLowerCase();
    if (!TAGS.has(tag)) throw new RunFileInvalidError(`${shownAs}: its text holds HTML (a <${tag}> element); report text must be plain (re-run harness report)`);
    for (const a of m[2]!.matchAll(/\s+([^\s=>]+)(?:="([^"]*)")?/g)) {
      const rule = ATTRIBUTES[a[1]!.toLowerCase()];
      if (!rule || !rule.test(a[2] ?? '')) throw new RunFileInvalidError(`${shownAs}: its text holds HTML (a ${a[1]} attribute on <${tag}>); report text must be plain (re-run harness report)`);
    }
  }
  // A "<" that starts no tag the pattern above read (a malformed tag) is refused as well.
  const stripped = html.replace(/<\/?([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g, '');
  if (stripped.includes('<')) throw new RunFileInvalidError(`${shownAs}: its text holds markup the site cannot read as plain text; re-run harness report`);
}

export interface ReportHtmlOptions {
  /** Cell ids that have a page. */
  cellPages: ReadonlySet<string>;
  /** The cells chart with linked dots (inline SVG), shown in place of the report's image. */
  linkedCells: string | null;
  /** Sizes of the report's charts by file (`charts/NAME.svg`), for the images' width and height. */
  sizes: ReadonlyMap<string, { width: number | null; height: number | null }>;
  shownAs: string;
}

export function reportHtml(html: string, options: ReportHtmlOptions): string {
  assertPlainReportHtml(html, options.shownAs);
  let out = html.replace(/<table>/g, '<div class="table-wrap" tabindex="0" role="region" aria-label="Table (scrolls sideways)"><table>').replace(/<\/table>/g, '</table></div>');
  out = out.replace(/<td([^>]*)>(cap[1-9][0-9]*-rep[1-9][0-9]*-(?:gated|ungated))<\/td>/g, (whole, attrs: string, id: string) => (options.cellPages.has(id) ? `<td${attrs}><a href="cells/${id}/">${id}</a></td>` : whole));
  out = out.replace(/<p><img src="(charts\/[A-Za-z0-9._-]+\.svg)" alt="([^"]*)"\s*\/?><\/p>/g, (_whole, src: string, alt: string) => {
    if (src === 'charts/cells.svg' && options.linkedCells) {
      return `<figure class="chart"><div class="chart-frame">${options.linkedCells}</div><figcaption>${alt}: every dot links to its cell's page.</figcaption></figure>`;
    }
    const size = options.sizes.get(src);
    const dims = size?.width && size.height ? ` width="${size.width}" height="${size.height}"` : '';
    return `<figure class="chart"><div class="chart-frame"><img src="${src}" alt="${alt}; the table above gives its numbers"${dims} loading="lazy" decoding="async"></div></figure>`;
  });
  return out;
}
