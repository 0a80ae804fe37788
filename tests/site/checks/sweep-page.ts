import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Browser check of a sweep page that moved its long tables to pages of their own
 * (site/src/lib/long-tables.ts), for any built site and run: the tables of the sweep page and of
 * the pages its moved-table lines link to are, in order, every table of the harness's report.md,
 * cell for cell (nothing dropped, only moved), and every figure of a moved chart links to a row
 * or a page that exists. Returns how many tables moved, for the caller to expect.
 */

export interface SweepPageCheck {
  context: BrowserContext;
  /** The site's root URL, ending in `/`. */
  baseUrl: string;
  run: string;
  /** report.md as the harness wrote it beside report.json. */
  reportMd: string;
}

/** Every table of a report.md, each a list of rows of cell texts as a page shows them (markup and escapes undone). */
export function markdownTables(md: string): string[][][] {
  const tables: string[][][] = [];
  let table: string[][] | null = null;
  for (const line of md.split('\n')) {
    if (!line.startsWith('|')) {
      table = null;
      continue;
    }
    if (/^\|\s*-*:?-+:?\s*\|/.test(line) && /^[|\s:-]+$/.test(line)) continue; // the alignment row
    if (!table) tables.push((table = []));
    table.push(line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.replace(/\\\|/g, '|').replace(/\*\*|\*/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').trim()));
  }
  return tables;
}

/**
 * The tables a sweep page prints of a report.md: all of them but the pooled Headline's, whose
 * rows the headline strip above the report prints instead (report-html.ts's headlineShown).
 */
export function sweepPageTables(md: string): string[][][] {
  const at = pooledAt(md);
  return markdownTables(md).filter((_t, i) => i !== at);
}

/** The index, among report.md's tables, of the pooled Headline's; -1 when it has none. */
function pooledAt(md: string): number {
  const at = md.indexOf('\n## Headline: survival by achieved level');
  return at < 0 ? -1 : markdownTables(md.slice(0, at)).length;
}

/** The pooled Headline table of a report.md (its header row first), which the strip prints. */
export function pooledHeadlineTable(md: string): string[][] | null {
  return markdownTables(md)[pooledAt(md)] ?? null;
}

type Shown = Array<{ table: string[][] } | { moved: string }>;

/** The report's tables and moved-table links of a page, in document order. */
async function shown(page: Page): Promise<Shown> {
  return page.evaluate<Shown>(`Array.from(document.querySelectorAll('article.report table, article.report p.moved-table a')).map((e) => e.tagName === 'A'
    ? { moved: e.href }
    : { table: Array.from(e.querySelectorAll('tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent.replace(/\\s+/g, ' ').trim())) })`);
}

export async function checkMovedTables({ context, baseUrl, run, reportMd }: SweepPageCheck): Promise<number> {
  const page = await context.newPage();
  try {
    await page.goto(`${baseUrl}runs/${run}/`);
    const tables: string[][][] = [];
    let moved = 0;
    for (const item of await shown(page)) {
      if ('table' in item) {
        tables.push(item.table);
        continue;
      }
      moved += 1;
      const sub = await context.newPage();
      try {
        expect((await sub.goto(item.moved))?.status(), item.moved).toBe(200);
        const inner = await shown(sub);
        expect(inner.length, `${item.moved} holds one table`).toBe(1);
        tables.push(...inner.flatMap((i) => ('table' in i ? [i.table] : [])));
        // The moved chart's figures: each links to a row of this page, or to a page that answers.
        const hrefs = await sub.evaluate<string[]>(`Array.from(document.querySelectorAll('article.report figure.chart svg a')).map((a) => new URL(a.getAttribute('href') || a.getAttribute('xlink:href') || '', document.baseURI).href)`);
        const ids = new Set(await sub.evaluate<string[]>(`Array.from(document.querySelectorAll('[id]')).map((e) => e.id)`));
        for (const href of new Set(hrefs)) {
          const url = new URL(href);
          if (url.hash && url.href.startsWith(item.moved.replace(/#.*$/, ''))) expect(ids.has(decodeURIComponent(url.hash.slice(1))), href).toBe(true);
          else expect((await fetch(url.href)).status, href).toBe(200);
        }
      } finally {
        await sub.close();
      }
    }
    expect(tables).toEqual(sweepPageTables(reportMd));
    return moved;
  } finally {
    await page.close();
  }
}
