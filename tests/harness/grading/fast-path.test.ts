import { afterAll, describe, expect, it } from 'vitest';
import { gradeTree, specDir } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, SLACK, referenceWith, smallOracle, removeScratch } from './hostile-trees.js';

afterAll(removeScratch);

/**
 * The fast path forks each case from an interpreter that has already imported some stdlib
 * modules (csv among them). Under `python3 -m sqlcsv` a module at the tree's root shadows
 * the stdlib one of the same name, so a tree holding one must get its own module, as it
 * would from a fresh interpreter: the fork server runs such a tree one interpreter per case.
 */
const SHADOWING = {
  // The stdlib csv, executed as the tree's own module, marked as such.
  'csv.py': 'import os\nexec(open(os.path.join(os.path.dirname(os.__file__), "csv.py")).read())\nFROM_THE_TREE = True\n',
  'sqlcsv/__main__.py': 'import csv, sys\nif not getattr(csv, "FROM_THE_TREE", False):\n    sys.exit(99)\nfrom sqlcsv.cli import main\nsys.exit(main(sys.argv[1:]))\n',
};

describe.skipIf(!HAS_DOCKER)('the fast path runs a program as python3 -m would', { timeout: DOCKER_TIMEOUT }, () => {
  it('a module at the tree\'s root that shadows a module the fork server preloaded is the one the program imports', async () => {
    const result = await gradeTree({ spec: 'sqlcsv', tree: await referenceWith(SHADOWING), oracleDir: await smallOracle(), specDir: specDir('sqlcsv'), mode: 'fork', ...SLACK });
    expect(result.requirements.flatMap((r) => r.failures.map((f) => `${f.case}: ${f.reason}`))).toEqual([]);
    expect([result.casesPassed, result.casesTotal]).toEqual([11, 11]);
  });
});
