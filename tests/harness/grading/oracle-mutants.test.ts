import { describe, expect, it } from 'vitest';
import { runTaskCheck, renderCheck, listTasks, mutantGroups } from '../../../harness/index.js';
import { loadTaskMaterial, MUTANT_GROUP_SIZE } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT } from './hostile-trees.js';

/**
 * The graded half of `harness task check` for every task under spec/: the baselines (the
 * reference passes every case, the empty tree and programs that ignore their input earn 0)
 * and the mutants (each tree fails exactly what its mutants declare, no case leaks into an
 * undeclared requirement, the sentence's cases kill its mutant, fork and exec agree).
 * `npm test` grades the quick form: one constant program, a slice of two packed groups and
 * one mutant alone both ways (the slices turn with the UTC day; RDH_ORACLE_MUTANTS=slice:K
 * repeats slice K); RDH_ORACLE_MUTANTS=default grades `harness task check`'s default form;
 * `npm run mutants:oracle` (RDH_ORACLE_MUTANTS=all) grades every mutant alone, both ways, and
 * the crossed constant family: the same as `harness task check <task> --exhaustive --only baselines,mutants`.
 */
const ALL = process.env.RDH_ORACLE_MUTANTS === 'all';
const SLICE = /^slice:(\d+)$/.exec(process.env.RDH_ORACLE_MUTANTS ?? '')?.[1];
const QUICK = !ALL && process.env.RDH_ORACLE_MUTANTS !== 'default';
const TASKS = await listTasks();

describe('mutant declarations (pure)', () => {
  it.each(TASKS)('%s: every `apart` names a mutant, and the packed groups hold every mutant once', async (task) => {
    const m = await loadTaskMaterial(task);
    expect(m.mutants.flatMap((x) => (x.apart ?? []).filter((id) => !m.mutants.some((o) => o.id === id)).map((id) => `${x.id} -> ${id}`))).toEqual([]);
    const grouped = mutantGroups(m.mutants, m.referenceSources, MUTANT_GROUP_SIZE);
    expect(grouped.flat().map((x) => x.id).sort()).toEqual(m.mutants.map((x) => x.id).sort());
    expect(grouped.filter((g) => g.some((x) => x.apart?.some((id) => g.some((o) => o.id === id)))).length).toBe(0);
  });
});

describe.skipIf(!HAS_DOCKER)('the oracle discriminates per requirement (graded in Docker)', () => {
  it.each(TASKS)(
    '%s: the baselines and the mutants hold',
    async (task) => {
      const report = await runTaskCheck({
        task,
        parts: ['baselines', 'mutants'],
        exhaustive: { mutants: ALL, corpus: false },
        slice: SLICE === undefined ? undefined : Number(SLICE),
        quick: QUICK,
        progress: (line) => console.log(line),
      });
      console.log(renderCheck(report));
      expect(report.properties.filter((p) => p.status === 'fail')).toEqual([]);
      expect(report.properties.filter((p) => p.status === 'pass').map((p) => p.property)).toEqual(
        expect.arrayContaining(['reference-passes', 'empty-tree-zero', 'constant-programs-zero', 'mutants-exact', 'isolation', 'modes-agree']),
      );
    },
    DOCKER_TIMEOUT * 4,
  );
});
