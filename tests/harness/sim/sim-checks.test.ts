import { describe, expect, it } from 'vitest';
import { gatherCommand, simChecks, testCommand, testSupportFiles, type SimCorpus } from '../../../harness/testing.js';

/** A corpus of another task: its package, command and entry points come from its deliverable, never from a name of the first task. */
const TOY: SimCorpus = {
  files: { 'toypkg/__init__.py': '', 'toypkg/__main__.py': '', 'toypkg/core.py': '', 'tests/conftest.py': '', 'tests/toy_kit.py': '', 'tests/test_r01_one.py': '', 'tests/test_r02_two.py': '' },
  defects: [],
  deliverable: { language: 'Python 3.11', package: 'toypkg', command: ['python3', '-m', 'toypkg'], entry_points: ['toypkg/__init__.py', 'toypkg/__main__.py'] },
};

describe("the simulated checks and merger read the task's deliverable", () => {
  it('name its package, command and entry points, and take its test support files from the corpus', () => {
    expect(testSupportFiles(TOY)).toEqual(['tests/conftest.py', 'tests/toy_kit.py']);
    expect(testCommand(TOY, ['tests/conftest.py', 'tests/test_r02_two.py'])).toBe('python3 -m pytest -q -p no:cacheprovider tests/test_r02_two.py');
    expect(simChecks(TOY, [])).toMatchInlineSnapshot(`
      [
        {
          "command": "python3 -c "import toypkg, toypkg.__main__"",
          "description": "the toypkg package imports",
          "id": "imports",
        },
        {
          "command": "python3 -m py_compile toypkg/__init__.py toypkg/__main__.py toypkg/core.py",
          "description": "every program file compiles",
          "id": "compiles",
        },
        {
          "command": "test -f toypkg/__init__.py && test -f toypkg/__main__.py",
          "description": "python3 -m toypkg has its entry points",
          "id": "entry-point",
        },
      ]
    `);
    expect(simChecks(TOY, ['tests/conftest.py', 'tests/toy_kit.py', 'tests/test_r01_one.py'])[2]).toMatchInlineSnapshot(`
      {
        "command": "test -f tests/conftest.py && test -f tests/toy_kit.py && python3 -m pytest -q -p no:cacheprovider tests/test_r01_one.py",
        "description": "the tree's own tests pass",
        "id": "own-tests",
      }
    `);
    expect(gatherCommand(TOY)).toMatchInlineSnapshot(`"grep -rn --include='*.py' 'SIMULATED DEFECT R' .children/*/toypkg toypkg 2>/dev/null; echo '== tests'; find .children/*/tests tests -maxdepth 1 -name 'test_r*.py' 2>/dev/null | sort"`);
  });
});
