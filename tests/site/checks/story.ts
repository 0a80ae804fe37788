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

/**
 * From claim to judge in two taps: on the sweep page, every killed claim that report.json locates
 * at a merge links to that merge's attempt on its cell page (tap 1), where the attempt names the
 * review that judged it (tap 2): the review's place on its cell's sessions page, whose first fields
 * are that review's verdict and findings, as the cell's merge_review event recorded them. Returns the killed claims followed.
 */
export async function checkClaimToJudge(o: StoryCheck & { runDir: string }): Promise<number> {
  const page = await o.context.newPage();
  let followed = 0;
  try {
    await page.goto(`${o.baseUrl}runs/${o.run}/`);
    const links = await page.evaluate<Array<{ cell: string; node: string; href: string }>>(`Array.from(document.querySelectorAll('a[data-killed-at]')).map((a) => {
      const tr = a.closest('tr');
      return { cell: tr.children[0].textContent.trim(), node: a.textContent.trim(), href: a.href };
    })`);
    const located = o.report.claims.filter((c) => !c.survived && c.diedAt !== null);
    expect(links.length, 'every located killed claim has its link').toBe(located.length);
    // Claims that died at the same merge attempt share one link: each distinct link is followed once, and counts for every claim that holds it.
    const followedTo = new Map<string, string>();
    for (const link of links) {
      const seen = followedTo.get(link.href);
      if (seen !== undefined) {
        expect(seen, link.href).toBe(`${link.cell} ${link.node}`);
        followed++;
        continue;
      }
      followedTo.set(link.href, `${link.cell} ${link.node}`);
      await page.goto(link.href);
      const attempt = page.locator(':target');
      expect(await attempt.isVisible(), link.href).toBe(true);
      const reviewLink = attempt.locator('a[data-review-link]');
      expect(await reviewLink.count(), `${link.href}: the attempt names its review`).toBe(1);
      const reviewUrl = new URL((await reviewLink.getAttribute('href'))!, page.url()).href;
      await reviewLink.click();
      // A sessions page is long: read it once it has loaded whole, not while its sections still stream in.
      await page.waitForURL(reviewUrl, { waitUntil: 'load' });
      // Tap 2 lands on the review's own place on its cell's sessions page: the fields are the first thing in it, shown without a tap.
      const landed = await page.evaluate<{ tag: string; folded: boolean } | null>(`(() => { const t = document.querySelector(':target'); const d = t && t.querySelector(':scope > details.transcript'); return t && { tag: t.tagName, folded: Boolean(d) && !d.open }; })()`);
      expect(landed, page.url()).toEqual({ tag: 'SECTION', folded: true });
      const fields = page.locator(':target > [data-review]');
      expect(await fields.isVisible(), page.url()).toBe(true);
      // The fields come before the transcript, and say what the event says.
      const events = (await readFile(runPaths(o.runDir).cell(link.cell).events, 'utf8')).split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l)));
      const n = Number(/-(\d+)$/.exec(new URL(link.href).hash)![1]);
      const review = events.find((e) => e.type === 'merge_review' && e.nodeId === link.node && e.attempt === n);
      if (review?.type !== 'merge_review') throw new Error(`${link.cell} ${link.node} attempt ${n}: no merge_review event`);
      const text = ((await fields.textContent()) ?? '').replace(/\s+/g, ' ');
      expect(text).toContain(review.accept === true ? 'accepted' : review.accept === false ? 'rejected' : 'escalated');
      for (const f of review.findings) expect(text).toContain(f.replace(/\s+/g, ' ').trim());
      const before = await page.evaluate<boolean>(`(() => { const t = document.querySelector(':target'); const d = t.querySelector('[data-review]'); const c = t.querySelector('ol.conversation'); return !c || Boolean(d.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING); })()`);
      expect(before).toBe(true);
      followed++;
    }
  } finally {
    await page.close();
  }
  return followed;
}

/**
 * Each merge's story agrees with its events: every attempt's badge is its merge_review's verdict
 * (an ungated self-review that accepted reads "accepted", never "rejected"), and the loop's line
 * says each verdict in order and why it stopped. Returns the merges checked.
 */
export async function checkMergeStories(o: StoryCheck & { runDir: string }): Promise<number> {
  const page = await o.context.newPage();
  let checked = 0;
  try {
    for (const row of measured(o.report)) {
      const events = (await readFile(runPaths(o.runDir).cell(row.id).events, 'utf8').catch(() => '')).split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l)));
      const reviews = events.flatMap((e) => (e.type === 'merge_review' ? [e] : []));
      if (reviews.length === 0) continue;
      await page.goto(cellPage(o, row.id));
      const nodes = [...new Set(reviews.map((r) => r.nodeId))];
      // The story is the merge's summary (read folded or open), and must be the only one; a badge is its attempt's first.
      const storyOf = (node: string) => `details.merge:has([id="${mergeAnchor(node)}"]) > summary [data-merge-story]`;
      const badgeOf = (node: string, attempt: number) => `[id="${mergeAnchor(node)}-${attempt}"] > .badge`;
      const queries = nodes.flatMap((node) => [storyOf(node), ...reviews.filter((r) => r.nodeId === node).map((r) => badgeOf(node, r.attempt))]);
      // Every story and badge of the page in one round trip; a selector that matches nothing (or a second story) reads as null.
      const texts = await page.evaluate<Array<string | null>>(`${JSON.stringify(queries)}.map((q) => {
        const all = document.querySelectorAll(q);
        return all.length === 0 || (q.endsWith('[data-merge-story]') && all.length > 1) ? null : all[0].textContent;
      })`);
      const textOf = new Map(queries.map((q, i) => [q, texts[i] ?? null] as const));
      for (const node of nodes) {
        const mine = reviews.filter((r) => r.nodeId === node);
        const word = (a: boolean | null) => (a === true ? 'accepted' : a === false ? 'rejected' : 'escalated');
        const story = (textOf.get(storyOf(node)) ?? '').replace(/\s+/g, ' ');
        const said = mine.map((r) => (r.kind === 'self' ? `self-review ${word(r.accept)} (not used)` : word(r.accept))).join(', repaired, ');
        expect(story.toLowerCase(), `${row.id} ${node}`).toContain(said.toLowerCase());
        const stop = events.filter((e) => e.type === 'repair_round' && e.nodeId === node).at(-1);
        if (stop?.type === 'repair_round' && stop.stop === 'max_attempts') expect(story, `${row.id} ${node}`).toContain(`max_attempts: ${mine.length}`);
        for (const r of mine) {
          const badge = textOf.get(badgeOf(node, r.attempt)) ?? null;
          expect(badge, `${row.id} ${node} attempt ${r.attempt}`).toBe(word(r.accept));
        }
        checked++;
      }
    }
  } finally {
    await page.close();
  }
  return checked;
}
