import type { BrowserContext } from 'playwright-core';
import { expect } from 'vitest';

/**
 * The published site ships no script and no meta refresh: only `make_site.sh --watch` builds
 * pages that reload themselves (RDH_SITE_REFRESH, site/src/lib/live-refresh.ts). Checked on the
 * index, the run's sweep page and every cell page it links to, so a layout that wrote the
 * refresh unconditionally fails here.
 */
export async function checkNoLiveRefresh({ context, baseUrl, run }: { context: BrowserContext; baseUrl: string; run: string }): Promise<void> {
  const page = await context.newPage();
  try {
    const sweep = new URL(`runs/${run}/`, baseUrl).href;
    await page.goto(sweep);
    const cells = await page.evaluate<string[]>(`Array.from(new Set(Array.from(document.querySelectorAll('a[href]')).map((a) => new URL(a.getAttribute('href'), document.baseURI)).filter((u) => /\\/cells\\/[^/]+\\/$/.test(u.pathname)).map((u) => u.origin + u.pathname)))`);
    expect(cells.length, `${sweep} links to no cell page`).toBeGreaterThan(0);
    for (const url of [baseUrl, sweep, ...cells]) {
      await page.goto(url);
      const found = await page.evaluate<{ refresh: number; scripts: number }>(`({ refresh: document.querySelectorAll('meta[http-equiv="refresh" i]').length, scripts: document.querySelectorAll('script').length })`);
      expect(found, url).toEqual({ refresh: 0, scripts: 0 });
    }
  } finally {
    await page.close();
  }
}
