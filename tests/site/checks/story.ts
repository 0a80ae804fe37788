import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { runFiles } from '../../../harness/index.js';

const { EngineEvent, Report, runPaths } = runFiles;
type Report = runFiles.Report;
import { mergeAnchor } from '../../../site/src/lib/node-tree.js';

/**
 * Browser checks of a cell page's story (issue 21: what died, where, and what the judge said),
 * written to run on any recorded run a site was built from: the committed example, or the HTTP
 * smoke recording. Every expectation is derived from the run's own report.json and events
 * files, never a count written here.
 */

export interface StoryCheck {
  context: BrowserContext;
  /** The site's root URL, ending in `/` (the static server's, with its base path). */
  baseUrl: string;
  /** The run's name on the site (its folder's name). */
  run: string;
  report: Report;
}

const cellPage = (o: StoryCheck, id: string) => `${o.baseUrl}runs/${o.run}/cells/${id}/`;
const measured = (report: Report) => report.cells.filter((c) => c.status === 'measured');

interface ClaimRowShown {
  requirement: string;
  leaf: string;
  fate: string;
  diedAt: string;
  requirementHref: string;
  leafHref: string;
}

async function claimRows(page: Page): Promise<ClaimRowShown[]> {
  return page.evaluate<ClaimRowShown[]>(`Array.from(document.querySelectorAll('table.claims tbody tr')).map((tr) => {
    const cell = (i) => tr.children[i];
    const text = (i) => cell(i).textContent.replace(/\\s+/g, ' ').trim();
    const href = (i) => (cell(i).querySelector('a') || { getAttribute: () => '' }).getAttribute('href');
    return { requirement: text(0), leaf: text(1), fate: text(3), diedAt: text(4), requirementHref: href(0), leafHref: href(1) };
  })`);
}

/**
 * Each killed claim of each measured cell is listed on its page with its requirement and leaf,
 * and the page's killed claims are exactly those report.json's `claims` give for the cell; each
 * links to its oracle row and to its leaf, whose entry is visible where the link lands (not
 * inside a closed <details>). Returns how many killed claims were checked.
 */
export async function checkKilledClaims(o: StoryCheck): Promise<number> {
  const page = await o.context.newPage();
  let checked = 0;
  try {
    for (const row of measured(o.report)) {
      await page.goto(cellPage(o, row.id));
      const shown = await claimRows(page);
      const claims = o.report.claims.filter((c) => c.cellId === row.id);
      const key = (requirement: string, leaf: string) => `${requirement} @ ${leaf}`;
      // The leaf column shows the node's name (id · slug): its id is the first part.
      const killedShown = shown.filter((r) => r.fate === 'killed').map((r) => key(r.requirement, r.leaf.split(' · ')[0]!)).sort();
      expect(killedShown, row.id).toEqual(claims.filter((c) => !c.survived).map((c) => key(c.requirement, c.leaf)).sort());
      expect(shown.length, row.id).toBe(claims.length);
      expect(shown.filter((r) => r.fate === 'survived').length, row.id).toBe(claims.filter((c) => c.survived).length);
      for (const r of shown.filter((x) => x.fate === 'killed')) {
        const claim = claims.find((c) => c.requirement === r.requirement && c.leaf === r.leaf.split(' · ')[0])!;
        // The oracle's row of the requirement, and the leaf's entry, are on the page; the leaf's name and mark are visible.
        expect(await page.locator(`[id="${r.requirementHref.slice(1)}"]`).count(), `${row.id} ${r.requirement}`).toBe(1);
        const leaf = page.locator(`[id="${r.leafHref.slice(1)}"]`);
        expect(await leaf.locator(':scope > .node-head').isVisible(), `${row.id} ${r.leaf}`).toBe(true);
        const mark = leaf.locator(':scope > .claim-marks li', { hasText: r.requirement }).first();
        expect(await mark.isVisible(), `${row.id} ${r.requirement} on ${r.leaf}`).toBe(true);
        expect(await mark.textContent(), `${row.id} ${r.requirement}`).toContain('killed');
        // Died at: the merge the report located, or "not located" when merges were not graded.
        expect(r.diedAt.split(' · ')[0], `${row.id} ${r.requirement}`).toBe(claim.diedAt ?? 'not located');
        checked++;
      }
    }
  } finally {
    await page.close();
  }
  return checked;
}

/**
 * Every merge_review with findings in a cell's events file appears on its page, in the node's
 * merge section, with its reviewer's model and family. Returns how many gated (independent)
 * reviews with findings were found, so a caller can require that a gated rejection was shown.
 */
export async function checkMergeFindings(o: StoryCheck & { runDir: string }): Promise<{ reviews: number; gated: number }> {
  const page = await o.context.newPage();
  let reviews = 0;
  let gated = 0;
  try {
    for (const row of o.report.cells) {
      const file = runPaths(o.runDir).cell(row.id).events;
      const text = await readFile(file, 'utf8').catch(() => '');
      const withFindings = text.split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l))).flatMap((e) => (e.type === 'merge_review' && e.findings.length > 0 ? [e] : []));
      if (withFindings.length === 0) continue;
      await page.goto(cellPage(o, row.id));
      for (const review of withFindings) {
        const section = ((await page.locator(`[id="${mergeAnchor(review.nodeId)}"]`).textContent()) ?? '').replace(/\s+/g, ' ');
        for (const finding of review.findings) expect(section, `${row.id} ${review.nodeId} attempt ${review.attempt}`).toContain(finding.replace(/\s+/g, ' ').trim());
        if (review.model) expect(section).toContain(review.model);
        if (review.family) expect(section).toContain(`family ${review.family}`);
        reviews++;
        if (review.kind === 'independent') gated++;
      }
    }
  } finally {
    await page.close();
  }
  return { reviews, gated };
}

/**
 * A cell page's counts agree with report.json: the sessions its spend counts (and, under shared
 * pairing, the shared and own parts add up to it), its survival, and a cost the report says is
 * $0 is never shown as "unknown". Session links are unique within a node. Returns the cells checked.
 */
export async function checkCounts(o: StoryCheck): Promise<number> {
  const page = await o.context.newPage();
  let checked = 0;
  try {
    for (const row of measured(o.report)) {
      await page.goto(cellPage(o, row.id));
      const said = ((await page.locator('#session-counts').textContent()) ?? '').replace(/\s+/g, ' ').replaceAll(',', '');
      expect(said, row.id).toMatch(new RegExp(`^${row.spend.sessions} sessions?\\b`));
      const split = /: (\d+) shared with the pair \([^)]*\) (\d+) its own/.exec(said);
      if (o.report.design.pairing === 'shared') {
        expect(split, `${row.id}: ${said}`).not.toBeNull();
        expect(Number(split![1]) + Number(split![2]), row.id).toBe(row.spend.sessions);
      }
      expect(said, row.id).not.toContain('the report counts');
      const body = ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ');
      if (row.result) expect(body, row.id).toContain(`${row.result.surviving} of ${row.result.claimed} claims survived`);
      if (row.spend.costUsd === 0 && row.spend.unpricedSessions === 0) {
        // Where a cost is printed: each session's line, each fact (a node's spend, the cell's).
        const costs = await page.evaluate<string[]>(`[...Array.from(document.querySelectorAll('main a[href*="/sessions/"]')).map((a) => a.parentElement.textContent),
          ...Array.from(document.querySelectorAll('main dl.facts dd')).map((d) => d.textContent)]`);
        expect(costs.length).toBeGreaterThan(0);
        expect(costs.filter((c) => c.includes('unknown')), row.id).toEqual([]);
      }
      const labels = await page.evaluate<string[][]>(`Array.from(document.querySelectorAll('li.node')).map((li) =>
        Array.from(li.querySelectorAll(':scope > details a[href*="/sessions/"]')).map((a) => a.textContent.trim()))`);
      for (const list of labels) expect(new Set(list).size, `${row.id}: ${list.join(' | ')}`).toBe(list.length);
      checked++;
    }
  } finally {
    await page.close();
  }
  return checked;
}

/**
 * At 390 px (the context's viewport), a cell page's table headers are on one line (no word
 * broken inside) and no table cell is narrower than a few letters. Returns the headers measured.
 */
export async function checkNarrowTables(o: Omit<StoryCheck, 'report'> & { cell: string }): Promise<number> {
  const page = await o.context.newPage();
  try {
    await page.goto(cellPage({ ...o, report: null as never }, o.cell));
    await page.evaluate(`document.querySelectorAll('details').forEach((d) => { d.open = true; })`);
    const measuredCells = await page.evaluate<Array<{ tag: string; text: string; height: number; width: number; line: number }>>(`Array.from(document.querySelectorAll('.story th, .story td')).map((c) => {
      const r = c.getBoundingClientRect();
      const s = getComputedStyle(c);
      return { tag: c.tagName, text: c.textContent.trim().slice(0, 40), height: r.height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom), width: r.width, line: parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.5 };
    })`);
    const headers = measuredCells.filter((c) => c.tag === 'TH');
    for (const h of headers) expect(h.height, `header "${h.text}" wraps`).toBeLessThan(h.line * 1.5);
    for (const c of measuredCells.filter((x) => x.tag === 'TD' && x.text.length > 2)) expect(c.width, `cell "${c.text}" is too narrow`).toBeGreaterThanOrEqual(32);
    return headers.length;
  } finally {
    await page.close();
  }
}

/** A run folder's report.json, parsed with the harness's schema. */
export async function readReport(runDir: string): Promise<Report> {
  return Report.parse(JSON.parse(await readFile(path.join(runDir, 'report', 'report.json'), 'utf8')));
}
