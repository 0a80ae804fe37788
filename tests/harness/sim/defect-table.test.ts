import { describe, expect, it } from 'vitest';
import {
  DefectTable,
  testSupportFiles,
  applyDefects,
  defectModelOf,
  findMarkers,
  testFileFor,
  uncoveredRequirements,
} from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';
import { sqlcsvCorpus } from '../../support/sim-corpus.js';

const corpus = await sqlcsvCorpus();

describe('the planted defects table', () => {
  it('covers every requirement, each defect breaking its own requirement first', () => {
    expect(uncoveredRequirements(corpus.defects, SPEC_IDS)).toEqual([]);
    for (const d of corpus.defects) expect(d.breaks[0]).toBe(d.requirement);
    const model = defectModelOf(corpus.defects);
    expect(Object.keys(model).sort()).toEqual([...SPEC_IDS]);
  });

  it('applies every patch to the corpus, alone and all together in any order, each leaving its marker', () => {
    for (const d of corpus.defects) {
      const patched = applyDefects(corpus.files, [d]);
      expect(findMarkers(patched).map((m) => m.requirement)).toContain(d.requirement);
      expect(new Set(findMarkers(patched).map((m) => m.requirement))).toEqual(new Set([d.requirement]));
    }
    // One variant per requirement at once (what a merged tree can hold), forwards and backwards.
    const onePerRequirement = SPEC_IDS.map((r) => corpus.defects.find((d) => d.requirement === r)!);
    for (const order of [onePerRequirement, [...onePerRequirement].reverse()]) {
      const all = applyDefects(corpus.files, order);
      expect(new Set(findMarkers(all).map((m) => m.requirement))).toEqual(new Set(SPEC_IDS));
    }
  });

  it('the clean corpus carries no marker, and a tree with a defect shows where it is', () => {
    expect(findMarkers(corpus.files)).toEqual([]);
    const d = corpus.defects[0]!;
    const [marker] = findMarkers(applyDefects(corpus.files, [d]));
    expect(marker!.file).toBe(d.file);
    expect(applyDefects(corpus.files, [d])[d.file]!.split('\n')[marker!.line - 1]).toContain(`SIMULATED DEFECT ${d.requirement}`);
  });

  it('refuses entries whose patch a reviewer could not see, or that do not apply exactly once', () => {
    const entry = { id: 'd-r01-x', requirement: 'R01', breaks: ['R01'], description: 'x', file: 'sqlcsv/cli.py', find: 'a = 1', replace: 'a = 2' };
    const problems = (table: unknown) => DefectTable.safeParse(table).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems([entry])).toMatchInlineSnapshot(`
      [
        "0.replace: changes 1 line(s) without the marker "SIMULATED DEFECT R01"; a reviewer could not see it",
      ]
    `);
    expect(problems([{ ...entry, replace: 'a = 2  # SIMULATED DEFECT R01', breaks: ['R02', 'R01'] }, { ...entry, replace: 'a = 2  # SIMULATED DEFECT R01' }])).toMatchInlineSnapshot(`
      [
        "0.breaks: must start with the defect's own requirement R01",
        "1.id: "d-r01-x" appears twice; give each defect its own id",
      ]
    `);
    const ok = DefectTable.parse([{ ...entry, replace: 'a = 2  # SIMULATED DEFECT R01' }]);
    expect(() => applyDefects({ 'sqlcsv/cli.py': 'a = 1\na = 1\n' }, ok)).toThrowErrorMatchingInlineSnapshot(`[DefectTableError: defect d-r01-x: sqlcsv/cli.py: the text to find occurs 2 times, expected exactly once]`);
    expect(() => applyDefects({}, ok)).toThrowErrorMatchingInlineSnapshot(`[DefectTableError: defect d-r01-x: the corpus has no file sqlcsv/cli.py]`);
  });

  it('names a test file per requirement for the leaves to write', () => {
    expect(SPEC_IDS.filter((r) => testFileFor(corpus.files, r) === undefined)).toEqual([]);
    expect(testSupportFiles(corpus)).toEqual(['tests/conftest.py', 'tests/sqlcsv_testkit.py']);
    expect(corpus.files['sqlcsv/__main__.py']).toBeDefined();
    expect(Object.keys(corpus.files).some((f) => f.includes('__pycache__') || f === 'defects.yaml')).toBe(false);
  });
});
