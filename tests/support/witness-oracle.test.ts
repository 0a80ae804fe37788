import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpecOracle, oracleSubset } from '../../harness/index.js';
import { loadDefectTable, corpusDir, DEFECTS_FILE } from '../../harness/testing.js';
import { StaleWitnessesError, WITNESS_FILE, materialDigest, witnessCaseIds } from './witness-oracle.js';

/**
 * The witness cases the SIMULATED Docker tests grade with: read off the whole oracle's failures
 * by `npm run witness:cases`, current for the committed oracle, runner and corpus, and refused
 * once any of them changes.
 */
const TASKS = ['sqlcsv', 'commonmark'];
type File = Record<string, { digest: string; defects: Record<string, Record<string, string>> }>;
const committed = async () => JSON.parse(await readFile(WITNESS_FILE, 'utf8')) as File;

describe.each(TASKS)('the witness cases of %s', (task) => {
  it('are current: read from this oracle, runner and corpus (else: npm run witness:cases)', async () => {
    expect((await committed())[task]?.digest).toBe(await materialDigest(task));
  });

  it('name a failing case for every requirement each defect breaks, and keep a case of every requirement', async () => {
    const { oracle } = await loadSpecOracle(task);
    const table = await loadDefectTable(path.join(corpusDir(task), DEFECTS_FILE));
    const mine = (await committed())[task]!;
    const ids = new Set(await witnessCaseIds(task));
    for (const d of table) {
      expect(Object.keys(mine.defects[d.id] ?? {}).sort(), d.id).toEqual([...d.breaks].sort());
      for (const [requirement, id] of Object.entries(mine.defects[d.id]!)) {
        expect(oracle.requirementMap[requirement], `${d.id} ${requirement}`).toContain(id);
        expect(ids.has(id)).toBe(true);
      }
    }
    for (const [requirement, cases] of Object.entries(oracle.requirementMap)) expect(cases.some((id) => ids.has(id)), requirement).toBe(true);
    // A small fraction of the whole: the point of the helper.
    expect(ids.size).toBeLessThan(oracle.cases.length / 3);
  });

  it('are case ids the grader takes (gradeTree\'s caseIds): the same requirements, only the witness cases, each as the whole oracle has it', async () => {
    const whole = (await loadSpecOracle(task)).oracle;
    const ids = await witnessCaseIds(task);
    const small = oracleSubset(whole, ids);
    expect(small.cases.map((c) => c.id)).toEqual(ids);
    expect(small.cases).toEqual(whole.cases.filter((c) => ids.includes(c.id)));
    expect(Object.keys(small.requirementMap).sort()).toEqual(Object.keys(whole.requirementMap).sort());
    expect(small.judgeFiles).toEqual(whole.judgeFiles);
  });
});

describe('a witness list out of date', () => {
  it('is refused with the command that renews it, when its digest is not the material’s or its task is missing', async () => {
    const file = await committed();
    const stale = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-witness-test-')), 'witness-cases.json');
    await writeFile(stale, JSON.stringify({ ...file, sqlcsv: { ...file.sqlcsv!, digest: '0'.repeat(64) } }));
    const error = await witnessCaseIds('sqlcsv', stale).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaleWitnessesError);
    expect((error as Error).message.replace(stale, '<file>')).toMatchInlineSnapshot(`"<file>: task sqlcsv's oracle, runner or corpus changed since its witnesses were read; run \`npm run witness:cases\` (it grades every defect alone, about 15 minutes) and commit tests/support/fixtures/witness-cases.json"`);
    const missing = await witnessCaseIds('nosuchtask', stale).catch((e: unknown) => e);
    expect((missing as Error).message.replace(stale, '<file>')).toMatchInlineSnapshot(`"<file>: no witnesses for task nosuchtask; run \`npm run witness:cases\` (it grades every defect alone, about 15 minutes) and commit tests/support/fixtures/witness-cases.json"`);
  });
});
