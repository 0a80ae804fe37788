import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckReport, EXIT, HELD_OUT_MARKER, runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';

/**
 * docs/adding-a-task.md, followed: a toy task of three requirements scaffolded in a temporary
 * folder (spec, oracle with a judge, cases, reference, mutants and sentence map, a SIMULATED
 * corpus with planted defects), then `harness task check` on it through the real grader. It
 * passes; once one mutant is broken (its patch no longer changes what it says it breaks), it
 * fails, naming the property and the mutant.
 */
const SPEC = `# toy

## 0. The deliverable

A Python 3.11 package toyx, run as python3 -m toyx MODE, reading text on standard input.

## 1. Behaviour

Mode upper prints the input with every letter in upper case.

Mode count prints the number of whitespace-separated words of the input.

Mode rev prints the input's characters in reverse order.

## 2. Requirements

R01, R02 and R03, one per sentence of section 1.
`;

const REQUIREMENTS = `- { id: R01, area: modes, title: Upper, criterion: "mode upper prints the input with every letter in upper case" }
- { id: R02, area: modes, title: Count, criterion: "mode count prints the number of whitespace-separated words" }
- { id: R03, area: modes, title: Reverse, criterion: "mode rev prints the input's characters in reverse order" }
`;

const TASK = `version: 1
name: toy
title: toy, three text modes
deliverable:
  language: Python 3.11, standard library only
  package: toyx
  command: [python3, -m, toyx]
  entry_points: [toyx/__init__.py, toyx/__main__.py]
`;

const PROGRAM = `import sys

def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    text = sys.stdin.read()
    if mode == "upper":
        sys.stdout.write(text.upper())
    elif mode == "count":
        sys.stdout.write(f"{len(text.split())}\\n")
    elif mode == "rev":
        sys.stdout.write(text[::-1])
    else:
        sys.stderr.write("usage: toyx upper|count|rev\\n")
        sys.exit(2)

main()
`;

const CASES = `- { id: R01-a, req: R01, args: [upper], stdin: "abc def", expect: { exit: 0, stdout: "ABC DEF" } }
- { id: R01-b, req: R01, args: [upper], stdin: "x1y", expect: { exit: 0, stdout: "X1Y" } }
- { id: R02-a, req: R02, args: [count], stdin: "one two three", expect: { exit: 0, stdout: "3\\n" } }
- { id: R02-b, req: R02, args: [count], stdin: "  solo  ", expect: { exit: 0, stdout: "1\\n" } }
- { id: R03-a, req: R03, args: [rev], stdin: "abc", expect: { exit: 0, stdout: "cba" } }
- { id: R03-b, req: R03, args: [rev], stdin: "ab cd", expect: { exit: 0, stdout: "dc ba" } }
`;

const COVERAGE = `- { id: s0-01, section: "0", sentence: "A Python 3.11 package toyx, run as python3 -m toyx MODE, reading text on standard input.", unpinned: "the frame every case runs in, not a behaviour of its own" }
- { id: s1-01, section: "1", sentence: "Mode upper prints the input with every letter in upper case.", cases: [R01-a, R01-b] }
- { id: s1-02, section: "1", sentence: "Mode count prints the number of whitespace-separated words of the input.", cases: [R02-a, R02-b] }
- { id: s1-03, section: "1", sentence: "Mode rev prints the input's characters in reverse order.", cases: [R03-a, R03-b] }
`;

const MUTANTS = `- id: m-upper-is-lower
  description: "upper mode lower-cases"
  breaks: [R01]
  sections: ["1"]
  sentence: s1-01
  patch: [{ file: toyx/__main__.py, find: "text.upper()", replace: "text.lower()" }]
- id: m-count-lines
  description: "count mode counts lines"
  breaks: [R02]
  sections: ["1"]
  sentence: s1-02
  patch: [{ file: toyx/__main__.py, find: "len(text.split())", replace: "len(text.splitlines())" }]
- id: m-rev-unchanged
  description: "rev mode prints the input as it is"
  breaks: [R03]
  sections: ["1"]
  sentence: s1-03
  patch: [{ file: toyx/__main__.py, find: "text[::-1]", replace: "text" }]
`;

/** The SIMULATED corpus: its own program (different words), one test file per requirement, a defect per requirement. */
const CORPUS_PROGRAM = `import sys

MODES = {
    "upper": lambda s: s.upper(),
    "count": lambda s: str(len(s.split())) + "\\n",
    "rev": lambda s: "".join(reversed(s)),
}

if __name__ == "__main__":
    chosen = MODES.get(sys.argv[1] if len(sys.argv) > 1 else "")
    if chosen is None:
        print("usage: toyx upper|count|rev", file=sys.stderr)
        raise SystemExit(2)
    sys.stdout.write(chosen(sys.stdin.read()))
`;

const DEFECTS = `- id: d-r01-title-case
  requirement: R01
  breaks: [R01]
  description: upper mode title-cases
  file: toyx/__main__.py
  find: |2-
        "upper": lambda s: s.upper(),
  replace: |2-
        "upper": lambda s: s.title(),  # SIMULATED DEFECT R01
- id: d-r02-off-by-one
  requirement: R02
  breaks: [R02]
  description: count mode counts one word too many
  file: toyx/__main__.py
  find: |2-
        "count": lambda s: str(len(s.split())) + "\\n",
  replace: |2-
        "count": lambda s: str(len(s.split()) + 1) + "\\n",  # SIMULATED DEFECT R02
- id: d-r03-sorted
  requirement: R03
  breaks: [R03]
  description: rev mode sorts the characters
  file: toyx/__main__.py
  find: |2-
        "rev": lambda s: "".join(reversed(s)),
  replace: |2-
        "rev": lambda s: "".join(sorted(s)),  # SIMULATED DEFECT R03
`;

/**
 * The toy's own judge, as small as a judge can be: the shared runner has already failed a run that
 * never started, timed out, was killed or passed the output cap, so what is left is the exit status
 * and stdout, compared byte for byte. Its reasons never quote the expected output.
 */
const JUDGE = `def judge(case, run):
    exp = case["expect"]
    if run["exit"] != exp["exit"]:
        return f"exit status {run['exit']} is not the expected one"
    if run["stdout"] != exp["stdout"].encode("utf-8"):
        return "stdout differs"
    return None
`;

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
}

async function scaffold(): Promise<{ spec: string; oracle: string; corpus: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-toy-task-'));
  const [spec, oracle, corpus] = ['spec', 'oracle', 'corpus'].map((d) => path.join(root, d, 'toy'));
  await write(spec!, { 'SPEC.md': SPEC, 'requirements.yaml': REQUIREMENTS, 'task.yaml': TASK });
  await write(oracle!, {
    'oracle.yaml': 'version: 1\njudge: judge.py\ncases: { dir: cases }\n',
    'cases/modes.yaml': CASES,
    'coverage.yaml': COVERAGE,
    'mutants.yaml': MUTANTS,
    'reference/toyx/__init__.py': '',
    'reference/toyx/__main__.py': PROGRAM,
    [HELD_OUT_MARKER]: 'held out\n',
  });
  await write(oracle!, { 'judge.py': JUDGE });
  const tests = Object.fromEntries(
    [['r01_upper', 'upper', 'ab', 'AB'], ['r02_count', 'count', 'a b', '2\\n'], ['r03_rev', 'rev', 'ab', 'ba']].map(([slug, mode, input, output]) => [
      `tests/test_${slug}.py`,
      `import subprocess, sys\n\ndef test_mode():\n    out = subprocess.run([sys.executable, "-m", "toyx", "${mode}"], input="${input}", capture_output=True, text=True)\n    assert out.stdout == "${output}"\n`,
    ]),
  );
  await write(corpus!, { 'toyx/__init__.py': '', 'toyx/__main__.py': CORPUS_PROGRAM, 'defects.yaml': DEFECTS, ...tests });
  return { spec: spec!, oracle: oracle!, corpus: corpus! };
}

async function check(dirs: { spec: string; oracle: string; corpus: string }) {
  const io = bufferIo();
  const code = await runCli(['task', 'check', 'toy', '--spec-dir', dirs.spec, '--oracle-dir', dirs.oracle, '--corpus-dir', dirs.corpus, '--json'], io);
  return { code, report: CheckReport.parse(JSON.parse(io.stdout())), stderr: io.stderr() };
}

describe('Adding a task (docs/adding-a-task.md), followed end to end on a toy task of three requirements', () => {
  it('passes harness task check, and fails it, naming the mutant, once one of its mutants is broken', async () => {
    const dirs = await scaffold();
    const good = await check(dirs);
    expect(good.report.properties.filter((p) => p.status === 'fail').map((p) => `${p.property}: ${p.failures.join('; ')}`), good.stderr).toEqual([]);
    expect(good.code).toBe(EXIT.ok);
    expect(good.report.properties.find((p) => p.property === 'reference-passes')?.status).toBe('pass');

    // Broken: its patch now changes nothing the cases can see (upper stays upper), yet it still declares R01.
    const mutants = await readFile(path.join(dirs.oracle, 'mutants.yaml'), 'utf8');
    await writeFile(path.join(dirs.oracle, 'mutants.yaml'), mutants.replace('replace: "text.lower()"', 'replace: "(text.upper())"'));
    const bad = await check(dirs);
    expect(bad.code).toBe(EXIT.propertyFailed);
    const failed = bad.report.properties.filter((p) => p.status === 'fail');
    expect(failed.map((p) => p.property)).toContain('mutants-exact');
    expect(failed.flatMap((p) => p.failures).join('\n')).toContain('m-upper-is-lower');
  }, 600_000);
});
