import type { SimCorpus } from '../corpus-files.js';
import { TEST_SUPPORT_FILES } from '../corpus-files.js';

/** The program files of the corpus (everything outside tests/), sorted. */
export function programFiles(corpus: SimCorpus): string[] {
  return Object.keys(corpus.files).filter((f) => !f.startsWith('tests/')).sort();
}

/** The command that runs a tree's own tests, or null when it carries none. */
export function testCommand(testFiles: readonly string[]): string | null {
  const tests = testFiles.filter((f) => !TEST_SUPPORT_FILES.includes(f)).sort();
  return tests.length ? `python3 -m pytest -q -p no:cacheprovider ${tests.join(' ')}` : null;
}

/**
 * The SIMULATED checker's three checks: the package imports, every program file compiles, and
 * the tree's own tests pass (or, carrying none, its entry point exists). A leaf's checks name
 * the test files it will write (`testFiles`), so the monitor reads a write of any of its files
 * as on task; a merge's seam checks are written before the checker can know which tests the
 * assembled tree carries (`'any'`), so they run whatever tests/ holds. By design none of them
 * can see a planted defect: only reviewers find those, which keeps the truth exact.
 */
export function simChecks(corpus: SimCorpus, testFiles: readonly string[] | 'any') {
  const program = programFiles(corpus);
  const imports = { id: 'imports', description: 'the sqlcsv package imports', command: 'python3 -c "import sqlcsv.cli"' };
  const compiles = { id: 'compiles', description: 'every program file compiles', command: `python3 -m py_compile ${program.join(' ')}` };
  const entry = 'test -f sqlcsv/__main__.py';
  if (testFiles === 'any') {
    return [imports, compiles, { id: 'own-tests', description: "the tree's own tests pass, if it carries any", command: `if [ -d tests ]; then python3 -m pytest -q -p no:cacheprovider tests; else ${entry}; fi` }];
  }
  const tests = testCommand(testFiles);
  return [
    imports,
    compiles,
    tests
      ? { id: 'own-tests', description: "the tree's own tests pass", command: `test -f ${TEST_SUPPORT_FILES.join(' && test -f ')} && ${tests}` }
      : { id: 'entry-point', description: 'python -m sqlcsv has its entry point', command: entry },
  ];
}
