import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckReport, EXIT, oracleDir, REPO_ROOT, runCli, specDir } from '../../../harness/index.js';
import { bufferIo, corpusDir } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';

/**
 * `harness task check` on a copy of commonmark's oracle and corpus with one planted fault of
 * each property (the counterpart of task-check-faults.test.ts for a task whose cases a recipe
 * derives from a pinned package). One run grades four trees: a mutant that breaks a requirement
 * it does not declare, an example moved into a requirement that declares no dependency on the
 * one it exercises, and a corpus defect that breaks more than it declares. A second run, on a
 * copy whose normaliser drops tags, grades one mutant whose bug is in the markup alone: it no
 * longer fails what it declares, and the check names it. Each run exits non-zero.
 */
const TASK = 'commonmark';
/** Declared to break R07 alone; it breaks R08 too (example 143). */
const UNDECLARED = 'm-closing-fence-exact-length';
/** Breaks R02 alone, failing examples 43 and 50; example 50 is moved to R13, which depends on R09 and R33 only. */
const LEAKED_INTO = 'm-underscore-thematic-break-missing';
const MOVED = { example: 50, from: 'R02', to: 'R13' };
/** Declared to break R11 alone; it breaks R05 too. */
const DEFECT = 'd-r11-no-lazy-lines';
/** Renders strong as nested emphasis and the like: wrong tags, right text. */
const MARKUP_ONLY = 'm-emphasis-before-strong';

/** What tests/oracle/commonmark/normalize-proof.test.ts calls lenient: tags dropped, whitespace collapsed. */
const LENIENT = `def normalize(markup, whitespace="spec"):
    return re.sub(r"\\s+", " ", re.sub(r"<[^>]*>", "", markup)).strip()
`;

interface Faults {
  undeclared: boolean;
  leak: boolean;
  defect: boolean;
  lenient: boolean;
}

/** The temp roots made, removed at the end (rm removes their links, not what they point to). */
const roots: string[] = [];
afterAll(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** Edits a YAML file; the copy must differ by the edit alone, so the text is checked to read back as written. */
async function editYaml<T>(file: string, edit: (value: T) => void): Promise<void> {
  const value = parse(await readFile(file, 'utf8')) as T;
  edit(value);
  // Folded long lines do not read back the same (the defect table's indented Python would lose its blank lines).
  const text = stringify(value, { lineWidth: 0 });
  expect(parse(text), file).toEqual(value);
  await writeFile(file, text);
}

/**
 * A copy of the oracle at <root>/oracle/commonmark and of the corpus, faults planted. The
 * recipe's modules import `../../harness/...` and find node_modules and spec/ two folders up,
 * so the temp root links those three to the repository's.
 */
async function plantedCopy(faults: Faults): Promise<{ oracle: string; corpus: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-task-faults-cm-'));
  roots.push(root);
  for (const dir of ['harness', 'node_modules', 'spec']) await symlink(path.join(REPO_ROOT, dir), path.join(root, dir));
  const oracle = path.join(root, 'oracle', TASK);
  const corpus = path.join(root, 'corpus');
  const skipCache = (src: string) => !src.includes('__pycache__');
  await cp(oracleDir(TASK), oracle, { recursive: true, filter: skipCache });
  await cp(corpusDir(TASK), corpus, { recursive: true, filter: skipCache });

  type Declared = Array<{ id: string; breaks: string[] }>;
  if (faults.undeclared) await editYaml<Declared>(path.join(oracle, 'mutants.yaml'), (ms) => void (ms.find((m) => m.id === UNDECLARED)!.breaks = ['R07']));
  if (faults.leak) {
    await editYaml<{ requirements: Record<string, number[]> }>(path.join(oracle, 'coverage.yaml'), ({ requirements: r }) => {
      if (!r[MOVED.from]!.includes(MOVED.example)) throw new Error(`coverage.yaml: example ${MOVED.example} is not ${MOVED.from}'s`);
      r[MOVED.from] = r[MOVED.from]!.filter((n) => n !== MOVED.example);
      r[MOVED.to] = [...r[MOVED.to]!, MOVED.example].sort((a, b) => a - b);
    });
  }
  if (faults.defect) await editYaml<Declared>(path.join(corpus, 'defects.yaml'), (ds) => void (ds.find((d) => d.id === DEFECT)!.breaks = ['R11']));
  if (faults.lenient) {
    const file = path.join(oracle, 'normalize.py');
    const source = await readFile(file, 'utf8');
    const at = source.indexOf('\ndef normalize(markup, whitespace="spec"):');
    if (at < 0) throw new Error('normalize.py: no normalize(markup, whitespace) to replace');
    await writeFile(file, `${source.slice(0, at + 1)}${LENIENT}`);
  }
  return { oracle, corpus };
}

async function check(faults: Faults, ...selection: string[]) {
  const { oracle, corpus } = await plantedCopy(faults);
  const { code, stdout, stderr } = await run('task', 'check', TASK, '--oracle-dir', oracle, '--corpus-dir', corpus, '--spec-dir', specDir(TASK), ...selection, '--json');
  // A refusal (a usage error, an oracle that does not load) prints no report; its stderr says why.
  if (!stdout) throw new Error(`task check exited ${code} with no report: ${stderr}`);
  const report = CheckReport.parse(JSON.parse(stdout));
  const failures = Object.fromEntries(report.properties.filter((p) => p.status === 'fail').map((p) => [p.property, p.failures]));
  return { code, stderr, report, failures };
}

const ALL: Faults = { undeclared: true, leak: true, defect: true, lenient: false };

describe('harness task check commonmark', () => {
  it('passes the static part from the command line, and still does with the example moved (the leak is the gradings\' to find)', { timeout: 60_000 }, async () => {
    const own = await run('task', 'check', TASK, '--only', 'static', '--json');
    expect(CheckReport.parse(JSON.parse(own.stdout)).properties.filter((p) => p.status === 'fail')).toEqual([]);
    expect(own.code).toBe(EXIT.ok);
    const moved = await check(ALL, '--only', 'static');
    expect(moved.failures).toEqual({});
    expect(moved.report.properties.find((p) => p.property === 'example-map')?.status).toBe('pass');
    expect(moved.code).toBe(EXIT.ok);
  });

  it.skipIf(!HAS_DOCKER)('names an undeclared break, a leaking example and an undeclared defect break, and exits non-zero', { timeout: 600_000 }, async () => {
    const { code, stderr, report, failures } = await check(ALL, '--only', 'mutants,corpus', '--mutants', `${UNDECLARED},${LEAKED_INTO}`, '--defects', DEFECT);
    expect(failures).toEqual({
      'mutants-exact': [`${UNDECLARED}: fails R08, undeclared`, `${LEAKED_INTO}: fails R13, undeclared`],
      isolation: [`case R13-ex50 (R13) fails under ${LEAKED_INTO}, which declares breaking R02: R13 declares no dependency on them in task.yaml`],
      'corpus-defects': [`${DEFECT} (${DEFECT}): fails R05, undeclared`],
    });
    expect(report.gradings).toBe(4);
    expect(code).toBe(EXIT.propertyFailed);
    expect(stderr).toContain('graded 4/4');
  });

  it.skipIf(!HAS_DOCKER)('names a markup-only mutant that a lenient normaliser lets pass, and exits non-zero', { timeout: 300_000 }, async () => {
    const { code, report, failures } = await check({ undeclared: false, leak: false, defect: false, lenient: true }, '--only', 'mutants', '--mutants', MARKUP_ONLY);
    expect(failures).toEqual({ 'mutants-exact': [`${MARKUP_ONLY}: passes R20, R21, R22, R23, R24, R25, R26, R27, R28, R29, declared broken`] });
    expect(report.gradings).toBe(1);
    expect(code).toBe(EXIT.propertyFailed);
  });
});
