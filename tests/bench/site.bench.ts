import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeRunFixture } from '../support/run-fixture.js';
import { writeReport } from '../../harness/index.js';
import { writeRunCopies, writeSweepJournalFixture } from '../support/sweep-fixture.js';
import { figure, type Figure } from './stats.js';

/**
 * Goals (issue 21, "a site that scales with the sweep"): the site of 100 smoke runs built in at
 * most 60 s into at most 150 MB; a synthetic sweep of 23,000 sessions in at most 10 minutes into
 * at most 300 MB; a sweep page at most 500 KB, charts included.
 */
export const SITE_BUILD_TARGET_MS = 60_000;
export const SITE_BYTES_TARGET = 150e6;
export const SWEEP_BUILD_TARGET_MS = 600_000;
export const SWEEP_BYTES_TARGET = 300e6;
export const SWEEP_PAGE_TARGET_BYTES = 500_000;
/** The index at 100 runs (issue 34): runs grouped by manifest, a line each. */
export const INDEX_TARGET_BYTES = 100_000;
const RUNS = 100;
const SWEEP_SESSIONS = 23_000;
const REPO = path.resolve(import.meta.dirname, '..', '..');

export async function sizeOf(dir: string): Promise<{ files: number; bytes: number; pages: number }> {
  let files = 0;
  let bytes = 0;
  let pages = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    files += 1;
    bytes += (await stat(path.join(e.parentPath, e.name))).size;
    if (e.name.endsWith('.html')) pages += 1;
  }
  return { files, bytes, pages };
}

/** What a browser fetches for a sweep page: its HTML and every chart image it names. */
export async function sweepPageWeight(dist: string, run: string): Promise<{ html: number; images: number }> {
  const dir = path.join(dist, 'runs', run);
  const html = await readFile(path.join(dir, 'index.html'), 'utf8');
  let images = 0;
  for (const m of html.matchAll(/<img [^>]*src="([^"]+)"/g)) images += (await stat(path.join(dir, m[1]!))).size;
  return { html: Buffer.byteLength(html), images };
}

/**
 * CPU seconds (user + system) of this process's waited-for children, from /proc (Linux): on a
 * shared, loaded machine the wall time says more about the neighbours than about the build.
 */
async function childCpuSeconds(): Promise<number | null> {
  const stat = await readFile('/proc/self/stat', 'utf8').catch(() => null);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name: state is field 3, so cutime (16) and cstime (17) sit at 13 and 14 here.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** One ./make_site.sh over `runs` into `tmp/dist`, timed (wall and children's CPU), with the output's size. */
async function build(tmp: string, runs: string[]): Promise<{ ms: number; cpu: number | null; load: number; out: Awaited<ReturnType<typeof sizeOf>>; dist: string }> {
  const dist = path.join(tmp, 'dist');
  const cpuBefore = await childCpuSeconds();
  const load = loadavg()[0]!;
  const started = performance.now();
  await promisify(execFile)(path.join(REPO, 'make_site.sh'), ['--out', dist, '--data', path.join(tmp, 'data'), ...runs], { cwd: REPO, env: { PATH: process.env.PATH, HOME: process.env.HOME }, maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - started;
  const cpuAfter = await childCpuSeconds();
  return { ms, cpu: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null, load, out: await sizeOf(dist), dist };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const cpuNote = (b: { cpu: number | null; load: number }) => (b.cpu === null ? '' : `; ${b.cpu.toFixed(1)} CPU s (user + system), load average ${b.load.toFixed(1)} at the start`);
/** A figure against its goal, as the ratio of the two: at most 1 meets it. */
const against = (value: number, goal: number, shown: (n: number) => string) => `${shown(value)} against the ${shown(goal)} goal (${(value / goal).toFixed(2)} of it)`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The whole of ./make_site.sh (stage, scan, astro build) over 100 synthetic copies of one run:
 * the committed example when there is one, else the test fixture (said so in the note).
 */
export async function siteBench(): Promise<{ figures: Figure[]; lines: string[] }> {
  const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-site-bench-'));
  try {
    const example = path.join(REPO, 'runs', 'example-sim');
    const hasExample = await stat(path.join(example, 'report', 'report.json')).then(() => true, () => false);
    const source = hasExample ? example : path.join(tmp, 'fixture');
    if (!hasExample) await writeRunFixture(source);
    // Each copy with texts of its own (what a re-run would not repeat word for word): identical copies would flatter a site that stores texts by content.
    const runs = Array.from({ length: RUNS }, (_, i) => path.join(tmp, 'runs', `copy-${String(i + 1).padStart(3, '0')}`));
    await writeRunCopies(source, runs);
    const input = await sizeOf(source);
    const b = await build(tmp, runs);
    const weight = await sweepPageWeight(b.dist, 'copy-001');
    const index = (await stat(path.join(b.dist, 'index.html'))).size;
    const total = weight.html + weight.images;
    const what = hasExample ? 'runs/example-sim' : 'the test FIXTURE run (no runs/example-sim yet)';
    return {
      figures: [figure(`site build, ${RUNS} runs (make_site.sh: stage, scan, astro build)`, [b.ms], undefined, `goal <= ${SITE_BUILD_TARGET_MS / 1000} s and <= ${mb(SITE_BYTES_TARGET)}; ${b.out.pages} pages, ${mb(b.out.bytes)} out${cpuNote(b)}`)],
      lines: [
        `site build: ${RUNS} copies of ${what}, each with texts of its own (${input.files} files, ${mb(input.bytes)} each) -> ${b.out.pages} pages, ${b.out.files} files`,
        `  index: ${(index / 1000).toFixed(0)} KB against the ${INDEX_TARGET_BYTES / 1000} KB goal (${(index / INDEX_TARGET_BYTES).toFixed(2)} of it)`,
        `  time: ${against(b.ms, SITE_BUILD_TARGET_MS, secs)}${cpuNote(b)}`,
        `  size: ${against(b.out.bytes, SITE_BYTES_TARGET, mb)}`,
        `sweep page weight: ${(total / 1000).toFixed(0)} KB (HTML ${(weight.html / 1000).toFixed(0)} KB with the linked cells chart inline, chart images ${(weight.images / 1000).toFixed(0)} KB) against the ${SWEEP_PAGE_TARGET_BYTES / 1000} KB goal (${(total / SWEEP_PAGE_TARGET_BYTES).toFixed(2)} of it)`,
      ],
    };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The whole of ./make_site.sh over one synthetic sweep of 23,000 sessions (tests/support/
 * sweep-fixture.ts: the example's cells repeated as whole copies with their journal, every
 * copy's texts its own but for what a real sweep shares), its report written from that journal,
 * so the sweep page reports every cell; with the sweep page's weight against its goal. Needs
 * the committed example; without it the figure is skipped, said so.
 */
export async function sweepSiteBench(sessions = SWEEP_SESSIONS): Promise<{ figures: Figure[]; lines: string[] }> {
  const example = path.join(REPO, 'runs', 'example-sim');
  if (!(await stat(path.join(example, 'report', 'report.json')).then(() => true, () => false))) {
    return { figures: [], lines: ['sweep site build: skipped, there is no runs/example-sim to make the synthetic sweep from'] };
  }
  const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-sweep-bench-'));
  try {
    const madeAt = performance.now();
    // Whole copies with their journal, reported by `harness report`'s code: the sweep page shows every cell's report (528 cells at 23,100 sessions).
    const sweep = await writeSweepJournalFixture(path.join(tmp, 'runs', 'sweep'), example, sessions, REPO);
    await writeReport(sweep.dir, { shownAs: 'sweep' });
    const madeMs = performance.now() - madeAt;
    const b = await build(tmp, [sweep.dir]);
    const weight = await sweepPageWeight(b.dist, 'sweep');
    const page = weight.html + weight.images;
    const pageNote = `sweep page ${(page / 1000).toFixed(0)} KB at ${sweep.cells} cells, ${(page / SWEEP_PAGE_TARGET_BYTES).toFixed(2)} of the ${SWEEP_PAGE_TARGET_BYTES / 1000} KB goal`;
    return {
      figures: [figure(`site build, one sweep of ${sweep.sessions.toLocaleString('en-US')} sessions`, [b.ms], undefined, `goal <= ${SWEEP_BUILD_TARGET_MS / 1000} s and <= ${mb(SWEEP_BYTES_TARGET)}; ${b.out.pages} pages, ${mb(b.out.bytes)} out; ${pageNote}${cpuNote(b)}`)],
      lines: [
        `sweep site build: a SYNTHETIC sweep of ${sweep.sessions.toLocaleString('en-US')} sessions in ${sweep.cells} cells (${mb(sweep.bytes)} of transcripts, made and reported in ${secs(madeMs)}) -> ${b.out.pages} pages, ${b.out.files} files`,
        `  time: ${against(b.ms, SWEEP_BUILD_TARGET_MS, secs)}${cpuNote(b)}`,
        `  size: ${against(b.out.bytes, SWEEP_BYTES_TARGET, mb)}`,
        `  sweep page weight at ${sweep.cells} cells: ${against(page, SWEEP_PAGE_TARGET_BYTES, (n) => `${(n / 1000).toFixed(0)} KB`)} (HTML ${(weight.html / 1000).toFixed(0)} KB with its charts inline, chart images ${(weight.images / 1000).toFixed(0)} KB; long tables on pages of their own)`,
      ],
    };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

// `npx tsx tests/bench/site.bench.ts` runs this one alone.
// `npx tsx tests/bench/site.bench.ts runs` or `... sweep [SESSIONS]` runs just one of the two.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const which = process.argv[2];
  const results = [];
  if (which !== 'sweep') results.push(await siteBench());
  if (which !== 'runs') results.push(await sweepSiteBench(process.argv[3] ? Number(process.argv[3]) : undefined));
  for (const { figures, lines } of results) {
    console.log(figures.map((f) => `${f.name}: ${(f.medianMs / 1000).toFixed(1)} s (${f.note})`).join('\n'));
    console.log(lines.join('\n'));
  }
}
