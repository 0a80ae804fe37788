import type { SimLeafDraws } from './decisions.js';
import { testFileFor, testSupportFiles, type SimCorpus } from './corpus-files.js';
import { DefectTableError, applyDefects, defectById, type DefectTable } from './defect-table.js';
import type { PresentDefects } from './defect-model.js';

/**
 * The files of SIMULATED trees, as pure functions of the corpus and the defect state: what a
 * simulated leaf writes, what a simulated merge writes at the root of its workspace, and how a
 * simulated merge reads a child's defect state back from the child's files.
 */

/** A failing test a leaf drawn not to deliver writes, so its own tests fail for real. */
export const UNDELIVERED_TEST_FILE = 'tests/test_sim_undelivered.py';
const UNDELIVERED_TEST = `"""SIMULATED: this leaf was drawn not to deliver, so its own tests fail."""


def test_simulated_leaf_did_not_deliver():
    assert False, "SIMULATED non-delivery"
`;

/** Whether a path is part of the program (not its tests). */
function isProgramFile(file: string): boolean {
  return !file.startsWith('tests/');
}

export interface TreeSpec {
  /** Defects present: requirement -> variant id (a PlantedDefect id). */
  present: PresentDefects;
  /** Requirements whose corpus test file the tree carries. */
  testsFor: readonly string[];
  /** Adds the failing non-delivery test. Default false. */
  undelivered?: boolean;
}

/**
 * Every file of a tree: the whole program with the present defects applied, the test support
 * files when any test is carried, and one corpus test file per requirement in `testsFor`.
 */
export function treeFiles(corpus: SimCorpus, spec: TreeSpec): Record<string, string> {
  const program = Object.fromEntries(Object.entries(corpus.files).filter(([f]) => isProgramFile(f)));
  const defects = [...spec.present].sort(([a], [b]) => a.localeCompare(b)).map(([, id]) => defectById(corpus.defects, id));
  const files = applyDefects(program, defects);
  const tests = [...new Set(spec.testsFor)].sort().map((r) => {
    const file = testFileFor(corpus.files, r);
    if (file === undefined) throw new DefectTableError(`the corpus has no test file for ${r}`);
    return file;
  });
  if (tests.length > 0 || spec.undelivered) for (const f of testSupportFiles(corpus)) files[f] = corpus.files[f]!;
  for (const f of tests) files[f] = corpus.files[f]!;
  if (spec.undelivered) files[UNDELIVERED_TEST_FILE] = UNDELIVERED_TEST;
  return files;
}

/**
 * What a leaf writes: the program with its planted defects, tests for its claimed requirements
 * that are not defective (a leaf whose test caught its own defect would have fixed it), and,
 * if it was drawn not to deliver, a failing test.
 */
export function leafTreeSpec(leaf: SimLeafDraws): TreeSpec {
  const present = new Map(leaf.claims.filter((c) => c.defect !== null).map((c) => [c.requirement, c.defect!]));
  return { present, testsFor: leaf.claims.filter((c) => c.defect === null).map((c) => c.requirement), undelivered: !leaf.delivered };
}

/**
 * The defects present in a tree's files, read back by each planted patch's text: what a
 * simulated merge takes from a child's tree (requirement -> variant id). Only requirements in
 * `owned` are read, so a merge takes each requirement's state from the child that claims it.
 */
export function defectsIn(files: Readonly<Record<string, string>>, table: DefectTable, owned?: readonly string[]): Map<string, string> {
  const wanted = owned ? new Set(owned) : null;
  const found = new Map<string, string>();
  for (const d of table) {
    if (wanted && !wanted.has(d.requirement)) continue;
    const text = files[d.file];
    if (text !== undefined && text.includes(d.replace) && !found.has(d.requirement)) found.set(d.requirement, d.id);
  }
  return found;
}
