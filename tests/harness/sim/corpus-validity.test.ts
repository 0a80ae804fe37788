import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadTaskDefinition as loadTaskDef, specDir as specDirOf } from '../../../harness/index.js';
import { describe, expect, it } from 'vitest';
import { runTaskCheck, renderCheck, listTasks } from '../../../harness/index.js';
import { applyDefects, readCorpus, testFileFor } from '../../../harness/testing.js';
import { HAS_DOCKER, testProvider } from '../../support/docker.js';

/**
 * The corpus half of `harness task check` for every task under spec/: the SIMULATED corpus
 * against the real held-out oracle in real Docker earns every requirement with no defect
 * planted, and trees of planted defects fail exactly the union of what the defect table
 * records. `npm test` grades the quick form (two defect groups, turning with the UTC day);
 * RDH_CORPUS_DEFECTS=default grades two groupings of all the defects and three seeded random
 * subsets (`harness task check`'s default); `npm run corpus:validity` (RDH_CORPUS_DEFECTS=all)
 * grades every defect alone as well.
 * Besides, the corpus passes its own tests in the sandbox image, and each defect fails only its
 * requirement's test file (quick: a quarter of the defects, turning with the day).
 */
const ALL = process.env.RDH_CORPUS_DEFECTS === 'all';
const QUICK = !ALL && process.env.RDH_CORPUS_DEFECTS !== 'default';
const TASKS = await listTasks();
const PER_TASK = 1_800_000;

async function writeTree(files: Record<string, string>, root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

describe.skipIf(!HAS_DOCKER)('the sim corpus under the held-out oracle', () => {
  it.each(TASKS)(
    '%s: passes clean, and its planted defects break exactly what they declare',
    async (task) => {
      const report = await runTaskCheck({ task, parts: ['corpus'], exhaustive: { mutants: false, corpus: ALL }, quick: QUICK, progress: (line) => console.log(line) });
      console.log(renderCheck(report));
      expect(report.properties.filter((p) => p.status === 'fail')).toEqual([]);
      expect(report.properties.filter((p) => p.status === 'pass').map((p) => p.property)).toEqual(['corpus-clean', 'corpus-defects']);
    },
    PER_TASK,
  );

  it.each(TASKS)(
    "%s: passes its own tests in the sandbox image, and each defect fails only its requirement's test file",
    async (task) => {
      const corpus = await readCorpus(await loadTaskDef(specDirOf(task)));
      const workspace = await mkdtemp(path.join(tmpdir(), 'rdh-sim-selftest-'));
      // Quick: a quarter of the defects, turning with the UTC day (every defect within four days).
      const day = Math.floor(Date.now() / 86_400_000);
      const defects = QUICK ? corpus.defects.filter((_, i) => i % 4 === day % 4) : corpus.defects;
      const trees = { clean: corpus.files, ...Object.fromEntries(defects.map((d) => [d.id, applyDefects(corpus.files, [d])])) };
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
          // A defect fails its requirement's test file, and no test file of a requirement it does not break.
          const own = defect ? testFileFor(corpus.files, defect.requirement)! : null;
          const allowed = new Set(defect ? defect.breaks.map((r) => testFileFor(corpus.files, r)) : []);
          const ok = defect ? failing.includes(own!) && failing.every((f) => allowed.has(f)) : failing.length === 0 && /\d+ passed/.test(log);
          if (!ok) wrong.push(`${name}: expected failing [${own ?? ''}] (or test files of what it breaks) got [${failing.join(',')}]`);
        }
        expect(wrong).toEqual([]);
      } finally {
        await sandbox.dispose();
      }
    },
    900_000,
  );
});
