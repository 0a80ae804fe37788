import { describe, expect, it } from 'vitest';
import { SimParams } from '../../../harness/index.js';
import {
  UNDELIVERED_TEST_FILE,
  defectModelOf,
  defectsIn,
  findMarkers,
  identityDraws,
  leafDraws,
  leafTreeSpec,
  treeFiles,
} from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';
import { sqlcsvCorpus } from '../../support/sim-corpus.js';

const corpus = await sqlcsvCorpus();
const model = defectModelOf(corpus.defects);

describe('simulated tree files', () => {
  it('a leaf writes the whole program, its planted defects, and tests for its clean claims only', () => {
    const params = SimParams.parse({ leaf_defect_rate: 0.5, non_delivery_rate: 0 });
    const leaf = leafDraws(params, identityDraws({ seed: 3, cap: 2, repetition: 0 }), model, { path: 'root.1', requirements: ['R05', 'R06', 'R07', 'R08', 'R09', 'R10'] });
    const defective = leaf.claims.filter((c) => c.defect !== null).map((c) => c.requirement);
    expect(defective.length).toBeGreaterThan(0);
    expect(defective.length).toBeLessThan(6);
    const files = treeFiles(corpus, leafTreeSpec(leaf));
    expect(Object.keys(files).filter((f) => f.startsWith('sqlcsv/')).sort()).toEqual(Object.keys(corpus.files).filter((f) => f.startsWith('sqlcsv/')).sort());
    expect(findMarkers(files).map((m) => m.requirement).sort()).toEqual(defective.sort());
    const tested = Object.keys(files).filter((f) => /^tests\/test_r\d\d_/.test(f)).map((f) => f.slice(11, 14).toUpperCase());
    expect(tested.sort()).toEqual(leaf.claims.filter((c) => c.defect === null).map((c) => c.requirement).sort());
    expect(files[UNDELIVERED_TEST_FILE]).toBeUndefined();
    expect(treeFiles(corpus, { ...leafTreeSpec(leaf), undelivered: true })[UNDELIVERED_TEST_FILE]).toContain('assert False');
  });

  it('a merge reads each child\'s defect state back from its files, for the requirements that child owns', () => {
    const present = new Map([
      ['R03', corpus.defects.find((d) => d.requirement === 'R03')!.id],
      ['R40', corpus.defects.find((d) => d.requirement === 'R40')!.id],
    ]);
    const child = treeFiles(corpus, { present, testsFor: [] });
    expect(defectsIn(child, corpus.defects)).toEqual(present);
    expect(defectsIn(child, corpus.defects, ['R01', 'R02', 'R03'])).toEqual(new Map([['R03', present.get('R03')!]]));
    expect(defectsIn(treeFiles(corpus, { present: new Map(), testsFor: SPEC_IDS }), corpus.defects)).toEqual(new Map());
  });

  it('the clean tree with every test is the corpus itself', () => {
    expect(treeFiles(corpus, { present: new Map(), testsFor: SPEC_IDS })).toEqual(corpus.files);
  });
});
