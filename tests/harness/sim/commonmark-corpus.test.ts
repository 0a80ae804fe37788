import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTaskDefinition as loadTaskDef, specDir as specDirOf } from '../../../harness/index.js';
import { describe, expect, it } from 'vitest';
import { loadRequirements } from '../../../harness/index.js';
import { DEFECT_MARKER, applyDefects, defectModelOf, findMarkers, loadDefectTable, readCorpus, testFileFor, uncoveredRequirements } from '../../../harness/testing.js';

/**
 * The SIMULATED population's commonmark corpus (harness/sim/corpus/commonmark): its defect table
 * parses with the same DefectTable schema as sqlcsv's, every patch applies exactly once (alone and
 * beside one variant of every other requirement, as a merged tree holds them) and marks each line
 * it changes, and every requirement of spec/commonmark has a defect and a test file.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DIR = path.join(ROOT, 'harness/sim/corpus/commonmark');
const corpus = await readCorpus(await loadTaskDef(specDirOf('commonmark')), DIR);
const REQUIREMENTS = (await loadRequirements(path.join(ROOT, 'spec/commonmark'))).map((r) => r.id);

/** Lines of `after` that `before` does not hold: what a patch changed. */
function changedLines(before: string, after: string): string[] {
  const kept = new Set(before.split('\n'));
  return after.split('\n').filter((line) => !kept.has(line));
}

describe('the commonmark corpus defect table', () => {
  it('loads through the DefectTable schema and covers every requirement, own requirement first', async () => {
    const table = await loadDefectTable(path.join(DIR, 'defects.yaml'));
    expect(table.map((d) => d.id)).toEqual(corpus.defects.map((d) => d.id));
    expect(REQUIREMENTS.length).toBeGreaterThanOrEqual(30);
    expect(uncoveredRequirements(table, REQUIREMENTS)).toEqual([]);
    expect(Object.keys(defectModelOf(table)).sort()).toEqual([...REQUIREMENTS]);
    for (const d of table) {
      expect(d.breaks[0]).toBe(d.requirement);
      expect(d.breaks.every((r) => REQUIREMENTS.includes(r))).toBe(true);
    }
  });

  it('applies each patch exactly once, changing only lines that carry its marker', () => {
    expect(findMarkers(corpus.files)).toEqual([]);
    for (const d of corpus.defects) {
      const patched = applyDefects(corpus.files, [d]);
      const changed = changedLines(corpus.files[d.file]!, patched[d.file]!);
      expect(changed.length, d.id).toBeGreaterThan(0);
      for (const line of changed) expect(line, d.id).toContain(`# ${DEFECT_MARKER} ${d.requirement}`);
      expect(new Set(findMarkers(patched).map((m) => `${m.file} ${m.requirement}`)), d.id).toEqual(new Set([`${d.file} ${d.requirement}`]));
    }
  });

  it('composes: each defect applies beside the first variant of every other requirement, in either order', () => {
    const first = REQUIREMENTS.map((r) => corpus.defects.find((d) => d.requirement === r)!);
    for (const d of corpus.defects) {
      const others = first.filter((o) => o.requirement !== d.requirement);
      for (const order of [[d, ...others], [...others, d].reverse()]) {
        const all = applyDefects(corpus.files, order);
        expect(new Set(findMarkers(all).map((m) => m.requirement)), d.id).toEqual(new Set(REQUIREMENTS));
      }
    }
  });

  it('has the package, its entry points, the test support files and a test file per requirement', () => {
    for (const f of ['mdlite/__init__.py', 'mdlite/__main__.py', 'tests/conftest.py', 'tests/mdlite_testkit.py']) expect(corpus.files[f], f).toBeDefined();
    expect(REQUIREMENTS.filter((r) => testFileFor(corpus.files, r) === undefined)).toEqual([]);
    // One test file per requirement, named for it, and none for a requirement the spec lacks.
    const testFiles = Object.keys(corpus.files).filter((f) => /^tests\/test_r\d{2}_[a-z0-9_]+\.py$/.test(f));
    expect(testFiles.map((f) => f.slice('tests/test_'.length, 'tests/test_'.length + 3).toUpperCase()).sort()).toEqual([...REQUIREMENTS]);
    expect(Object.keys(corpus.files).some((f) => f.includes('__pycache__') || f === 'defects.yaml')).toBe(false);
  });
});
