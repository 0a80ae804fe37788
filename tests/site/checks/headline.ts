import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { runFiles } from '../../../harness/index.js';
import { parseCsv } from '../../support/csv.js';

/**
 * Browser checks of the headline strip, the downloads and the SIMULATED marking, for any built
 * site and any run on it (the committed example, a fixture, a recorded HTTP smoke run). Every
 * expected figure is read from the run's own report.json, never written here.
 */

type Report = runFiles.Report;

export interface RunCheck {
  context: BrowserContext;
  /** The site's root URL, ending in `/`. */
  baseUrl: string;
  run: string;
  report: Report;
}

/** The first number of a figure's text (`+0.256 (1 pair, no interval)` → 0.256). */
const firstNumber = (text: string) => Number(/[+-]?\d+\.\d+/.exec(text)?.[0] ?? Number.NaN);
const signed = (n: number, sign: boolean) => (sign && n > 0 ? `+${n.toFixed(3)}` : n.toFixed(3) === '-0.000' ? '0.000' : n.toFixed(3));

interface ShownRow {
  level: number;
  gated: string;
  ungated: string;
  difference: string;
}

async function shownRows(page: Page, strip: string): Promise<ShownRow[]> {
  return page.evaluate<ShownRow[]>(`Array.from(document.querySelectorAll(${JSON.stringify(`${strip} tr[data-level]`)})).map((tr) => ({
    level: Number(tr.getAttribute('data-level')),
    gated: tr.querySelector('[data-arm="gated"]').textContent.trim(),
    ungated: tr.querySelector('[data-arm="ungated"]').textContent.trim(),
    difference: tr.querySelector('[data-arm="difference"]').textContent.trim(),
  }))`);
}

/** The strip's figures equal report.json's pooled survival: each estimate, its interval's bounds, or the reason it has none. */
function expectFigures(shown: ShownRow[], report: Report, where: string): void {
  expect(shown.map((r) => r.level), where).toEqual(report.survival.pooled.map((r) => r.level));
  report.survival.pooled.forEach((row, i) => {
    for (const arm of ['gated', 'ungated', 'difference'] as const) {
      const figure = row[arm];
      const text = shown[i]![arm];
      const label = `${where}: level ${row.level} ${arm}`;
      if (!figure) {
        expect(text, label).toBe('–');
        continue;
      }
      const sign = arm === 'difference';
      expect(Math.abs(firstNumber(text) - figure.estimate), label).toBeLessThanOrEqual(0.0005 + 1e-9);
      expect(text.startsWith(signed(figure.estimate, sign)), `${label}: ${text}`).toBe(true);
      const pairs = figure.strata.reduce((n, s) => n + s.pairs, 0);
      if (figure.interval.kind === 't') expect(text, label).toContain(`[${signed(figure.interval.low, sign)}, ${signed(figure.interval.high, sign)}]`);
      else expect(text, label).toMatch(/identical by design|no interval/);
      if (!text.includes('identical by design')) expect(text, label).toContain(`${pairs} ${pairs === 1 ? 'pair' : 'pairs'}`);
    }
  });
}

function expectRuling(words: string[], report: Report, where: string): void {
  if (!report.ruling) expect(words, where).toEqual([]);
  else if (report.ruling.registration === 'not pre-registered') expect(words, where).toEqual(['NOT PRE-REGISTERED']);
  else expect(words, where).toEqual(report.ruling.comparisons.map((c) => c.ruling));
}

/**
 * The headline strip of the sweep page lies within the first 600 px at 1280 × 800 and shows
 * report.json's figures, ruling and pins; the run's index card shows the same figures.
 */
export async function checkHeadline({ context, baseUrl, run, report }: RunCheck): Promise<void> {
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${baseUrl}runs/${run}/`);
    const strip = page.locator('[data-headline]');
    expect(await strip.count(), run).toBe(1);
    const box = await page.evaluate<{ top: number; bottom: number; scrollY: number }>(`(() => { const r = document.querySelector('[data-headline]').getBoundingClientRect(); return { top: r.top, bottom: r.bottom, scrollY: window.scrollY }; })()`);
    expect(box.scrollY).toBe(0);
    expect(box.top, `${run}: the strip's top`).toBeGreaterThanOrEqual(0);
    expect(box.bottom, `${run}: the strip's bottom at 1280 × 800`).toBeLessThanOrEqual(600);
    const stripRows = await shownRows(page, '[data-headline]');
    expectFigures(stripRows, report, `${run} sweep page`);
    expectRuling(await page.locator('[data-headline] [data-ruling]').evaluateAll((els) => els.map((e) => e.getAttribute('data-ruling') ?? '')), report, run);
    const text = (await strip.textContent())!.replace(/\s+/g, ' ');
    for (const pin of [report.sweep.manifestSha256, report.sweep.harnessVersion, report.design.executor.realModel, report.design.reviewer.realModel, `npm run harness -- record manifests/${report.sweep.name}.yaml`]) expect(text, run).toContain(pin);
    if (report.sweep.code.commit) expect(text).toContain(report.sweep.code.commit);
    // The run's line on the index, under its manifest: the headline difference per level, the same figures.
    await page.goto(baseUrl);
    const line = `section.manifest:has(h2[id="manifest-${report.sweep.name.replace(/[^A-Za-z0-9_-]+/g, '-')}"]) tr[data-run="${run}"]`;
    expect(await page.locator(line).count(), `${run}: index line`).toBe(1);
    const differences = await page.locator(`${line} [data-level] [data-arm="difference"]`).allTextContents();
    expect(differences.map((d) => d.trim()), `${run}: index line`).toEqual(stripRows.map((r) => r.difference));
    const facts = (await page.locator(line).textContent())!.replace(/\s+/g, ' ');
    expect(facts, `${run}: index line`).toContain(`${report.counts.cells.measured} of ${report.counts.cells.design}`);
    const heading = (await page.locator(`h2[id="manifest-${report.sweep.name.replace(/[^A-Za-z0-9_-]+/g, '-')}"]`).textContent())!;
    expect(heading, `${run}: the task on its manifest's heading`).toContain(report.design.spec.split('/').pop()!);
  } finally {
    await page.close();
  }
}

async function text(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.text();
}

/** Rows of a CSV keyed by its header; every row as long as the header. */
function csvRecords(body: string, url: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(body);
  expect(header, url).toBeDefined();
  for (const row of rows) expect(row.length, url).toBe(header!.length);
  return rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i]!])));
}

/**
 * Each download of the sweep page opens: report.json is the run folder's file byte for byte and
 * validates against the Report schema; the CSVs parse, carry the simulated flag and the pins on
 * every row, and count what the report counts; each staged vega-lite spec is served as staged.
 */
export async function checkDownloads({ context, baseUrl, run, report, runDir }: RunCheck & { runDir: string }): Promise<void> {
  const page = await context.newPage();
  const at = `${baseUrl}runs/${run}/`;
  let links: string[];
  try {
    await page.goto(at);
    links = await page.locator('section.downloads a').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
  } finally {
    await page.close();
  }
  const published = await readFile(path.join(runDir, 'report', 'report.json'), 'utf8');
  for (const name of ['report.json', 'cells.csv', 'claims.csv']) expect(links, `${run}: the Data section links ${name}`).toContain(`${at}${name}`);
  const json = await text(`${at}report.json`);
  expect(json).toBe(published);
  expect(runFiles.Report.safeParse(JSON.parse(json)).success).toBe(true);
  const simulated = report.simulated === null ? 'false' : 'true';
  const pins = (r: Record<string, string>) => [r.simulated, r.run, r.commit, r.manifest_sha256];
  const expectedPins = [simulated, report.sweep.run, report.sweep.code.commit ?? '', report.sweep.manifestSha256];
  const cells = csvRecords(await text(`${at}cells.csv`), 'cells.csv');
  expect(cells.length, `${run} cells.csv`).toBe(report.cells.length);
  expect(cells.map((c) => c.cell)).toEqual(report.cells.map((c) => c.id));
  for (const row of cells) expect(pins(row)).toEqual(expectedPins);
  const claims = csvRecords(await text(`${at}claims.csv`), 'claims.csv');
  expect(claims.length, `${run} claims.csv`).toBe(report.claims.length);
  expect(claims.filter((c) => c.survived === 'false').length, `${run}: killed claims`).toBe(report.claims.filter((c) => !c.survived).length);
  for (const row of claims) expect(pins(row)).toEqual(expectedPins);
  for (const chart of report.charts) {
    const file = path.join(runDir, 'report', chart.spec);
    const staged = await stat(file).then((s) => s.isFile(), () => false);
    const url = `${at}${chart.spec}`;
    if (!staged) {
      expect(links, `${run}: ${chart.spec} was not staged, so it is not offered`).not.toContain(url);
      continue;
    }
    expect(links, `${run}: the Data section links ${chart.spec}`).toContain(url);
    expect(await text(url)).toBe(await readFile(file, 'utf8'));
  }
}

/**
 * Every page of the run: the SIMULATED banner and "SIMULATED" in the title exactly when the run
 * is simulated (report.simulated is set). `pages` are the run's page URLs (the crawl's); the
 * first of each kind is also looked at in the browser, the banner visible on its first screen.
 */
export async function checkSimulatedMarking({ context, run, report, pages }: RunCheck & { pages: string[] }): Promise<void> {
  const simulated = report.simulated !== null;
  expect(pages.length, run).toBeGreaterThan(0);
  for (const url of pages) {
    const html = await text(url);
    const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';
    expect(title.startsWith('SIMULATED'), `${url}: title ${title}`).toBe(simulated);
    expect(html.includes('data-simulated-banner'), `${url}: banner`).toBe(simulated);
  }
  const kinds = new Map<string, string>();
  for (const url of pages) {
    const kind = url.includes('/sessions/') ? 'session' : url.includes('/cells/') ? 'cell' : 'sweep';
    if (!kinds.has(kind)) kinds.set(kind, url);
  }
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const url of kinds.values()) {
      await page.goto(url);
      const banner = page.locator('[data-simulated-banner]');
      expect(await banner.count(), url).toBe(simulated ? 1 : 0);
      if (simulated) {
        expect(await banner.isVisible(), url).toBe(true);
        expect((await banner.boundingBox())!.y, url).toBeLessThan(400);
        expect(await page.title(), url).toMatch(/^SIMULATED: /);
      }
    }
  } finally {
    await page.close();
  }
}

/** Every file the build wrote that is not a page is linked from a page the crawl visited (`linked`: every link, image and stylesheet it saw, absolute). */
export async function checkPublishedReachable({ dist, baseUrl, linked }: { dist: string; baseUrl: string; linked: ReadonlySet<string> }): Promise<void> {
  const files: string[] = [];
  for (const e of await readdir(dist, { withFileTypes: true, recursive: true })) if (e.isFile() && !e.name.endsWith('.html')) files.push(path.relative(dist, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  expect(files.length).toBeGreaterThan(0);
  const strip = (u: string) => u.replace(/#.*$/, '');
  const seen = new Set([...linked].map(strip));
  expect(files.filter((f) => !seen.has(`${baseUrl}${f.split('/').map(encodeURIComponent).join('/')}`) && !seen.has(`${baseUrl}${f}`))).toEqual([]);
}

/**
 * Gives a run folder's report.json a pre-registered ruling (a fixture's manifest has no
 * hypothesis), so the strip's ruling is drawn and checked: the primary at the deepest pooled
 * level, a secondary over levels >= 1, each with the interval the report has there and the word
 * the ruling's rule gives it (INCONCLUSIVE without an interval). Validated before it is written.
 */
export async function plantRuling(runDir: string): Promise<void> {
  const file = path.join(runDir, 'report', 'report.json');
  const report = runFiles.Report.parse(JSON.parse(await readFile(file, 'utf8')));
  const deepest = report.survival.pooled.at(-1)!;
  const d = deepest.difference!;
  const pairs = d.strata.reduce((n, s) => n + s.pairs, 0);
  const interval = d.interval;
  const word = interval.kind === 'none' ? 'INCONCLUSIVE' : interval.high < 0.1 ? 'NOT SUPPORTED' : interval.low > 0 ? 'SUPPORTED' : 'INCONCLUSIVE';
  report.ruling = {
    registration: 'pre-registered', why: null,
    hypothesis: { primary: { level: deepest.level }, secondary: [{ levels_from: 1 }], smallest_difference: 0.1, alpha: 0.05, power: 0.8 },
    comparisons: [
      { comparison: `level ${deepest.level}`, role: 'primary', alpha: 0.05, estimate: d.estimate, pairs, pValue: null, interval, ruling: word },
      { comparison: 'levels >= 1', role: 'secondary', alpha: 0.05, estimate: null, pairs: 0, pValue: null, interval: null, ruling: 'INCONCLUSIVE' },
    ],
  };
  await writeFile(file, `${JSON.stringify(runFiles.Report.parse(report), null, 2)}\n`);
}
