import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeSweepJournalFixture } from '../support/sweep-fixture.js';
import { cap3PairBench } from './cap3-pair.bench.js';
import { figure, type Figure } from './stats.js';
import { sizeOf, sweepPageWeight } from './site.bench.js';

/**
 * Issue 22, "the sweep at full scale" (`npm run bench -- scale`): a SYNTHETIC journal of 23,000+
 * sessions (tests/support/sweep-fixture.ts: the committed example's journal and cells repeated as
 * further repetitions, real event shapes) measured three ways, each a child process under
 * /usr/bin/time for its wall time and peak memory (the largest resident set of the process tree):
 * - resume: `harness record MANIFEST --out RUN --allow-code-change` on the folder, every cell
 *   already measured, so it re-opens the journal, rebuilds the history, spends nothing, and
 *   writes the summary and report as a resume does;
 * - `harness report RUN`;
 * - `./make_site.sh RUN`, with the sweep page's weight (HTML and the chart images it names).
 * Then the Docker cap-3 pair over HTTP (cap3-pair.bench.ts).
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
const SESSIONS = 23_000;

interface Timed {
  ms: number;
  /** Peak resident set, bytes, of the largest process of the child's tree (GNU time's %M). */
  rss: number;
  exit: number;
  load: number;
}

/** Runs `argv` under /usr/bin/time; its last stderr line carries the figures. */
async function timed(argv: string[], cwd = REPO): Promise<Timed> {
  const load = loadavg()[0]!;
  const started = performance.now();
  const run = promisify(execFile)('/usr/bin/time', ['-f', 'RDH_TIME %M', ...argv], { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 512 * 1024 * 1024 }).then(
    (r) => ({ stderr: r.stderr, exit: 0 }),
    (e: { stderr?: string; code?: number }) => ({ stderr: e.stderr ?? '', exit: typeof e.code === 'number' ? e.code : 1 }),
  );
  const { stderr, exit } = await run;
  const ms = performance.now() - started;
  const kb = /RDH_TIME (\d+)/.exec(stderr)?.[1];
  if (kb === undefined) throw new Error(`no figures from /usr/bin/time for ${argv.join(' ')}: ${stderr.slice(-500)}`);
  return { ms, rss: Number(kb) * 1024, exit, load };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const line = (what: string, t: Timed) => `  ${what}: ${secs(t.ms)} wall, peak RSS ${mb(t.rss)}, exit ${t.exit} (load average ${t.load.toFixed(1)} at the start)`;

export async function fullScaleBench(sessions = SESSIONS): Promise<{ figures: Figure[]; lines: string[] }> {
  const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-scale-bench-'));
  try {
    const made = performance.now();
    const run = path.join(tmp, 'runs', 'sweep');
    const f = await writeSweepJournalFixture(run, path.join(REPO, 'runs', 'example-sim'), sessions, REPO);
    const madeMs = performance.now() - made;
    const bin = path.join(REPO, 'harness', 'bin.js');
    const resume = await timed(['node', bin, 'record', f.manifest, '--out', run, '--allow-code-change']);
    const report = await timed(['node', bin, 'report', run]);
    const dist = path.join(tmp, 'dist');
    const site = await timed([path.join(REPO, 'make_site.sh'), '--out', dist, '--data', path.join(tmp, 'data'), run]);
    const out = await sizeOf(dist);
    const page = await sweepPageWeight(dist, 'sweep');
    return {
      figures: [
        figure(`resume: ${f.sessions.toLocaleString('en-US')}-session journal, nothing left`, [resume.ms], undefined, `peak RSS ${mb(resume.rss)}, exit ${resume.exit}`),
        figure(`report: ${f.sessions.toLocaleString('en-US')}-session journal`, [report.ms], undefined, `peak RSS ${mb(report.rss)}, exit ${report.exit}`),
        figure(`site build: ${f.sessions.toLocaleString('en-US')}-session journal`, [site.ms], undefined, `peak RSS ${mb(site.rss)}, ${mb(out.bytes)} out, exit ${site.exit}`),
      ],
      lines: [
        `full scale: a SYNTHETIC sweep of ${f.sessions.toLocaleString('en-US')} sessions (${f.copies} copies of runs/example-sim's ${f.cells / f.copies} cells, ${f.cells} cells) made in ${secs(madeMs)}`,
        `  journal: ${f.events.toLocaleString('en-US')} events, ${mb(f.journalBytes)}; transcripts ${mb(f.bytes)}`,
        line('resume (harness record --out RUN, every cell measured)', resume),
        line('harness report RUN', report),
        line('./make_site.sh RUN', site),
        `  site: ${out.files.toLocaleString('en-US')} files, ${mb(out.bytes)}; sweep page ${((page.html + page.images) / 1000).toFixed(0)} KB (HTML ${(page.html / 1000).toFixed(0)} KB, chart images ${(page.images / 1000).toFixed(0)} KB)`,
      ],
    };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Both measurements: the synthetic journal at full scale, then the Docker cap-3 pair over HTTP. */
export async function scaleBench(): Promise<{ figures: Figure[]; lines: string[] }> {
  const results = [await fullScaleBench(), await cap3PairBench()];
  return { figures: results.flatMap((r) => r.figures), lines: results.flatMap((r) => r.lines) };
}

// `npx tsx tests/bench/scale.bench.ts [journal [SESSIONS] | pair]` runs one of the two alone.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const which = process.argv[2];
  const r = which === 'journal' ? await fullScaleBench(process.argv[3] ? Number(process.argv[3]) : undefined) : which === 'pair' ? await cap3PairBench() : await scaleBench();
  console.log(r.figures.map((f) => `${f.name}: ${(f.medianMs / 1000).toFixed(1)} s (${f.note})`).join('\n'));
  console.log(r.lines.join('\n'));
}
