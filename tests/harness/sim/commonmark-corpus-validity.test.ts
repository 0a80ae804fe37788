import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import PQueue from 'p-queue';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { exclusionReason } from '../../../oracle/commonmark/exclusion.js';
import { loadCoverage, packageExamples, requirementByNumber } from '../../../oracle/commonmark/spec-examples.js';
import { loadTaskDefinition as loadTaskDef, specDir as specDirOf } from '../../../harness/index.js';
import { applyDefects, readCorpus, testFileFor } from '../../../harness/testing.js';

/**
 * The local validity check of the SIMULATED commonmark corpus, before the commonmark judge is
 * wired into the grader: mdlite (the corpus's own code, written for the sim, never the oracle's)
 * runs in this process's python3 over the included CommonMark 0.31.2 examples, read at run time
 * from the pinned commonmark-spec package and grouped by requirement with
 * oracle/commonmark/coverage.yaml. The clean corpus passes every in-scope example; each planted
 * defect fails exactly the requirements its `breaks` records; groups of defects with disjoint
 * breaks fail exactly the union (the additivity the closed-form truth assumes); and the corpus's
 * own pytest files pass clean while each defect fails only its requirement's file, so a simulated
 * checker running a tree's tests cannot see a defect of another requirement. The real check,
 * through the grader in Docker, comes with the commonmark judge.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DIR = path.join(ROOT, 'harness/sim/corpus/commonmark');
const RUNNER = path.join(DIR, 'tests/support/run_examples.py');
const corpus = await readCorpus(await loadTaskDef(specDirOf('commonmark')), DIR);
// The examples as the oracle's recipe reads them (tabs restored), and the subset as its exclusion rule decides it.
const coverage = await loadCoverage();
const requirementOf = requirementByNumber(coverage);
const EXAMPLES = (await packageExamples(coverage, ROOT)).filter((t) => requirementOf.has(t.number)).map((t) => ({ number: t.number, markdown: t.markdown, html: t.html }));
const OUT_OF_SCOPE = EXAMPLES.filter((e) => exclusionReason(e.markdown) !== undefined).map((e) => e.number);

const work = await mkdtemp(path.join(tmpdir(), 'rdh-cm-corpus-'));
const examplesFile = path.join(work, 'examples.json');
await writeFile(examplesFile, JSON.stringify(EXAMPLES));
afterAll(() => rm(work, { recursive: true, force: true }));

const runs = new PQueue({ concurrency: 2 });
const PER_RUN = 120_000;
const run = promisify(execFile);
const Output = z.object({ examples: z.number().int(), failed: z.array(z.number().int()) });

/** Writes the files under work/name, program files only unless `withTests`. */
async function writeTree(name: string, files: Record<string, string>, withTests: boolean): Promise<string> {
  const dir = path.join(work, name);
  for (const [rel, text] of Object.entries(files)) {
    if (rel.startsWith('tests/') && !withTests) continue;
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

/** The corpus test files (tests/test_rNN_*.py) that fail in a tree of these files, sorted. */
function failingTestFiles(name: string, files: Record<string, string>): Promise<string[]> {
  return runs.add(async () => {
    const dir = await writeTree(`own-${name}`, files, true);
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
    const out = await run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], { cwd: dir, timeout: PER_RUN, env }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? '',
    );
    if (!/\d+ passed|\d+ failed/.test(out)) throw new Error(`pytest printed no summary for ${name}: ${out.slice(-400)}`);
    return [...new Set([...out.matchAll(/(?:FAILED|ERROR) (tests\/test_r\d\d_\w+\.py)/g)].map((m) => m[1]!))].sort();
  }) as Promise<string[]>;
}

/** The example numbers mdlite fails in a tree of these files (program files only: tests stay out). */
function failedExamples(name: string, files: Record<string, string>): Promise<number[]> {
  return runs.add(async () => {
    const dir = await writeTree(name, files, false);
    // The timeout turns a defect that loops forever into a failed run, not a hung suite.
    const { stdout } = await run('python3', [RUNNER, '--root', dir, examplesFile], { timeout: PER_RUN, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
    const out = Output.parse(JSON.parse(stdout));
    expect(out.examples).toBe(EXAMPLES.length);
    return out.failed;
  }) as Promise<number[]>;
}

const clean = failedExamples('clean', corpus.files);

describe('the included examples', () => {
  it('come from coverage.yaml, every requirement with examples of at least two distinct outputs', () => {
    expect(EXAMPLES.length).toBe(requirementOf.size);
    for (const numbers of Object.values(coverage.requirements)) {
      expect(new Set(numbers.map((n) => EXAMPLES.find((e) => e.number === n)!.html)).size).toBeGreaterThanOrEqual(2);
    }
  });

  it('are all in the subset once tabs are expanded (the recipe restores them, as the spec\'s tooling does)', () => {
    expect(OUT_OF_SCOPE).toEqual([]);
  });
});

describe.concurrent('the commonmark corpus over the included examples', () => {
  it('clean, passes every included example in the subset', async () => {
    expect(await clean).toEqual(OUT_OF_SCOPE);
  }, PER_RUN * 2);

  // Whether each planted defect breaks exactly what it records is decided by the oracle itself, through the grader
  // (harness task check, run for every task by corpus-validity.test.ts): a comparison of its own here let three defects
  // through that the oracle's normaliser forgives.
});

describe.concurrent("the commonmark corpus's own tests", () => {
  it('pass on the clean corpus', async () => {
    expect(await failingTestFiles('clean', corpus.files)).toEqual([]);
  }, PER_RUN * 2);

  it.each(corpus.defects.map((d) => ({ d, id: d.id })))("$id fails its requirement's test file and none of a requirement it does not break", async ({ d }) => {
    const failing = await failingTestFiles(d.id, applyDefects(corpus.files, [d]));
    expect(failing).toContain(testFileFor(corpus.files, d.requirement));
    const allowed = new Set(d.breaks.map((r) => testFileFor(corpus.files, r)));
    expect(failing.filter((f) => !allowed.has(f))).toEqual([]);
  }, PER_RUN * 2);
});
