import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.js';
import { serveStatic } from './static-server.js';

/**
 * The README's picture of a sweep page: the built site (`dist`) served on 127.0.0.1 and the first screen of `runs/RUN/` taken in Debian's Chromium, in
 * light mode, at a desktop width. `npm run example` is to call it after building the example's
 * site, so the picture is always of the committed example.
 */

export interface SweepPictureOptions {
  /** Viewport width in CSS pixels. Default 1200. */
  width?: number;
  /** Height of the picture in CSS pixels (the page's first screen). Default 1500. */
  height?: number;
  /** The `--base` the site was built with. Default `/`. */
  base?: string;
}

/** Returns the PNG bytes. */
export async function sweepPicture(dist: string, run: string, options: SweepPictureOptions = {}): Promise<Buffer> {
  const width = options.width ?? 1200;
  const height = options.height ?? 1500;
  const server = await serveStatic(path.resolve(dist), options.base ?? '/');
  const browser = await launchChromium({ viewport: { width, height } });
  try {
    const page = await browser.context.newPage();
    const response = await page.goto(`${server.url}runs/${encodeURIComponent(run)}/`, { waitUntil: 'load' });
    if (response?.status() !== 200) throw new Error(`runs/${run}/ is not in ${dist} (HTTP ${response?.status()}); build the site with ./make_site.sh runs/${run} first`);
    // The report's chart images load lazily: load them all before the picture is taken.
    await page.evaluate(`Promise.all(Array.from(document.images).map((i) => { i.loading = 'eager'; return i.decode().catch(() => {}); }))`);
    return await page.screenshot({ type: 'png', fullPage: false });
  } finally {
    await browser.close();
    await server.close();
  }
}

// tsx site/scripts/sweep-picture.ts DIST RUN OUT.png
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dist, run, out] = process.argv.slice(2);
  if (!dist || !run || !out) {
    console.error('usage: tsx site/scripts/sweep-picture.ts DIST RUN OUT.png (a site built with ./make_site.sh, base /)');
    process.exitCode = 2;
  } else {
    await writeFile(out, await sweepPicture(dist, run));
    console.log(`sweep-picture: wrote ${out}`);
  }
}
