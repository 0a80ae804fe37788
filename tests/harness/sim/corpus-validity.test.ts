import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { describe, expect, it } from 'vitest';
import { SQLCSV_REQUIREMENTS, applyDefects, gradeTree, readCorpus, testFileFor, type PlantedDefect } from '../../../harness/index.js';
import { HAS_DOCKER, testProvider } from '../../support/docker.js';

/**
 * The sim corpus against the real held-out oracle in real Docker: the clean corpus earns 42/42,
 * each planted defect alone fails exactly the requirements the table records, and defects of
 * several requirements together fail exactly the union (the additivity the closed-form truth
 * assumes). Gradings run two at a time; the per-case limit is generous so that a loaded machine
 * cannot turn a slow case into a recorded breakage.
 */
const corpus = await readCorpus();
const GRADE = { caseTimeoutMs: 15_000 };

async function writeTree(files: Record<string, string>, root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

const failedOf = async (tree: string) => (await gradeTree({ tree, ...GRADE })).requirements.filter((r) => !r.pass).map((r) => r.id);

/** Defects of different requirements whose recorded breakages do not overlap, chosen by a stride. */
function disjointGroup(start: number, stride: number): PlantedDefect[] {
  const group: PlantedDefect[] = [];
  const broken = new Set<string>();
  for (let i = start; i < SQLCSV_REQUIREMENTS.length; i += stride) {
    const d = corpus.defects.find((x) => x.requirement === SQLCSV_REQUIREMENTS[i] && x.breaks.every((b) => !broken.has(b)));
    if (!d) continue;
    group.push(d);
    d.breaks.forEach((b) => broken.add(b));
  }
  return group;
}

const root = await mkdtemp(path.join(tmpdir(), 'rdh-sim-corpus-'));
const gradings = new PQueue({ concurrency: 2 });
const failedIn = (name: string, files: Record<string, string>) => gradings.add(async () => failedOf(await writeTree(files, root, name)));
const GROUPS = [disjointGroup(0, 5), disjointGroup(2, 4)];
const PER_GRADING = 900_000;

// Concurrent tests, two gradings at a time: each defect is its own test, so a failure names it.
describe.skipIf(!HAS_DOCKER).concurrent('the sim corpus under the held-out oracle', () => {
  it('grades the clean corpus 42/42', async () => {
    expect(await failedIn('clean', corpus.files)).toEqual([]);
  }, PER_GRADING);

  it.each(corpus.defects)('$id alone fails exactly $breaks', async (d) => {
    expect(await failedIn(d.id, applyDefects(corpus.files, [d]))).toEqual([...d.breaks].sort());
  }, PER_GRADING);

  it.each(GROUPS.map((g) => ({ g, names: g.map((d) => d.requirement).join('+') })))('defects of $names together fail exactly the union', async ({ g, names }) => {
    expect(g.length).toBeGreaterThanOrEqual(6);
    expect(await failedIn(names, applyDefects(corpus.files, g))).toEqual(g.flatMap((d) => d.breaks).sort());
  }, PER_GRADING);

  it(
    "passes its own tests in the sandbox image, and each defect fails only its requirement's test file",
    async () => {
      const workspace = await mkdtemp(path.join(tmpdir(), 'rdh-sim-selftest-'));
      const trees = { clean: corpus.files, ...Object.fromEntries(corpus.defects.map((d) => [d.id, applyDefects(corpus.files, [d])])) };
      for (const [name, files] of Object.entries(trees)) await writeTree(files, workspace, name);
      const sandbox = await testProvider().create({ workspaceDir: workspace, runId: 'sim-corpus-selftest', purpose: 'sim corpus tests' });
      try {
        const run = await sandbox.exec(
          `for t in */; do t=\${t%/}; (cd "$t" && python3 -m pytest -q -p no:cacheprovider tests > "../$t.log" 2>&1; echo "$t $?"); done`,
          { timeoutMs: 600_000, env: { PYTHONDONTWRITEBYTECODE: '1' } },
        );
        expect(run.exitCode).toBe(0);
        const wrong: string[] = [];
        for (const [name] of Object.entries(trees)) {
          const log = await sandbox.readFile(`${name}.log`);
          const failing = [...new Set([...log.matchAll(/(?:FAILED|ERROR) (tests\/test_r\d\d_\w+\.py)/g)].map((m) => m[1]!))].sort();
          const defect = corpus.defects.find((d) => d.id === name);
          const expected = defect ? [testFileFor(corpus.files, defect.requirement)!] : [];
          if (failing.join() !== expected.join() || (!defect && !/\d+ passed/.test(log))) wrong.push(`${name}: expected failing [${expected.join(',')}] got [${failing.join(',')}]`);
        }
        expect(wrong).toEqual([]);
      } finally {
        await sandbox.dispose();
      }
    },
    900_000,
  );
});
