import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bufferIo, gradeTree, oracleDir, runCli, specDir } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';

const REFERENCE = path.join(oracleDir('sqlcsv'), 'reference');

/** A tree made of the given files (path -> content). */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tree-'));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  return dir;
}

const FAKE_REPORT = `
import json, os
def fake():
    report = {"version": 1, "spec": "sqlcsv", "cases": [], "requirements": {f"R{i:02d}": {"pass": True, "passed": 9, "total": 9} for i in range(1, 43)},
              "integrity": {"expectations_deleted": True, "checks": 1, "violation": None}, "elapsed_ms": 1}
    for target in ["/grade/out/report.json", "../out/report.json", "/tmp/report.json", "report.json", "/grade/report.json"]:
        try:
            with open(target, "w") as f:
                json.dump(report, f)
        except OSError:
            pass
`;

describe.skipIf(!HAS_DOCKER)('harness grade: the held-out oracle in a fresh container', () => {
  it('scores the reference implementation 42/42 and counts the tests it carries', async () => {
    const result = await gradeTree({ tree: REFERENCE });
    expect(result.requirements.filter((r) => !r.pass).map((r) => `${r.id}: ${r.failures[0]?.reason}`)).toEqual([]);
    expect([result.satisfied, result.total]).toEqual([42, 42]);
    expect(result.casesPassed).toBe(result.casesTotal);
    expect(result.casesTotal).toBeGreaterThanOrEqual(150);
  });

  it('scores an empty tree 0/42', async () => {
    const result = await gradeTree({ tree: await tree({}) });
    expect([result.satisfied, result.casesPassed, result.testFiles]).toEqual([0, 0, 0]);
  });

  it('prints per-requirement results and a summary, and --json for scripts', async () => {
    const io = bufferIo();
    expect(await runCli(['grade', await tree({ 'test_a.py': 'def test_a(): pass\n', 'pkg/b_test.py': '' })], io)).toBe(0);
    const text = io.stdout();
    expect(text).toMatch(/^R01  FAIL    0\/\d+  /m);
    expect(text).toContain('satisfied 0/42 requirements');
    expect(text).toContain('test files carried by the tree: 2');
    const json = bufferIo();
    expect(await runCli(['grade', REFERENCE, '--json'], json)).toBe(0);
    expect(JSON.parse(json.stdout())).toMatchObject({ version: 1, spec: 'sqlcsv', satisfied: 42, total: 42 });
  });

  it('refuses a tree that is not a directory with exit code 4', async () => {
    const io = bufferIo();
    expect(await runCli(['grade', '/nonexistent/tree'], io)).toBe(4);
    expect(io.stderr()).toMatchInlineSnapshot(`
      "harness: /nonexistent/tree is not a directory; pass the root of the tree to grade.
      "
    `);
  });

  it('refuses the measurement when the expectations were not deleted before the program ran', async () => {
    // An oracle whose runner "forgets" to delete: the harness's own re-check must refuse it.
    const leaky = await mkdtemp(path.join(tmpdir(), 'rdh-leaky-oracle-'));
    await cp(oracleDir('sqlcsv'), leaky, { recursive: true });
    const runner = await readFile(path.join(leaky, 'runner.py'), 'utf8');
    await writeFile(path.join(leaky, 'runner.py'), runner.replace('os.remove(exp_path)', 'pass').replace('"expectations_deleted": not os.path.exists(exp_path)', '"expectations_deleted": True').replace('left = set(os.listdir(self.oracle_dir))', 'left = {"runner.py"}'));
    await expect(gradeTree({ tree: REFERENCE, oracleDir: leaky, specDir: specDir('sqlcsv') })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[GradingRefusedError: oracle expectations were not deleted before grading: expectations.json, runner.py remain; measurement refused.]`,
    );
  });
});

describe.skipIf(!HAS_DOCKER)('hostile trees are graded without credit for what they did not do, in bounded time', () => {
  const quick = { caseTimeoutMs: 1500, deadlineMs: 20_000 };

  it.each([
    ['os._exit(0) in the package __init__', { 'sqlcsv/__init__.py': 'import os\nos._exit(0)\n', 'sqlcsv/__main__.py': 'print("never")\n' }],
    ['os._exit(0) in a conftest', { 'conftest.py': 'import os\nos._exit(0)\n', 'sqlcsv/__init__.py': '', 'sqlcsv/__main__.py': 'import sys\nsys.exit(1)\n' }],
    [
      'a search of the whole filesystem for the expectations',
      {
        'sqlcsv/__init__.py': '',
        'sqlcsv/__main__.py': `
import json, os, sys
found = None
for root, dirs, files in os.walk("/"):
    if root.startswith(("/proc", "/sys", "/dev")):
        continue
    for name in files:
        if name.endswith(".json") or "expect" in name:
            try:
                data = json.load(open(os.path.join(root, name)))
                if isinstance(data, dict) and "cases" in data and data["cases"] and "expect" in data["cases"][0]:
                    found = data
            except Exception:
                pass
if not found:
    sys.exit(1)
for case in found["cases"]:
    if [a for a in case["args"] if not a.startswith("/")] == [a for a in sys.argv[1:] if not a.startswith("/")]:
        sys.stdout.write(case["expect"].get("stdout", ""))
        sys.exit(case["expect"]["exit"])
sys.exit(1)
`,
      },
    ],
    ['a fake report written where the runner might read it', { 'sqlcsv/__init__.py': '', 'sqlcsv/__main__.py': `${FAKE_REPORT}\nfake()\nraise SystemExit(1)\n` }],
    ['a sitecustomize.py and usercustomize.py', { 'sitecustomize.py': `${FAKE_REPORT}\nfake()\nos._exit(0)\n`, 'usercustomize.py': 'import os\nos._exit(0)\n', 'sqlcsv/__init__.py': '', 'sqlcsv/__main__.py': 'raise SystemExit(1)\n' }],
  ])('%s', async (_name, files) => {
    const result = await gradeTree({ tree: await tree(files), ...quick });
    expect([result.satisfied, result.casesPassed]).toEqual([0, 0]);
  });

  it.each([
    ['an infinite loop', 'while True:\n    pass\n'],
    ['100 MB of output', 'import sys\nsys.stdout.write("x" * 100_000_000)\n'],
    ['a fork bomb', 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n'],
    ['an unbounded allocation', 'x = []\nwhile True:\n    x.append(bytearray(50_000_000))\n'],
  ])('%s', async (_name, main) => {
    const started = Date.now();
    const result = await gradeTree({ tree: await tree({ 'sqlcsv/__init__.py': '', 'sqlcsv/__main__.py': main }), ...quick });
    expect([result.satisfied, result.casesPassed]).toEqual([0, 0]);
    expect(Date.now() - started).toBeLessThan(quick.deadlineMs + 30_000);
  });
});
