/**
 * What a built page names, read from its HTML without a browser: every link, image and
 * stylesheet (as absolute URLs, in document order) and every element id. The crawl reads most
 * pages this way and loads a few of each kind in Chromium, where the browser's own reading of
 * the same page must equal this one (site.browser.test.ts): the site ships no script, so the DOM
 * a page builds is its markup, and the comparison is what keeps this reader honest.
 */

export interface PageNames {
  links: string[];
  ids: string[];
}

/** The browser's reading of the same: every link, image and stylesheet, absolute (runs in the page; a string so the harness's types need no DOM). */
export const IN_PAGE_LINKS = `(() => {
  const out = [];
  for (const a of Array.from(document.querySelectorAll('a'))) {
    const href = a instanceof SVGAElement ? a.href.baseVal || a.getAttribute('xlink:href') || '' : a.getAttribute('href') || '';
    if (href) out.push(new URL(href, document.baseURI).href);
  }
  for (const img of Array.from(document.querySelectorAll('img'))) out.push(new URL(img.getAttribute('src') || '', document.baseURI).href);
  for (const link of Array.from(document.querySelectorAll('link[href]'))) out.push(new URL(link.getAttribute('href') || '', document.baseURI).href);
  return out;
})()`;

/** Every element id, as the browser lists them. */
export const IN_PAGE_IDS = `Array.from(document.querySelectorAll('[id]')).map((e) => e.id)`;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** An attribute's value as the browser reads it: character references decoded. An unknown named one is refused, not guessed. */
function decode(value: string, where: string): string {
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const named = NAMED[ref];
    if (named === undefined) throw new Error(`${where}: the character reference ${whole} in an attribute is not one this reader knows; extend page-links.ts`);
    return named;
  });
}

const TAG = /<([A-Za-z][A-Za-z0-9:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function attributes(text: string, where: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(ATTRIBUTE)) {
    const name = m[1]!.toLowerCase();
    // The first of a repeated attribute wins, as in the browser.
    if (!out.has(name)) out.set(name, decode(m[2] ?? m[3] ?? m[4] ?? '', where));
  }
  return out;
}

/** The links and ids of `html`, served at `url`. Comments and raw-text elements (style, script, textarea, title) are skipped, as the parser does. */
export function pageNames(html: string, url: string): PageNames {
  const body = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(style|script|textarea|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '');
  const anchors: string[] = [];
  const images: string[] = [];
  const sheets: string[] = [];
  const ids: string[] = [];
  const resolve = (href: string) => new URL(href, url).href;
  for (const m of body.matchAll(TAG)) {
    const name = m[1]!.toLowerCase();
    const attrs = attributes(m[2] ?? '', url);
    const id = attrs.get('id');
    if (id !== undefined) ids.push(id);
    if (name === 'a') {
      const href = attrs.get('href') || attrs.get('xlink:href') || '';
      if (href) anchors.push(resolve(href));
    } else if (name === 'img') images.push(resolve(attrs.get('src') ?? ''));
    else if (name === 'link' && attrs.has('href')) sheets.push(resolve(attrs.get('href')!));
  }
  return { links: [...anchors, ...images, ...sheets], ids };
}
