import { cp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import {
  GradeResult,
  gradeTree,
  loadSpecOracle,
  oracleDir,
  runnerDir,
  sandboxImageTag,
  specDir,
} from '../../../harness/index.js';
import { runGradingContainer, stageScratch } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { ANSWER_FROM_LEAKED_BYTECODE, DOCKER_TIMEOUT, KILL_EVERY_OTHER_CASE, REFERENCE, SLACK, referenceWith, smallOracle, tree, removeScratch, scratchDir } from './hostile-trees.js';

afterAll(removeScratch);

const FAKE_REPORT = `
import json, os
def fake():
    report = {"version": 2, "spec": "sqlcsv", "mode": "fork", "cases": [], "compile": None, "revealed": None,
              "requirements": {f"R{i:02d}": {"pass": True, "passed": 9, "total": 9} for i in range(1, 43)},
              "integrity": {"expectations_deleted": True, "checks": 1, "violation": None}, "elapsed_ms": 1}
    for target in ["/grade/out/report.json", "../out/report.json", "/tmp/report.json", "report.json", "/grade/report.json"]:
        try:
            with open(target, "w") as f:
                json.dump(report, f)
        except OSError:
            pass
`;

const LEAK_LINKS: Array<[string, string]> = [
  ['sqlcsv/leak_rel.py', '../../oracle/expectations.json'],
  ['sqlcsv/leak_abs.py', '/grade/oracle/expectations.json'],
  ['sqlcsv/up', '../..'],
];

/**
 * One case of every fourth requirement (smallOracle): the reference alone is graded on every
 * case (42/42, here and in the mutants' baselines); a property of the runner shows on a few.
 */
const few = async () => ({ oracleDir: await smallOracle(), specDir: specDir('sqlcsv') });

describe.skipIf(!HAS_DOCKER)('harness grade: the held-out oracle in a fresh container', { timeout: DOCKER_TIMEOUT }, () => {
  it('scores the reference implementation 42/42', async () => {
    const result = await gradeTree({ spec: 'sqlcsv', tree: REFERENCE, ...SLACK });
    expect(result.requirements.filter((r) => !r.pass).map((r) => `${r.id}: ${r.failures[0]?.reason}`)).toEqual([]);
    expect([result.satisfied, result.total, result.version, result.mode, result.compile]).toEqual([42, 42, 2, 'fork', { ok: true, note: null }]);
    expect(result.casesPassed).toBe(result.casesTotal);
  });

  it('scores an empty tree 0', async () => {
    const result = await gradeTree({ spec: 'sqlcsv', tree: await tree({}), ...(await few()) });
    expect([result.satisfied, result.casesPassed, result.testFiles]).toEqual([0, 0, 0]);
    expect(result.casesTotal).toBeGreaterThan(5);
  });

  it('grades only the cases asked for: a requirement is decided by its cases among them, one with none fails; an unknown case is refused', async () => {
    const { oracle } = await loadSpecOracle('sqlcsv');
    const ids = [...oracle.requirementMap.R01!.slice(0, 2), oracle.requirementMap.R02![0]!];
    const result = await gradeTree({ spec: 'sqlcsv', tree: REFERENCE, caseIds: ids, ...SLACK });
    expect([result.casesTotal, result.casesPassed, result.satisfied, result.total]).toEqual([3, 3, 2, 42]);
    expect(result.requirements.filter((r) => r.pass).map((r) => r.id)).toEqual(['R01', 'R02']);
    await expect(gradeTree({ spec: 'sqlcsv', tree: REFERENCE, caseIds: ['R01-no-such-case'] })).rejects.toThrowErrorMatchingInlineSnapshot(`[OracleInvalidError: the cases asked for are not in oracle sqlcsv: R01-no-such-case]`);
  });

  it('refuses the measurement when the expectations were not deleted before the program ran', async () => {
    // An oracle whose runner "forgets" to delete: the harness's own re-check must refuse it.
    const leaky = await scratchDir('rdh-leaky-runner-');
    await cp(runnerDir(), leaky, { recursive: true });
    const runner = await readFile(path.join(leaky, 'runner.py'), 'utf8');
    await writeFile(
      path.join(leaky, 'runner.py'),
      runner
        .replace('os.remove(exp_path)', 'pass')
        .replace('"expectations_deleted": not os.path.exists(exp_path)', '"expectations_deleted": True')
        .replace('left = set(os.listdir(self.oracle_dir))', 'left = set(self.allowlist)'),
    );
    await expect(gradeTree({ spec: 'sqlcsv', tree: REFERENCE, runnerDir: leaky, ...SLACK, ...(await few()) })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[GradingRefusedError: oracle expectations were not deleted before grading: expectations.json, fork_server.py, judge.py, runner.py remain; measurement refused.]`,
    );
  });
});

describe.skipIf(!HAS_DOCKER)('the grading\'s integrity: a tree scores what it earned, never more and never a refusal', { timeout: DOCKER_TIMEOUT }, () => {
  it('0a: links to the expectations (absolute, relative, a parent folder) earn 0, are left out and noted', async () => {
    const dir = await referenceWith({ 'sqlcsv/__main__.py': ANSWER_FROM_LEAKED_BYTECODE });
    for (const [link, target] of LEAK_LINKS) await symlink(target, path.join(dir, link));
    const result = await gradeTree({ spec: 'sqlcsv', tree: dir, ...(await few()) });
    expect([result.satisfied, result.casesPassed]).toEqual([0, 0]);
    expect(result.skipped.map((s) => `${s.path}: ${s.why}`).sort()).toEqual([
      'sqlcsv/leak_abs.py: link leaves the tree',
      'sqlcsv/leak_rel.py: link leaves the tree',
      'sqlcsv/up: link leaves the tree',
    ]);
  });

  it('0a: the runner holds on its own when the links reach it: nothing is compiled as root or before the expectations are gone', async () => {
    // Bypass the harness's staging: plant the links in the staged scratch itself.
    const specOracle = await loadSpecOracle('sqlcsv', await few());
    const { oracle } = specOracle;
    const scratch = await scratchDir('rdh-grade-bypass-');
    await stageScratch(scratch, await referenceWith({ 'sqlcsv/__main__.py': ANSWER_FROM_LEAKED_BYTECODE }), specOracle);
    for (const [link, target] of LEAK_LINKS) await symlink(target, path.join(scratch, 'tree', link));
    const report = await runGradingContainer(new Docker(), {
      image: sandboxImageTag(), scratch, cases: oracle.cases.length, caseTimeoutMs: 3000, workers: 3, mode: 'fork', reveal: false, runId: 'grade-test', judgeFiles: oracle.judgeFiles,
    });
    expect(report.integrity.violation).toBeNull();
    expect(report.cases.filter((c) => c.pass).map((c) => c.id)).toEqual([]);
    expect((await readdir(path.join(scratch, 'oracle'))).sort()).toEqual(['fork_server.py', 'judge.py', 'runner.py']);
  });

  it('0b: a file that exhausts the compiler\'s memory is the tree\'s own: the grading still reports, every requirement for the rest', async () => {
    const dir = await referenceWith({ 'sqlcsv/bomb.py': 'a = 1\n'.repeat(4_000_000) });
    const result = await gradeTree({ spec: 'sqlcsv', tree: dir, ...SLACK, ...(await few()) });
    // Out of memory, or out of time first on a loaded machine: either way the step's failure, noted.
    expect(result.compile?.ok).toBe(false);
    expect(['some files did not compile', 'timed out']).toContain(result.compile?.note);
    // The small oracle holds cases of some requirements only: every one of those is earned.
    const graded = result.requirements.filter((r) => r.total > 0);
    expect(graded.length).toBeGreaterThan(5);
    expect(result.satisfied).toBe(graded.length);
  });

  it('0e: one case cannot reach another: a program that SIGKILLs every process it may signal hurts only itself', async () => {
    const init = await readFile(path.join(REFERENCE, 'sqlcsv', '__init__.py'), 'utf8');
    const dir = await referenceWith({ 'sqlcsv/__init__.py': `${KILL_EVERY_OTHER_CASE}\n${init}` });
    const result = await gradeTree({ spec: 'sqlcsv', tree: dir, ...SLACK, ...(await few()) });
    expect(result.requirements.filter((r) => r.total > 0 && !r.pass).map((r) => `${r.id}: ${r.failures[0]?.reason}`)).toEqual([]);
    expect(result.casesPassed).toBe(result.casesTotal);
  });
});

describe.skipIf(!HAS_DOCKER)('hostile trees are graded without credit for what they did not do, in bounded time', { timeout: DOCKER_TIMEOUT }, () => {
  // A few cases are enough to show a hostile tree earns nothing; all of them would cost minutes each.
  const quick = async () => ({ caseTimeoutMs: 1000, ...(await few()) });

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
    const result = await gradeTree({ spec: 'sqlcsv', tree: await tree(files), ...(await quick()) });
    expect([result.satisfied, result.casesPassed]).toEqual([0, 0]);
  });

  it.each([
    ['an infinite loop', 'while True:\n    pass\n'],
    ['100 MB of output', 'import sys\nsys.stdout.write("x" * 100_000_000)\n'],
    ['a fork bomb', 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n'],
    ['an unbounded allocation', 'x = []\nwhile True:\n    x.append(bytearray(50_000_000))\n'],
    ['a daemon that outlives its case', 'import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nsys.exit(1)\n'],
  ])('%s', async (_name, main) => {
    // Three cases: each runs to its limit (and again alone, as the load rule re-runs a timed-out case).
    const result = await gradeTree({ spec: 'sqlcsv', tree: await tree({ 'sqlcsv/__init__.py': '', 'sqlcsv/__main__.py': main }), ...(await quick()), oracleDir: await smallOracle(16) });
    expect(GradeResult.parse(result).casesPassed).toBe(0);
    expect(result.satisfied).toBe(0);
  });
});
