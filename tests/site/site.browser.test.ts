import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFiles } from '../../harness/index.js';
import { writeRunFixture } from '../support/run-fixture.js';
import { chromiumReady, launchChromium } from '../../site/scripts/chromium.js';
import { serveStatic, type StaticServer } from '../../site/scripts/static-server.js';
import { sweepPicture } from '../../site/scripts/sweep-picture.js';
import { checkNoLiveRefresh } from './checks/live-refresh.js';
import { checkDownloads, checkHeadline, checkPublishedReachable, checkSimulatedMarking, plantRuling } from './checks/headline.js';
import { checkClaimToJudge, checkCounts, checkKilledClaims, checkMergeFindings, checkMergeStories, checkNarrowTables, readReport } from './checks/story.js';
import { archiveFiles, auditTranscriptPage, storedTextLinks } from './checks/transcripts.js';
import { checkCharts } from './checks/charts.js';
import { checkMovedTables, markdownTables, pooledHeadlineTable, sweepPageTables } from './checks/sweep-page.js';
import { writeWideReport } from './wide-report.js';
import { IN_PAGE_IDS, IN_PAGE_LINKS, pageNames } from './checks/page-links.js';
import { repositoryOf } from '../../site/src/lib/reproduce-steps.js';

/**
 * The results site as a reviewer meets it: built by make_site.sh (under a sub-path, --base),
 * served by a plain static server, and read in headless Chromium. Runs: a fixture run with a
 * long transcript, a second copy of it, and the committed example run when there is one.
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
const BASE = '/rdh/';
const BULKY = { rounds: 70, outputChars: 4000 };
const HAS_CHROMIUM = await chromiumReady();

let tmp: string;
let dist: string;
let server: StaticServer;
let browser: { context: BrowserContext; close(): Promise<void> };
let bulkyFile: string;
let report: runFiles.Report;
const external: string[] = [];

interface Visit {
  url: string;
  consoleErrors: string[];
  failed: string[];
  links: string[];
  /** The element ids on the page, so a #fragment link can be checked without loading its page again. */
  ids: string[];
  bytes: number;
}
const visits = new Map<string, Visit>();

async function htmlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && e.name.endsWith('.html')) out.push(path.join(e.parentPath, e.name));
  return out;
}

/** Opens a page in Chromium, recording console errors, failed or 4xx/5xx requests, and every link, image, stylesheet and id it holds, as the browser reads them. */
async function visit(page: Page, url: string): Promise<Visit & { html: string }> {
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  const onConsole = (m: { type(): string; text(): string }) => m.type() === 'error' && consoleErrors.push(m.text());
  const onError = (e: Error) => consoleErrors.push(`page error: ${e.message}`);
  // A lazy image still in flight when the crawl moves on is aborted by that navigation
  // (net::ERR_ABORTED, reported during the next visit): not a broken link. Every image is
  // fetched again on its own below, so a missing one still fails the crawl.
  const onFailed = (r: { url(): string; failure(): { errorText: string } | null }) => r.failure()?.errorText !== 'net::ERR_ABORTED' && failed.push(`failed: ${r.url()} (${r.failure()?.errorText})`);
  const onResponse = (r: { url(): string; status(): number }) => r.status() >= 400 && failed.push(`${r.status()}: ${r.url()}`);
  page.on('console', onConsole);
  page.on('pageerror', onError);
  page.on('requestfailed', onFailed);
  page.on('response', onResponse);
  const response = await page.goto(url, { waitUntil: 'load' });
  const body = (await response?.body()) ?? Buffer.alloc(0);
  const links = await page.evaluate<string[]>(IN_PAGE_LINKS);
  const ids = await page.evaluate<string[]>(IN_PAGE_IDS);
  page.off('console', onConsole);
  page.off('pageerror', onError);
  page.off('requestfailed', onFailed);
  page.off('response', onResponse);
  return { url, consoleErrors, failed, links, ids, bytes: body.length, html: body.toString('utf8') };
}

/** A page read over HTTP, its links and ids from its markup (checks/page-links.ts). */
async function read(url: string): Promise<Visit> {
  const response = await fetch(url);
  const html = await response.text();
  const failed = response.status >= 400 || !/^text\/html\b/.test(response.headers.get('content-type') ?? '') ? [`${response.status} ${response.headers.get('content-type')}: ${url}`] : [];
  return { url, consoleErrors: [], failed, ...pageNames(html, url), bytes: Buffer.byteLength(html) };
}

/**
 * Which page template a URL is built by, with the run kept: the crawl loads the first page of
 * each template of each run in Chromium, and reads the others' markup.
 */
function templateOf(url: string): string {
  const rest = new URL(url).pathname.slice(BASE.length);
  return rest
    .replace(/^(runs\/[^/]+\/cells\/)[^/]+\/sessions\/.+\/$/, '$1*/sessions/*/')
    .replace(/^(runs\/[^/]+\/cells\/)[^/]+\/(sessions\/)?$/, '$1*/$2')
    .replace(/^(runs\/[^/]+\/tables\/)[^/]+\/$/, '$1*/');
}

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-site-browser-'));
  const runA = path.join(tmp, 'runs', 'fixture-run');
  const fixture = await writeRunFixture(runA, { bulkySession: BULKY });
  await cp(runA, path.join(tmp, 'runs', 'fixture-copy'), { recursive: true });
  // The copy carries a pre-registered ruling, so the headline strip's ruling is drawn and checked (checks/headline.ts).
  await plantRuling(path.join(tmp, 'runs', 'fixture-copy'));
  bulkyFile = fixture.sessions.find((s) => s.sessionId.endsWith('/worker/1'))!.file;
  report = runFiles.Report.parse(JSON.parse(await readFile(path.join(runA, 'report', 'report.json'), 'utf8')));
  // The harness's golden report as a run folder of report/ only: real providers, an unavailable
  // cell with hostile text in its reason, no cell folders (a run whose cells were not kept).
  const golden = path.join(tmp, 'runs', 'golden');
  await cp(path.join(REPO, 'tests', 'harness', 'report', '__snapshots__', 'golden'), path.join(golden, 'report'), { recursive: true, filter: (f) => !f.endsWith('.vl.json') && !f.endsWith('.md') });
  const runs = [runA, path.join(tmp, 'runs', 'fixture-copy'), golden];
  const example = path.join(REPO, 'runs', 'example-sim');
  if (await stat(path.join(example, 'report', 'report.json')).then(() => true, () => false)) {
    runs.push(example);
    // A report of 28 cells (7 copies of the example's 4), report/ only: its long tables move to pages of their own (checks/sweep-page.ts).
    await writeWideReport(path.join(tmp, 'wide-source'), example, REPO, 7, path.join(tmp, 'runs', 'wide'));
    runs.push(path.join(tmp, 'runs', 'wide'));
  }
  dist = path.join(tmp, 'dist');
  await promisify(execFile)(path.join(REPO, 'make_site.sh'), ['--base', BASE, '--out', dist, '--data', path.join(tmp, 'data'), ...runs], {
    cwd: tmp,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    maxBuffer: 64 * 1024 * 1024,
  });
  server = await serveStatic(dist, BASE);
  browser = await launchChromium({ localOnly: true });
  // Every request the pages make is watched (watching, unlike routing, keeps the HTTP cache on, so
  // a stylesheet is fetched once, not once a page): one for anywhere but the local server is
  // recorded, and the browser resolves no other host.
  browser.context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('http://127.0.0.1:') && !url.startsWith('data:')) external.push(url);
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!HAS_CHROMIUM)('the results site in Chromium', () => {
  it('crawls every page from the index: each loads with 0 console errors, every internal link resolves, nothing is fetched from outside', async () => {
    const page = await browser.context.newPage();
    const queue = [server.url];
    const seen = new Set(queue);
    const anchors: Array<{ from: string; to: string }> = [];
    const assets = new Set<string>();
    // Chromium loads the first page of each template of each run; the rest are read from their markup, whose reading Chromium checks on those pages.
    const loaded = new Set<string>();
    const misread: string[] = [];
    while (queue.length) {
      const url = queue.shift()!;
      const template = templateOf(url);
      let v: Visit;
      if (loaded.has(template)) v = await read(url);
      else {
        loaded.add(template);
        const { html, ...loadedVisit } = await visit(page, url);
        v = loadedVisit;
        // The same bytes read by the markup reader.
        const markup = pageNames(html, url);
        if (JSON.stringify([markup.links, markup.ids]) !== JSON.stringify([v.links, v.ids])) misread.push(url);
      }
      visits.set(url, v);
      for (const link of v.links) {
        const target = new URL(link);
        if (target.protocol === 'data:') continue; // inline (the empty favicon): nothing is fetched
        expect(target.origin, `${url} links outside the site: ${link}`).toBe(new URL(server.url).origin);
        if (target.hash) anchors.push({ from: url, to: link });
        target.hash = '';
        const clean = target.href;
        if (clean.endsWith('/')) {
          if (!seen.has(clean)) {
            seen.add(clean);
            queue.push(clean);
          }
        } else assets.add(clean);
      }
    }
    // The markup reader agrees with the browser on every page the browser loaded, and the browser loaded a page of every template.
    expect(misread).toEqual([]);
    expect(loaded.size).toBeGreaterThanOrEqual(15);
    expect([...new Set([...loaded].map((t) => t.replace(/^runs\/[^/]+\//, 'runs/R/')))].sort()).toEqual(
      ['', 'runs/R/', 'runs/R/cells/', 'runs/R/cells/*/', 'runs/R/cells/*/sessions/', 'runs/R/cells/*/sessions/*/', 'runs/R/tables/*/'].filter((t) => t !== 'runs/R/tables/*/' || visits.has(`${server.url}runs/wide/`)),
    );
    await page.close();
    const problems = [...visits.values()].flatMap((v) => [...v.consoleErrors, ...v.failed].map((p) => `${v.url}: ${p}`));
    expect(problems).toEqual([]);
    expect(external).toEqual([]);
    // Every page the build wrote was reached by following links.
    const written = (await htmlFiles(dist)).map((f) => `${server.url}${path.relative(dist, path.dirname(f)).split(path.sep).join('/')}/`.replace(/\/\/$/, '/'));
    expect(written.filter((u) => !visits.has(u))).toEqual([]);
    expect(visits.size).toBeGreaterThan(30);
    // Images and other files resolve too.
    for (const asset of assets) expect((await fetch(asset)).status, asset).toBe(200);
    // Every #fragment names an element on its page.
    expect(anchors.length).toBeGreaterThan(100);
    for (const { from, to } of anchors) {
      const target = new URL(to);
      const id = decodeURIComponent(target.hash.slice(1));
      target.hash = '';
      expect(visits.get(target.href)?.ids ?? [], `${from} -> ${to}`).toContain(id);
    }
    // No id is on a page twice, where a fragment would name the first alone: a sessions page holds several transcripts, each numbering its own messages.
    const twice = [...visits.values()].flatMap((v) => {
      const seen = new Set<string>();
      return (v.ids ?? []).filter((id) => seen.size === seen.add(id).size).map((id) => `${v.url}: ${id}`);
    });
    expect(twice).toEqual([]);
  }, 600_000);

  it('shows the survival chart with one mark per cell, each a link to that cell', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/`);
    // The first panel of the cells chart is cell survival.
    const marks = await page.evaluate<string[]>(`(() => {
      const figure = document.querySelector('figure#chart-cells');
      const panel = figure && figure.querySelector('svg .concat_0_group');
      return Array.from(panel ? panel.querySelectorAll('a') : []).map((a) => a.href.baseVal);
    })()`);
    const withSurvival = report.cells.filter((c) => c.result?.survival !== null && c.result !== null).map((c) => `cells/${c.id}/`);
    expect(withSurvival.length).toBe(4);
    expect(marks.sort()).toEqual(withSurvival.sort());
    // A dot is a working link.
    await page.locator(`#chart-cells svg .concat_0_group a[*|href="cells/cap2-rep1-gated/"]`).first().click();
    await expect.poll(() => page.url()).toBe(`${server.url}runs/fixture-run/cells/cap2-rep1-gated/`);
    await page.close();
  });

  it('lists every run on the index, grouped by its manifest, a line per run: run, date, SIMULATED, cells measured, spend, and its headline difference per level (no thumbnail)', async () => {
    const page = await browser.context.newPage();
    await page.goto(server.url);
    const lines = await page.evaluate<Array<{ manifest: string; text: string; href: string; levels: number; images: number }>>(`Array.from(document.querySelectorAll('section.manifest tr[data-run]')).map((tr) => ({
      manifest: tr.closest('section').querySelector('h2').textContent, text: tr.textContent.replace(/\\s+/g, ' '), href: tr.querySelector('a').getAttribute('href'),
      levels: tr.querySelectorAll('[data-level]').length, images: tr.querySelectorAll('img').length }))`);
    const mine = lines.filter((i) => /runs\/fixture-(run|copy)\/$/.test(i.href));
    expect(mine.length).toBe(2);
    // Both copies of one manifest sit under its one heading.
    expect(new Set(mine.map((m) => m.manifest)).size).toBe(1);
    expect(await page.locator('section.manifest h2', { hasText: report.sweep.name }).count()).toBe(1);
    for (const item of mine) {
      expect(item.manifest).toContain(report.sweep.name);
      expect(item.text).toContain('SIMULATED');
      expect(item.text).toContain(`${report.counts.cells.measured} of ${report.counts.cells.design}`);
      expect(item.text).toContain(`${report.cost.actual.sessions} sessions`);
      expect(item.text).toMatch(/\d{4}-\d{2}-\d{2}/);
      expect(item.levels).toBe(report.survival.pooled.length);
      expect(item.images).toBe(0);
    }
    await page.close();
  });

  it('shows exactly the report: every table of the harness\'s report.md, cell for cell, and every chart of report.json', async () => {
    // report.md as the harness wrote it beside report.json (never staged: the page must not need it).
    const md = await readFile(path.join(tmp, 'runs', 'fixture-run', 'report', 'report.md'), 'utf8');
    const expected = sweepPageTables(md);
    expect(expected.length).toBeGreaterThanOrEqual(6);
    // The pooled headline table is printed once, in the strip (one section called Headline), not again in the report.
    expect(markdownTables(md).length).toBe(expected.length + 1);
    const pooled = pooledHeadlineTable(md)!;
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/`);
    const shown = await page.evaluate<string[][][]>(`Array.from(document.querySelectorAll('article.report table')).map((t) =>
      Array.from(t.querySelectorAll('tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent.replace(/\\s+/g, ' ').trim())))`);
    expect(shown).toEqual(expected);
    const strip = await page.evaluate<string[][]>(`Array.from(document.querySelectorAll('[data-headline] tbody tr')).map((tr) => Array.from(tr.children).map((c) => c.textContent.replace(/\\s+/g, ' ').trim()))`);
    expect(strip.map((r) => [r[0], r[2], r[3], r[1]])).toEqual(pooled.slice(1).map((r) => r.slice(0, 4)));
    expect(await page.locator('main h2', { hasText: /^Headline/ }).count()).toBe(1);
    expect(await page.locator('[data-beyond-claims-lead]').count()).toBe(md.includes('\n## Work beyond the claims') ? 1 : 0);
    // Every chart the report names is on the page, drawn inline (its figures are links), each with a link to the report's own SVG.
    const figures = await page.evaluate<Array<{ id: string; svgs: number; image: string | null }>>(`Array.from(document.querySelectorAll('article.report figure.chart')).map((f) => ({
      id: f.id, svgs: f.querySelectorAll('svg').length, image: (f.querySelector('figcaption a[href$=".svg"]') || { getAttribute: () => null }).getAttribute('href') }))`);
    expect(report.charts.length).toBeGreaterThanOrEqual(5);
    expect(figures).toEqual(report.charts.map((c) => ({ id: `chart-${c.name}`, svgs: 1, image: c.svg })));
    expect(await page.locator('article.report figure.chart img').count()).toBe(0);
    await page.close();
  });

  it('builds a sweep page from any report on main\'s format: the golden report of real providers, hostile text shown as text, no cell folders', async () => {
    const golden = runFiles.Report.parse(JSON.parse(await readFile(path.join(REPO, 'tests', 'harness', 'report', '__snapshots__', 'golden', 'report.json'), 'utf8')));
    expect(golden.simulated).toBeNull();
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/golden/`);
    expect(await page.locator('main .badge', { hasText: 'real providers' }).count()).toBe(1);
    expect(await page.locator('main .badge', { hasText: 'SIMULATED' }).count()).toBe(0);
    // The hostile reason (an HTML tag, a terminal escape) is text on the page, not markup.
    const reason = golden.cells.find((c) => c.status === 'unavailable')!.reason!;
    expect(reason).toContain('<b>');
    expect(await page.locator('article.report b').count()).toBe(0);
    expect(await page.locator('article.report').textContent()).toContain('<b>|busy|</b>');
    // No cell was kept, so no cell links: every chart is drawn inline, each figure linking to the table row that prints it.
    expect(await page.locator('article.report td a').count()).toBe(0);
    expect(await page.locator('article.report figure.chart svg').count()).toBe(golden.charts.length);
    expect(await page.locator('article.report figure.chart img').count()).toBe(0);
    const hrefs = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('article.report svg a')).map((a) => a.getAttribute('xlink:href') || a.getAttribute('href'))`);
    expect(hrefs.length).toBeGreaterThan(golden.cells.filter((c) => c.result).length);
    expect(hrefs.filter((h) => !/^#row-[a-z-]+-[A-Za-z0-9-]+$/.test(h))).toEqual([]);
    await page.close();
  });

  it('shows a cell\'s node tree (plan, checks, verdicts, reviewers and families, merge attempts, findings) and the oracle\'s result per requirement', async () => {
    const grade = runFiles.GradeResult.parse(JSON.parse(await readFile(path.join(tmp, 'runs', 'fixture-run', 'cells', 'cap2-rep1-gated', 'grade.json'), 'utf8')));
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/cells/cap2-rep1-gated/`);
    const tree = (await page.locator('#tree + p + ul.tree').textContent())!.replace(/\s+/g, ' ');
    for (const text of ['Plan', 'Split into 2 subtasks', 'Checks', 'Verification', 'from sim-reviewer (family sim-beta)', 'Merge', 'Attempt 1: rejected by an independent reviewer', 'Attempt 2: accepted by an independent reviewer', 'Sessions']) {
      expect(tree, text).toContain(text);
    }
    // Every check with its falsification on an empty workspace and its result.
    const checks = await page.evaluate<string[][]>(`Array.from(document.querySelectorAll('li.node table')[0].querySelectorAll('tr')).map((tr) => Array.from(tr.children).map((c) => c.firstChild.textContent.trim()))`);
    expect(checks[0]).toEqual(['check', 'command', 'falsified', 'result']);
    expect(checks.slice(1).map((r) => [r[2], r[3]])).toEqual([['ok', 'pass'], ['ok', 'pass'], ['ok', 'pass']]);
    const rows = await page.evaluate<Array<{ id: string; result: string; cases: string }>>(`Array.from(document.querySelectorAll('#grade ~ div table tbody tr')).map((tr) => ({
      id: tr.children[0].querySelector('.mono').textContent, result: tr.children[1].textContent.trim(), cases: tr.children[2].textContent.trim() }))`);
    expect(rows).toEqual(grade.requirements.map((r) => ({ id: r.id, result: r.pass ? 'pass' : 'fail', cases: `${r.passed}/${r.total}` })));
    expect(rows.filter((r) => r.result === 'fail').length).toBeGreaterThan(0);
    // A child's claims, copied word for word from its parent's plan, are printed once, in that plan; the root's are printed whole.
    const claimsAsWritten = await page.evaluate<Array<{ node: string; items: number; said: string }>>(`Array.from(document.querySelectorAll('li.node')).flatMap((li) => {
      const h = Array.from(li.querySelectorAll(':scope > details h3')).find((x) => x.textContent === 'Claims as written');
      return h ? [{ node: li.id, items: h.nextElementSibling.tagName === 'UL' ? h.nextElementSibling.children.length : 0, said: h.nextElementSibling.textContent.replace(/\\s+/g, ' ') }] : [];
    })`);
    expect(claimsAsWritten.find((c) => c.node === 'node-root')?.items).toBeGreaterThan(0);
    const children = claimsAsWritten.filter((c) => c.node !== 'node-root');
    expect(children.length).toBeGreaterThan(0);
    for (const c of children) expect(c.said, c.node).toMatch(/^The \d+ claims? the plan of root.* gave it, word for word: listed there, under subtask \S+\.$/);
    // Each node links to its sessions.
    const nodes = await page.locator('li.node').count();
    const linked = await page.evaluate<number>(`Array.from(document.querySelectorAll('li.node')).filter((li) => li.querySelector(':scope > details a[href*="/sessions/"]')).length`);
    expect(linked).toBe(nodes);
    // A reviewer's findings, and the ungated arm's self-review, are on the face too.
    await page.goto(`${server.url}runs/fixture-run/cells/cap2-rep1-ungated/`);
    const ungated = (await page.locator('ul.tree').first().textContent())!.replace(/\s+/g, ' ');
    expect(ungated).toContain('FIXTURE finding: a seam check fails');
    // The fixture's self-review gave no verdict (escalated) and its loop accepted the merge: the page says exactly that.
    expect(ungated).toContain('Attempt 1: escalated by self-review sim-executor (family sim-alpha), verdict not used');
    expect(ungated).toContain('Self-review escalated (not used). The loop stopped because the merge was accepted');
    await page.close();
  });

  it('puts the caveats on the face above the charts, and a table of every number', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/`);
    const order = await page.evaluate<{ caveat: number; firstChart: number; tables: number }>(`(() => {
      const all = Array.from(document.querySelectorAll('main *'));
      const caveat = all.findIndex((e) => e.children.length === 0 && (e.textContent || '').startsWith('SIMULATED: these figures come from'));
      const firstChart = all.findIndex((e) => e.matches('figure.chart'));
      return { caveat, firstChart, tables: document.querySelectorAll('main table').length };
    })()`);
    expect(order.caveat).toBeGreaterThan(-1);
    expect(order.caveat).toBeLessThan(order.firstChart);
    expect(order.tables).toBeGreaterThanOrEqual(6);
    await page.close();
  });

  it('opens a transcript from its node and shows the conversation with each tool call and its result under it', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/cells/cap1-rep1-ungated/`);
    // A node's sessions are folded with its plan and checks: a tap on its summary opens them, no script needed.
    await page.locator('#node-root\\.2 > details:not(.merge) > summary').click();
    await page.locator('#node-root\\.2 a', { hasText: 'verifier 1' }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}runs/fixture-run/cells/cap1-rep1-ungated/sessions/#session-root.2/verifier/1`);
    // It lands on the session's place on its cell's sessions page, the transcript folded under its figures: a tap opens it.
    const session = page.locator(':target');
    expect(await session.locator('h2').textContent()).toBe('Session root.2/verifier/1');
    expect(await session.locator('.turn').first().isVisible()).toBe(false);
    await session.locator('> details.transcript > summary').click();
    const call = session.locator('.turn.tool_call', { hasText: 'run_command' }).first();
    expect(await call.isVisible()).toBe(true);
    expect(await call.textContent()).toContain('command: ');
    expect(await session.locator('.turn.tool', { hasText: 'Tool result of run_command' }).first().isVisible()).toBe(true);
    expect(await session.locator('.turn.system').count()).toBe(1);
    expect(await session.locator('.turn.user').count()).toBeGreaterThan(0);
    // Every reply carries its call's usage.
    const replies = await session.locator('.turn.assistant .who').allTextContents();
    expect(replies.length).toBeGreaterThan(1);
    for (const who of replies) expect(who.replace(/\s+/g, ' ')).toMatch(/^Reply from sim-reviewer call \d+: [\d,]+ in \([\d,]+ cached\), [\d,]+ out, [\d,]+ ms/);
    // Each result under its call, every message anchored, the call list complete and linked.
    const audit = await auditTranscriptPage(page, 'session-root.2/verifier/1');
    expect(audit.problems).toEqual([]);
    expect(audit.calls).toBeGreaterThan(0);
    expect(audit.results).toBe(audit.calls);
    expect(audit.listed).toBe(audit.calls);
    // A call in the list leads to its call on the page.
    await session.locator('ol.calls a').first().click();
    await expect.poll(() => page.evaluate<string>('document.querySelector(":target") ? document.querySelector(":target").className : ""')).toContain('tool_call');
    // A recorded merge review (the committed example, when there is one): audited the same way,
    // and each long text it shows is kept once as a text file of the size its link says.
    if (visits.has(`${server.url}runs/example-sim/`)) {
      await page.goto(`${server.url}runs/example-sim/cells/cap2-rep1-gated/sessions/#session-gated/root/reviewer/1`);
      const recorded = await auditTranscriptPage(page, 'session-gated/root/reviewer/1');
      expect(recorded.problems).toEqual([]);
      expect(recorded.calls).toBeGreaterThan(0);
      expect(recorded.results).toBe(recorded.calls);
      const stored = await storedTextLinks(page, 'session-gated/root/reviewer/1');
      expect(stored.length).toBeGreaterThan(0);
      for (const { href, label } of stored) {
        const text = (await (await fetch(href)).text()).replace(/^\uFEFF/, '');
        expect(label.replace(/,/g, ''), href).toContain(`${text.length} characters`);
      }
    }
    await page.close();
  });

  it('keeps a long transcript (70 tool outputs of 4,000 characters) whole: its killed leaf\'s worker is shown on its cell\'s sessions page, a session without a transcript shown is listed there, and every transcript is byte for byte in the run\'s archive', async () => {
    expect((await stat(bulkyFile)).size).toBeGreaterThan(BULKY.rounds * BULKY.outputChars);
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/cells/cap1-rep1-gated/`);
    // root.1's claims were killed in this pair (report.json's claims), so its worker is read on a page of its own.
    expect(report.claims.some((c) => c.cellId.startsWith('cap1-rep1-') && c.leaf === 'root.1' && !c.survived)).toBe(true);
    await page.locator('#node-root\\.1 > details:not(.merge) > summary').click();
    await page.locator('#node-root\\.1 a', { hasText: 'worker 1' }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}runs/fixture-run/cells/cap1-rep1-gated/sessions/#session-root.1/worker/1`);
    expect(await page.locator(':target').textContent()).toContain('write_file');
    // A session without a transcript shown (a merger: never a leaf, never a judgement): its row on the sessions page, whose raw link is the archive.
    await page.goto(`${server.url}runs/fixture-run/cells/cap1-rep1-gated/`);
    await page.evaluate(`document.querySelectorAll('li.node > details').forEach((d) => { d.open = true; })`);
    const pageless = page.locator('li.node a[href*="/sessions/#session-"][href*="/merger/"]').first();
    expect(await pageless.count()).toBe(1);
    const slug = decodeURIComponent((await pageless.getAttribute('href'))!.split('#session-')[1]!);
    await pageless.click();
    const row = page.locator('tr:target');
    expect(await row.locator('th').textContent()).toBe(slug);
    const raw = new URL((await row.locator('a', { hasText: 'raw' }).getAttribute('href'))!, page.url()).href;
    expect(raw).toBe(`${server.url}runs/fixture-run/transcripts.tar.br`);
    await page.close();
    const files = await archiveFiles(new Uint8Array(await (await fetch(raw)).arrayBuffer()));
    const name = `cells/cap1-rep1-gated/transcripts/${path.basename(bulkyFile)}`;
    expect(files[name]).toBe(await readFile(bulkyFile, 'utf8'));
    // Every transcript of the run is in it, and nothing else.
    const written = (await readdir(path.join(tmp, 'runs', 'fixture-run', 'cells'), { recursive: true })).filter((f) => f.endsWith('.jsonl') && f.includes('transcripts'));
    expect(Object.keys(files).sort()).toEqual(written.map((f) => `cells/${f.split(path.sep).join('/')}`).sort());
  });

  it('is readable on a phone: no page scrolls sideways at 390 px, nor the headline, the report\'s tables or a cell\'s claims; a cell\'s first screen is its story and its dead claims', async () => {
    const phone = await launchChromium({ viewport: { width: 390, height: 844 } });
    try {
      const page = await phone.context.newPage();
      for (const p of ['', 'runs/fixture-run/', 'runs/fixture-run/cells/cap2-rep1-gated/', 'runs/fixture-run/cells/cap2-rep1-gated/sessions/', 'runs/fixture-run/cells/cap1-rep1-gated/sessions/', ...(visits.has(`${server.url}runs/example-sim/`) ? ['runs/example-sim/', 'runs/example-sim/cells/cap2-rep1-ungated/'] : [])]) {
        await page.goto(`${server.url}${p}`);
        await page.evaluate(`document.querySelectorAll('details.transcript').forEach((d) => { d.open = true; })`);
        const { scroll, width } = await page.evaluate<{ scroll: number; width: number }>('({ scroll: document.documentElement.scrollWidth, width: window.innerWidth })');
        expect(scroll, p).toBeLessThanOrEqual(width);
        // The named tables stack: none of them scrolls sideways in its frame.
        const sideways = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('[data-headline] .table-wrap, article.report .table-wrap, .story table.claims')).map((e) => e.closest('.table-wrap') || e)
          .filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => (w.getAttribute('aria-label') || w.className) + ': ' + w.scrollWidth + ' > ' + w.clientWidth)`);
        expect(sideways, p).toEqual([]);
      }
      // A cell page's first screen: its story line and its first killed claim.
      const cell = visits.has(`${server.url}runs/example-sim/`) ? 'runs/example-sim/cells/cap2-rep1-ungated/' : 'runs/fixture-run/cells/cap2-rep1-ungated/';
      await page.goto(`${server.url}${cell}`);
      const first = await page.evaluate<{ lead: number; killed: number }>(`({ lead: document.querySelector('[data-cell-lead]').getBoundingClientRect().bottom, killed: document.querySelector('table.claims tr.killed').getBoundingClientRect().bottom })`);
      expect(first.lead, cell).toBeLessThanOrEqual(844);
      expect(first.killed, cell).toBeLessThanOrEqual(844);
      await page.close();
    } finally {
      await phone.close();
    }
  });

  it('follows the system between light and dark', async () => {
    const dark = await launchChromium({ colorScheme: 'dark' });
    try {
      const background = async (context: BrowserContext) => {
        const page = await context.newPage();
        await page.goto(server.url);
        const bg = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
        await page.close();
        return bg;
      };
      expect(await background(browser.context)).toBe('rgb(255, 255, 255)');
      expect(await background(dark.context)).toBe('rgb(21, 23, 26)');
    } finally {
      await dark.close();
    }
  });

  it('takes the README\'s picture of a sweep page: a PNG of its first screen, charts drawn', async () => {
    const png = await sweepPicture(dist, 'fixture-run', { base: BASE, width: 1000, height: 1200 });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1000, 1200]);
    // A page of the right size with nothing drawn (a 404, a blank page) compresses to a few KB.
    expect(png.length).toBeGreaterThan(50_000);
    await expect(sweepPicture(dist, 'no-such-run', { base: BASE })).rejects.toThrow('runs/no-such-run/ is not in');
  });

  it('has 0 accessibility violations of any impact (axe-core) on a page of each type, in light and in dark', async () => {
    const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
    const pages = ['', 'runs/fixture-run/', 'runs/fixture-run/cells/cap2-rep1-gated/', 'runs/fixture-run/cells/cap2-rep1-gated/sessions/', 'runs/fixture-run/cells/cap1-rep1-gated/sessions/', 'runs/golden/'];
    // The committed example's sweep and cell pages (a cell page of a recorded run, not the fixture's).
    if (visits.has(`${server.url}runs/example-sim/`)) pages.push('runs/example-sim/', 'runs/example-sim/cells/cap2-rep1-ungated/', 'runs/example-sim/cells/', 'runs/wide/', 'runs/wide/tables/table-cells/');
    // The dark scheme changes colour custom properties and nothing else, so in dark only the rules that read colours can differ: every rule runs in light, those in dark.
    const sources = (await readdir(path.join(REPO, 'site', 'src'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && /\.(css|astro|ts)$/.test(e.name));
    const css = (await Promise.all(sources.map((e) => readFile(path.join(e.parentPath, e.name), 'utf8')))).join('\n');
    const darkBlocks = [...css.matchAll(/@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}\s*\}/g)].map((m) => m[1]!);
    expect(darkBlocks.length).toBe(css.split('prefers-color-scheme').length - 1);
    expect(darkBlocks.flatMap((b) => b.split(';').map((d) => d.trim()).filter((d) => d && !/^--[a-z-]+:\s*#[0-9a-f]{6}$/.test(d)))).toEqual([]);
    const schemes = [
      { name: 'light', options: '{ resultTypes: [\'violations\'] }' },
      { name: 'dark', options: '{ resultTypes: [\'violations\'], runOnly: { type: \'rule\', values: [\'color-contrast\', \'link-in-text-block\'] } }' },
    ];
    const dark = await launchChromium({ colorScheme: 'dark' });
    try {
      const found: string[] = [];
      for (const [i, context] of [browser.context, dark.context].entries()) {
        const page = await context.newPage();
        for (const p of pages) {
          await page.goto(`${server.url}${p}`);
          // The folded transcripts of a sessions page are checked open.
          await page.evaluate(`document.querySelectorAll('details.transcript').forEach((d) => { d.open = true; })`);
          await page.addScriptTag({ path: axe });
          const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: number; first: string }>>(`axe.run(document, ${schemes[i]!.options}).then((r) =>
            r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, first: JSON.stringify(v.nodes[0] && v.nodes[0].target) })))`);
          for (const v of violations) found.push(`${p || 'index'}, ${schemes[i]!.name}: ${v.id} (${v.impact}, ${v.nodes} nodes, e.g. ${v.first})`);
        }
        await page.close();
      }
      expect(found).toEqual([]);
    } finally {
      await dark.close();
    }
  }, 600_000);

  it('headline strip, downloads and SIMULATED marking (checks/headline.ts): on the fixture, the golden report of real providers, and the committed example', async () => {
    expect(visits.size, 'the crawl ran first').toBeGreaterThan(0);
    const runs = [
      { run: 'fixture-run', runDir: path.join(tmp, 'runs', 'fixture-run') },
      { run: 'fixture-copy', runDir: path.join(tmp, 'runs', 'fixture-copy') },
      { run: 'golden', runDir: path.join(tmp, 'runs', 'golden') },
      ...(visits.has(`${server.url}runs/example-sim/`) ? [{ run: 'example-sim', runDir: path.join(REPO, 'runs', 'example-sim') }] : []),
    ];
    for (const { run, runDir } of runs) {
      const own = runFiles.Report.parse(JSON.parse(await readFile(path.join(runDir, 'report', 'report.json'), 'utf8')));
      if (run === 'fixture-copy') expect(own.ruling?.comparisons.length, 'the planted ruling').toBe(2);
      const check = { context: browser.context, baseUrl: server.url, run, report: own };
      await checkHeadline(check);
      await checkDownloads({ ...check, runDir });
      await checkSimulatedMarking({ ...check, pages: [...visits.keys()].filter((u) => u.startsWith(`${server.url}runs/${run}/`)) });
    }
    // Every published file (charts, specs, report.json, CSVs, stylesheets) is linked from a page the crawl reached.
    await checkPublishedReachable({ dist, baseUrl: server.url, linked: new Set([...visits.values()].flatMap((v) => v.links)) });
  }, 600_000);

  it('tells the example\'s cell stories (issue 21): each killed claim with its requirement and leaf, as report.json derives them; a gated merge\'s findings; counts as the report\'s; tables legible at 390 px', async () => {
    const runDir = path.join(REPO, 'runs', 'example-sim');
    const example = await readReport(runDir);
    const o = { context: browser.context, baseUrl: server.url, run: 'example-sim', report: example };
    const killed = example.claims.filter((c) => !c.survived).length;
    expect(killed).toBeGreaterThan(0);
    expect(await checkKilledClaims(o)).toBe(killed);
    const findings = await checkMergeFindings({ ...o, runDir });
    expect(findings.gated).toBeGreaterThan(0);
    expect(await checkCounts(o)).toBe(example.cells.filter((c) => c.status === 'measured').length);
    // From each killed claim on the sweep page to its judge's verdict in two taps; each merge's story as its events tell it.
    expect(await checkClaimToJudge({ ...o, runDir })).toBe(example.claims.filter((c) => !c.survived && c.diedAt !== null).length);
    expect(await checkMergeStories({ ...o, runDir })).toBeGreaterThan(4);
    const phone = await launchChromium({ viewport: { width: 390, height: 844 } });
    try {
      for (const cell of example.cells.filter((c) => c.status === 'measured')) expect(await checkNarrowTables({ context: phone.context, baseUrl: server.url, run: 'example-sim', cell: cell.id })).toBeGreaterThan(4);
    } finally {
      await phone.close();
    }
  }, 600_000);

  it('draws every chart for a phone (390 px): ticks at least 11 px tall, every figure a link to a page that exists with a tooltip of its value and a 24 px target, no empty canvas', async () => {
    const runs: Array<[string, runFiles.Report]> = [
      ['fixture-run', report],
      ['golden', runFiles.Report.parse(JSON.parse(await readFile(path.join(REPO, 'tests', 'harness', 'report', '__snapshots__', 'golden', 'report.json'), 'utf8')))],
    ];
    const example = path.join(REPO, 'runs', 'example-sim', 'report', 'report.json');
    if (await stat(example).then(() => true, () => false)) runs.push(['example-sim', runFiles.Report.parse(JSON.parse(await readFile(example, 'utf8')))]);
    for (const [run, shown] of runs) {
      const found = await checkCharts({ context: browser.context, baseUrl: server.url, run, report: shown });
      expect(found.problems, run).toEqual([]);
      expect(found.charts, run).toBe(shown.charts.length);
      expect(found.links, run).toBeGreaterThanOrEqual(shown.cells.filter((c) => c.result).length);
      expect(found.tickLabels, run).toBeGreaterThan(found.charts * 2);
    }
  }, 600_000);

  it('lists every reproduce step from a fresh machine, cloning from the address package.json declares (or saying where to declare one), and links the transcripts archive with a node one-liner and each cell\'s run files', async () => {
    const declared = repositoryOf(JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')));
    const page = await browser.context.newPage();
    await page.goto(`${server.url}runs/fixture-run/`);
    const steps = page.locator('[data-reproduce-steps]');
    expect(await steps.getAttribute('data-repository')).toBe(declared ?? '');
    const items = (await steps.locator('li').allTextContents()).map((t) => t.replace(/\s+/g, ' '));
    expect(items).toHaveLength(5);
    expect(items[0]).toContain(declared ? `git clone ${declared}` : 'declares no repository address');
    expect(items.slice(1).join('\n')).toMatch(/git checkout [0-9a-f]{7,}[\s\S]*npm ci[\s\S]*Docker[\s\S]*record manifests\/\S+ --out runs\/\S+/);
    // The Data section: the archive with a node line (no brotli command), and every cell's three files, each fetched byte for byte.
    expect(await page.locator('#data-title ~ ul a[href="transcripts.tar.br"]').count()).toBe(1);
    expect(await page.locator('[data-unpack]').textContent()).toMatch(/^node -e .*createBrotliDecompress.* < transcripts\.tar\.br \| tar x$/);
    expect(await page.locator('main').textContent()).not.toContain('brotli -d');
    const files = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('[data-cell-files] a')).map((a) => a.getAttribute('href'))`);
    expect(files).toHaveLength(report.cells.length * 3);
    for (const href of files) expect(Buffer.from(await (await fetch(new URL(href, page.url()))).arrayBuffer()).equals(await readFile(path.join(tmp, 'runs', 'fixture-run', href))), href).toBe(true);
    await page.close();
  });

  it('ships no meta refresh and no script: only the watch reloads its pages', async () => {
    await checkNoLiveRefresh({ context: browser.context, baseUrl: server.url, run: 'fixture-run' });
  });

  it('moves a long table and its chart off the sweep page, dropping nothing (checks/sweep-page.ts): the 28-cell report\'s tables, sweep page and moved pages together, are report.md\'s', async () => {
    expect(visits.size, 'the crawl ran first').toBeGreaterThan(0);
    if (!visits.has(`${server.url}runs/wide/`)) return; // no committed example to copy
    const check = { context: browser.context, baseUrl: server.url };
    expect(await checkMovedTables({ ...check, run: 'wide', reportMd: await readFile(path.join(tmp, 'wide-source', 'report', 'report.md'), 'utf8') })).toBeGreaterThanOrEqual(2);
    expect(await checkMovedTables({ ...check, run: 'fixture-run', reportMd: await readFile(path.join(tmp, 'runs', 'fixture-run', 'report', 'report.md'), 'utf8') })).toBe(0);
  }, 300_000);
});
