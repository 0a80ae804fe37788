import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { describe, expect, it } from 'vitest';
import { applyMutant, gradeTree, loadMutants, loadSpecOracle, oracleDir } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';

const ORACLE = oracleDir('sqlcsv');

describe('the oracle discriminates per requirement', () => {
  it('has at least 3 cases per requirement, 150 in all, and a mutant for every requirement', async () => {
    const { oracle, requirements } = await loadSpecOracle('sqlcsv');
    expect(requirements.map((r) => r.id)).toEqual(Array.from({ length: 42 }, (_, i) => `R${String(i + 1).padStart(2, '0')}`));
    const counts = Object.values(oracle.requirementMap).map((ids) => ids.length);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(3);
    expect(oracle.cases.length).toBeGreaterThanOrEqual(150);
    const mutants = await loadMutants(ORACLE);
    const broken = new Set(mutants.flatMap((m) => m.breaks));
    expect(requirements.filter((r) => !broken.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it('keeps criteria free of any case id, so planners can never be told which test decides them', async () => {
    const { oracle, requirements } = await loadSpecOracle('sqlcsv');
    const text = JSON.stringify(requirements).toLowerCase();
    expect(text).not.toContain('oracle');
    for (const c of oracle.cases) expect(text).not.toContain(c.id.toLowerCase());
  });

  it.skipIf(!HAS_DOCKER)(
    'every mutant fails exactly the requirements it is recorded to break, and passes the rest',
    async () => {
      const mutants = await loadMutants(ORACLE);
      const root = await mkdtemp(path.join(tmpdir(), 'rdh-mutants-'));
      const queue = new PQueue({ concurrency: 2 });
      const wrong: string[] = [];
      await Promise.all(
        mutants.map((m) =>
          queue.add(async () => {
            const tree = path.join(root, m.id);
            await applyMutant(path.join(ORACLE, 'reference'), m, tree);
            const result = await gradeTree({ tree });
            const failed = result.requirements.filter((r) => !r.pass).map((r) => r.id);
            if (JSON.stringify(failed) !== JSON.stringify([...m.breaks].sort())) wrong.push(`${m.id}: breaks ${m.breaks.join(',')} but failed ${failed.join(',') || 'nothing'}`);
          }),
        ),
      );
      expect(wrong).toEqual([]);
    },
    1_800_000,
  );
});
