import { cp, mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CheckReport, EXIT, oracleDir, runCli, specDir } from '../../../harness/index.js';
import { bufferIo, corpusDir } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';

/**
 * `harness task check` on a copy of sqlcsv's oracle and corpus with one planted fault of each
 * property, graded through Docker once (four trees): a mutant that breaks a requirement it
 * does not declare, a case that leaks into a second requirement, and a corpus defect that
 * breaks more than it declares; and, on a second copy, a judge whose comparison of stdout forgives
 * trailing spaces (a lenient normaliser). Each is named, and the command exits non-zero.
 */
const TASK = 'sqlcsv';
/** Declared to break R05 alone; it breaks R36 too. */
const UNDECLARED = 'm-csv-opened-without-newline-arg';
/** Breaks R36 alone; the leaking case is one of R36's, filed under R05. */
const LEAKED_INTO = 'm-csv-quotes-not-doubled';
const LEAKING_CASE = 'R36-csv-quote-doubling';
/** Declared to break R05 alone; it breaks R36 too. */
const DEFECT = 'd-r05-plain-quotes-kept';

const exists = (p: string) => stat(p).then(() => true, () => false);

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

async function plantedCopy(): Promise<{ oracle: string; corpus: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-task-faults-'));
  const oracle = path.join(root, 'oracle');
  const corpus = path.join(root, 'corpus');
  await cp(oracleDir(TASK), oracle, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  await cp(corpusDir(TASK), corpus, { recursive: true, filter: (src) => !src.includes('__pycache__') });

  const mutants = parse(await readFile(path.join(oracle, 'mutants.yaml'), 'utf8')) as Array<{ id: string; breaks: string[] }>;
  mutants.find((m) => m.id === UNDECLARED)!.breaks = ['R05'];
  await writeFile(path.join(oracle, 'mutants.yaml'), stringify(mutants));

  const files = await readdir(path.join(oracle, 'cases'));
  const cases = (await Promise.all(files.map(async (f) => parse(await readFile(path.join(oracle, 'cases', f), 'utf8')) as Array<{ id: string; req: string }>))).flat();
  const leak = { ...cases.find((c) => c.id === LEAKING_CASE)!, id: 'R05-leak', req: 'R05' };
  await writeFile(path.join(oracle, 'cases', 'zz-leak.yaml'), stringify([leak]));

  const defects = parse(await readFile(path.join(corpus, 'defects.yaml'), 'utf8')) as Array<{ id: string; breaks: string[] }>;
  defects.find((d) => d.id === DEFECT)!.breaks = ['R05'];
  await writeFile(path.join(corpus, 'defects.yaml'), stringify(defects));
  return { oracle, corpus };
}

/** An output-format mutant: table lines right-stripped, which only an exact comparison of stdout sees. */
const TRAILING = 'm-table-trailing-spaces-trimmed';
/** The judge's exact stdout comparison, and a lenient one that forgives trailing spaces on every line (as a careless normaliser would). */
const EXACT = 'if "stdout" in exp and out != exp["stdout"]:';
const LENIENT = 'if "stdout" in exp and [l.rstrip() for l in out.splitlines()] != [l.rstrip() for l in exp["stdout"].splitlines()]:';

async function lenientCopy(): Promise<string> {
  const oracle = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-task-lenient-')), 'oracle');
  await cp(oracleDir(TASK), oracle, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  const judge = path.join(oracle, 'judge.py');
  const text = await readFile(judge, 'utf8');
  expect(text.split(EXACT).length).toBe(2);
  await writeFile(judge, text.replace(EXACT, LENIENT));
  return oracle;
}

describe('harness task check', () => {
  it('passes the static part of sqlcsv and prints JSON a CI can read', async () => {
    const { code, stdout } = await run('task', 'check', TASK, '--only', 'static', '--json');
    const report = CheckReport.parse(JSON.parse(stdout));
    expect(report.properties.filter((p) => p.status === 'fail')).toEqual([]);
    expect(code).toBe(EXIT.ok);
  });

  it('refuses what is not a task, with a one-line usage error', async () => {
    expect(await run('task', 'check', '../spec')).toMatchObject({ code: EXIT.usage, stderr: expect.stringContaining('is not a task name') });
    expect((await run('task', 'check', 'no-such-task')).code).toBe(EXIT.usage);
    expect(await run('task', 'check', TASK, '--only', 'mutant')).toMatchObject({ code: EXIT.usage });
  });

  it.skipIf(!HAS_DOCKER)('names each planted fault and exits non-zero', { timeout: 900_000 }, async () => {
    const { oracle, corpus } = await plantedCopy();
    const { code, stdout, stderr } = await run(
      'task', 'check', TASK, '--oracle-dir', oracle, '--corpus-dir', corpus, '--spec-dir', specDir(TASK),
      '--only', 'mutants,corpus', '--mutants', `${UNDECLARED},${LEAKED_INTO}`, '--defects', DEFECT, '--json',
    );
    const report = CheckReport.parse(JSON.parse(stdout));
    const failures = Object.fromEntries(report.properties.filter((p) => p.status === 'fail').map((p) => [p.property, p.failures]));
    expect(Object.keys(failures).sort()).toEqual(['corpus-defects', 'isolation', 'mutants-exact']);
    expect(failures['mutants-exact']).toEqual([`${UNDECLARED}: fails R36, undeclared`, `${LEAKED_INTO}: fails R05, undeclared`]);
    expect(failures.isolation).toContain(`case R05-leak (R05) fails under ${LEAKED_INTO}, which declares breaking R36: R05 declares no dependency on them in task.yaml`);
    expect(failures.isolation!.every((f) => f.includes(`under ${UNDECLARED}`) ? /\(R36\)/.test(f) : f.includes('R05-leak'))).toBe(true);
    expect(failures['corpus-defects']).toEqual([`${DEFECT} (${DEFECT}): fails R36, undeclared`]);
    expect(report.gradings).toBe(4);
    expect(code).toBe(EXIT.propertyFailed);
    expect(stderr).toContain('graded 4/4');
  });

  it.skipIf(!HAS_DOCKER)('names an output mutant that a lenient comparison lets pass, and exits non-zero', { timeout: 600_000 }, async () => {
    const oracle = await lenientCopy();
    const { code, stdout } = await run('task', 'check', TASK, '--oracle-dir', oracle, '--spec-dir', specDir(TASK), '--only', 'mutants', '--mutants', TRAILING, '--json');
    const report = CheckReport.parse(JSON.parse(stdout));
    const failures = Object.fromEntries(report.properties.filter((p) => p.status === 'fail').map((p) => [p.property, p.failures]));
    // Two properties see it: the mutant no longer breaks what it declares, and its sentence's cases no longer fail.
    expect(failures).toEqual({
      'mutants-exact': [`${TRAILING}: passes R35, declared broken`],
      'sentence-kills': [`${TRAILING} in ${TRAILING}: no case mapped to s6.2-07 fails`],
    });
    expect(code).toBe(EXIT.propertyFailed);
  });
});
