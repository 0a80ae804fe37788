import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { describe, expect, it } from 'vitest';
import { applyMutant, gradeTree, loadMutants, oracleDir, type GradeResult } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, SLACK, tree } from './hostile-trees.js';

const ORACLE = oracleDir('sqlcsv');
const USAGE = 'usage: python3 -m sqlcsv --data DIR [--format table|csv|json] SQL\n';

/** Per-case verdicts of a grading, keyed by case id: what two ways of running must agree on. */
const verdicts = (r: GradeResult) =>
  Object.fromEntries(r.requirements.flatMap((q) => q.failures.map((f) => [f.case, f.reason] as const)).sort(([a], [b]) => a.localeCompare(b)));

/** A program that ignores its input: the same stdout, stderr and exit status for every case. */
function constant(exit: number, stdout: string, stderr: string): Record<string, string> {
  return {
    'sqlcsv/__init__.py': '',
    'sqlcsv/__main__.py': `import sys\nsys.stdout.write(${JSON.stringify(stdout)})\nsys.stderr.write(${JSON.stringify(stderr)})\nsys.exit(${exit})\n`,
  };
}

const MUTANTS = await loadMutants(ORACLE);
/** Two gradings at once: each container has 2 CPUs, and a 2-core machine gains nothing from more. */
const queue = new PQueue({ concurrency: 2 });
let root: Promise<string> | undefined;

describe.skipIf(!HAS_DOCKER)('the oracle discriminates per requirement (graded in Docker)', { timeout: DOCKER_TIMEOUT * 4 }, () => {
  it.concurrent.each(MUTANTS.map((m) => [m.id, m] as const))(
    '%s fails exactly the requirements it is recorded to break, and the fast path and one interpreter per case agree on every case',
    async (_id, m) => {
      root ??= mkdtemp(path.join(tmpdir(), 'rdh-mutants-'));
      const dir = path.join(await root, m.id);
      await applyMutant(path.join(ORACLE, 'reference'), m, dir);
      const fast = await queue.add(() => gradeTree({ tree: dir, ...SLACK, mode: 'fork' }));
      expect(fast!.requirements.filter((r) => !r.pass).map((r) => r.id)).toEqual([...m.breaks].sort());
      const slow = await queue.add(() => gradeTree({ tree: dir, ...SLACK, mode: 'exec' }));
      expect(verdicts(slow!)).toEqual(verdicts(fast!));
    },
  );

  it('item 1: programs that ignore their input (every exit status 0-3, fixed outputs) earn 0/42', async () => {
    const family: Array<[number, string, string]> = [];
    for (const exit of [0, 1, 2, 3]) {
      for (const stdout of ['', 'name\n', USAGE, '[]\n']) family.push([exit, stdout, exit === 0 ? '' : 'sqlcsv: error\n']);
    }
    family.push([0, 'name,age\n', 'warning\n'], [2, '', ''], [3, '', '']);
    const scores = await Promise.all(
      family.map(([exit, stdout, stderr]) =>
        queue.add(async () => {
          const result = await gradeTree({ tree: await tree(constant(exit, stdout, stderr)), ...SLACK });
          return `exit ${exit} stdout ${JSON.stringify(stdout)} stderr ${JSON.stringify(stderr)}: ${result.satisfied}/42${result.satisfied ? ` (${result.requirements.filter((r) => r.pass).map((r) => r.id).join(',')})` : ''}`;
        }),
      ),
    );
    expect(scores.filter((s) => !s.endsWith(': 0/42'))).toEqual([]);
  });
});
