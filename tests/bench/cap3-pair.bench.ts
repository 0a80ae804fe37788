import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, loadManifest, readRecordedRun, runRecord, startSimServer } from '../../harness/index.js';
import { figure, type Figure } from './stats.js';

/**
 * Issue 22, "the sweep at full scale": one Docker cap-3 pair recorded end to end over HTTP, as
 * the check that graded trees, staging and merges hold at depth. The SIMULATED population is
 * served in process by `startSimServer` on a free loopback port; `harness record` reaches it
 * through the real openai SDK path (a provider file pointing at it), with real Docker
 * sandboxes and the oracle's grading of every merged node (grade_merges, on for a SIMULATED
 * sweep). The manifest is tests/bench/fixtures/cap3-http.yaml: one pair, both arms, shared
 * pairing, a binary tree so it stays within about 25 minutes on 2 cores.
 */

export const CAP3_MANIFEST = path.join(REPO_ROOT, 'tests/bench/fixtures/cap3-http.yaml');
/** The variable the bench's provider file names; the simulated server checks no key. */
const KEY_ENV = 'RDH_BENCH_SIM_HTTP_KEY';

/** A provider file for the server at `url`: the SIMULATED ids keep their tag over HTTP, made-up prices as manifests/providers.sim-http.yaml's. */
async function providersFile(dir: string, url: string): Promise<string> {
  const model = (id: string, family: string) => `  ${id}:\n    provider: sim-http\n    model: "${id} (SIMULATED)"\n    family: ${family}\n    price_usd_per_million: { input: 1, output: 2, cached_input: 0.1 }\n`;
  const file = path.join(dir, 'providers.yaml');
  await writeFile(file, ['version: 1', 'providers:', `  sim-http:\n    base_url: ${url}\n    api_key_env: ${KEY_ENV}\n`, 'models:', model('sim-executor', 'sim-alpha'), model('sim-reviewer', 'sim-beta')].join('\n'));
  return file;
}

export interface Cap3PairFigures {
  exit: number;
  ms: number;
  sessions: number;
  cells: { measured: number; staged: number };
  merges: { graded: number; notGradable: number; total: number };
  /** Survival of claims in the graded root tree, per arm (surviving / claimed). */
  survival: Record<string, { survived: number; claimed: number }>;
  /** Chat calls the server answered 200, and calls it answered more than once (paid twice). */
  calls: { answered: number; paidTwice: number };
  load: number;
}

/** Records the pair once into a scratch folder and reads back what the check needs. */
export async function recordCap3Pair(): Promise<Cap3PairFigures> {
  const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-cap3-bench-'));
  process.env[KEY_ENV] ??= 'sk-bench-not-a-real-key-0000';
  const server = await startSimServer({ port: 0, manifest: await loadManifest(CAP3_MANIFEST), log: () => undefined });
  try {
    const providers = await providersFile(tmp, server.url);
    const out = path.join(tmp, 'cap3-http');
    const load = loadavg()[0]!;
    const started = performance.now();
    const result = await runRecord(CAP3_MANIFEST, { out, providers }, { out: () => undefined, err: () => undefined, isTty: false });
    const ms = performance.now() - started;
    const recorded = await readRecordedRun(out, out);
    // One invocation, so each cell finished once: its measured result carries its merges and their grades.
    const measured = recorded.events.flatMap((e) => (e.type === 'cell_finished' && e.outcome.status === 'measured' ? [e.outcome.result] : []));
    const merges = measured.flatMap((c) => c.merges);
    const survival = Object.fromEntries(result.summary.cells.flatMap((c) => (c.survival ? [[c.cell, c.survival]] : [])));
    const stats = server.stats();
    const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8')) as { sessions: { counted: number } };
    return {
      exit: result.exit,
      ms,
      sessions: summary.sessions.counted,
      cells: { measured: result.summary.counts.measured, staged: result.summary.counts.staged },
      merges: { graded: merges.filter((m) => m.grade?.status === 'graded').length, notGradable: merges.filter((m) => m.grade?.status === 'not_gradable').length, total: merges.length },
      survival,
      calls: { answered: stats.answered, paidTwice: Object.values(stats.calls).filter((c) => c.answered > 1).length },
      load,
    };
  } finally {
    await server.stop();
    // RDH_BENCH_KEEP=1 keeps the run folder to read afterwards (its path is printed).
    if (process.env.RDH_BENCH_KEEP === '1') console.error(`cap-3 pair: run folder kept in ${tmp}`);
    else await rm(tmp, { recursive: true, force: true });
  }
}

export async function cap3PairBench(): Promise<{ figures: Figure[]; lines: string[] }> {
  const r = await recordCap3Pair();
  const arms = Object.entries(r.survival).map(([cell, s]) => `${cell} ${s.survived}/${s.claimed} (${(s.survived / s.claimed).toFixed(3)})`);
  return {
    figures: [figure('record: one cap-3 pair over HTTP (SIMULATED, Docker)', [r.ms], undefined, `exit ${r.exit}; ${r.cells.measured}/${r.cells.staged} cells measured, ${r.sessions} sessions, ${r.merges.graded} merges graded`)],
    lines: [
      `cap-3 pair over HTTP (tests/bench/fixtures/cap3-http.yaml, SIMULATED, Docker): exit ${r.exit}, ${(r.ms / 60_000).toFixed(1)} min wall (load average ${r.load.toFixed(1)} at the start)`,
      `  ${r.sessions} sessions, ${r.calls.answered} chat calls answered by the server (${r.calls.paidTwice} paid twice); ${r.cells.measured} of ${r.cells.staged} cells measured`,
      `  merges: ${r.merges.total} in both arms, ${r.merges.graded} graded by the oracle, ${r.merges.notGradable} not gradable`,
      `  survival of the root's claims: ${arms.join('; ')}`,
    ],
  };
}

// `npx tsx tests/bench/cap3-pair.bench.ts` runs this one alone.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { figures, lines } = await cap3PairBench();
  console.log(figures.map((f) => `${f.name}: ${(f.medianMs / 1000).toFixed(1)} s (${f.note})`).join('\n'));
  console.log(lines.join('\n'));
}
