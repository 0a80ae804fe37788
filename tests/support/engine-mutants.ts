/**
 * `npm run mutants:engine`: keeps the engine's tests honest. For each mutant in
 * tests/engine/mutants.yaml (a small patch that removes one court mechanism), it patches a
 * scratch copy of the repository, runs the one test that names the mechanism, and fails if
 * that test still passes. A patch that no longer applies, or a test that fails before any
 * patch, is an error too: the list must stay true of the code.
 *
 * Options (environment): MUTANT_JOBS (scratch copies run at once, default 2), MUTANT_ONLY
 * (comma-separated mutant ids), MUTANT_TIMEOUT_S (per run, default 180).
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LIST = path.join(ROOT, 'tests/engine/mutants.yaml');
const COPIED = ['engine', 'harness', 'tests', 'oracle', 'spec', 'manifests', 'package.json', 'tsconfig.json', 'vitest.config.ts'];

const Mutant = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    /** The issue item or court mechanism it removes: 1-17, gate, falsification, monitor. */
    item: z.union([z.number().int(), z.string()]).transform(String),
    removes: z.string().min(1),
    edits: z.array(z.object({ file: z.string(), find: z.string().min(1), replace: z.string() }).strict()).min(1),
    test: z.object({ file: z.string(), name: z.string().min(1) }).strict(),
  })
  .strict();
type Mutant = z.infer<typeof Mutant>;

interface RunOutcome {
  matched: number;
  failed: number;
  timedOut: boolean;
  seconds: number;
  detail: string;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Runs the named tests of `files` in `dir`, and counts how many matched and how many failed. */
async function runTests(dir: string, files: string[], names: string[], timeoutMs: number): Promise<RunOutcome> {
  const report = path.join(dir, `.vitest-report-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
  const started = performance.now();
  const args = ['vitest', 'run', ...files, '-t', names.map(escapeRegex).join('|'), '--reporter=json', `--outputFile=${report}`];
  const child = spawn('npx', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' }, detached: true });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, timeoutMs);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  if (timedOut) return { matched: 0, failed: 0, timedOut, seconds, detail: 'timed out' };
  const json = await readFile(report, 'utf8').then(JSON.parse, () => null);
  await rm(report, { force: true });
  if (!json) return { matched: 0, failed: 0, timedOut, seconds, detail: `no report; vitest said: ${stderr.trim().split('\n').slice(-5).join(' | ')}` };
  const results = (json.testResults as Array<{ assertionResults: Array<{ title: string; fullName: string; status: string }> }>).flatMap((f) => f.assertionResults);
  const ran = results.filter((r) => r.status === 'passed' || r.status === 'failed');
  return { matched: ran.length, failed: ran.filter((r) => r.status === 'failed').length, timedOut, seconds, detail: '' };
}

async function scratchCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-mutants-'));
  for (const entry of COPIED) await cp(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Every edit's text must occur exactly once in the pristine file, or the list no longer describes the code. */
async function checkApplies(mutants: Mutant[]): Promise<string[]> {
  const problems: string[] = [];
  for (const m of mutants) {
    for (const e of m.edits) {
      const text = await readFile(path.join(ROOT, e.file), 'utf8').catch(() => null);
      const count = text === null ? -1 : text.split(e.find).length - 1;
      if (count !== 1) problems.push(`${m.id}: ${e.file} ${count < 0 ? 'does not exist' : `holds the patched text ${count} times, not once`}`);
    }
  }
  return problems;
}

async function withMutant<T>(dir: string, m: Mutant, fn: () => Promise<T>): Promise<T> {
  const originals = new Map<string, string>();
  for (const e of m.edits) {
    const file = path.join(dir, e.file);
    const text = originals.get(file) ?? (await readFile(file, 'utf8'));
    if (!originals.has(file)) originals.set(file, text);
    await writeFile(file, (await readFile(file, 'utf8')).replace(e.find, () => e.replace));
  }
  try {
    return await fn();
  } finally {
    for (const [file, text] of originals) await writeFile(file, text);
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const only = process.env.MUTANT_ONLY?.split(',').filter(Boolean);
  const jobs = Math.max(1, Number(process.env.MUTANT_JOBS ?? 2));
  const timeoutMs = Number(process.env.MUTANT_TIMEOUT_S ?? 180) * 1000;
  const all = z.array(Mutant).parse(parse(await readFile(LIST, 'utf8')));
  const mutants = only ? all.filter((m) => only.includes(m.id)) : all;
  const ids = new Set<string>();
  for (const m of all) {
    if (ids.has(m.id)) throw new Error(`mutants.yaml: id ${m.id} appears twice`);
    ids.add(m.id);
  }
  console.log(`${mutants.length} mutant(s) from tests/engine/mutants.yaml, ${jobs} at a time`);

  const problems = await checkApplies(mutants);
  if (problems.length) {
    console.error(`patches that no longer apply:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    return 1;
  }
  const dirs = await Promise.all(Array.from({ length: Math.min(jobs, mutants.length) }, scratchCopy));
  try {
    // Unpatched, every named test must run and pass, or a "kill" would mean nothing.
    const baseline = await runTests(dirs[0]!, [...new Set(mutants.map((m) => m.test.file))], [...new Set(mutants.map((m) => m.test.name))], timeoutMs * 2);
    if (baseline.failed || baseline.timedOut || !baseline.matched) {
      console.error(`baseline: ${baseline.failed} of ${baseline.matched} named test(s) fail without any patch${baseline.detail ? ` (${baseline.detail})` : ''}; fix them first`);
      return 1;
    }
    console.log(`baseline: ${baseline.matched} named test(s) pass unpatched (${baseline.seconds.toFixed(1)} s)\n`);

    const rows: Array<{ m: Mutant; verdict: string; seconds: number }> = [];
    const queue = [...mutants];
    await Promise.all(
      dirs.map(async (dir) => {
        for (let m = queue.shift(); m; m = queue.shift()) {
          const run = await withMutant(dir, m, () => runTests(dir, [m.test.file], [m.test.name], timeoutMs));
          const verdict = run.timedOut ? 'KILLED (timed out)' : run.failed ? 'KILLED' : run.matched ? 'SURVIVED' : `ERROR: test not found ${run.detail}`;
          rows.push({ m, verdict, seconds: run.seconds });
          console.log(`${verdict.padEnd(18)} ${m.id.padEnd(36)} item ${m.item.padEnd(13)} ${run.seconds.toFixed(1).padStart(6)} s  ${m.test.file.replace('tests/engine/', '')} > ${m.test.name}`);
        }
      }),
    );
    const bad = rows.filter((r) => !r.verdict.startsWith('KILLED'));
    const total = (performance.now() - started) / 1000;
    console.log(`\n${rows.length - bad.length} of ${rows.length} mutants killed in ${total.toFixed(0)} s (${jobs} scratch copies)`);
    for (const r of bad) console.error(`${r.verdict}: ${r.m.id} removes "${r.m.removes}" and ${r.m.test.file} > "${r.m.test.name}" did not notice`);
    return bad.length ? 1 : 0;
  } finally {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
