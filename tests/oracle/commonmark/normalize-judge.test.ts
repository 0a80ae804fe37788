import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORACLE, pythonJson } from './commonmark-examples.js';

/**
 * Judges [case, run] pairs as the shared runner does: its own run_failure first (a run that never
 * started, timed out, was killed or passed the cap), then judge.py (stdout and stderr given as text,
 * encoded here as UTF-8 unless raw).
 */
const JUDGE = `
import json, os, sys
sys.path.insert(0, os.environ["ORACLE_DIR"])
sys.path.insert(0, os.environ["RUNNER_DIR"])
from judge import judge
from runner import run_failure
out = []
for case, run in json.load(sys.stdin):
    run = dict(run)
    run["stdout"] = bytes.fromhex(run["stdout_hex"]) if "stdout_hex" in run else run["stdout"].encode("utf-8")
    run["stderr"] = run.get("stderr", "").encode("utf-8")
    out.append(run_failure(run) or judge(case, run))
print(json.dumps(out))
`;
const RUNNER_DIR = path.join(ORACLE, '..', 'runner');
interface Run {
  spawn_error?: boolean;
  timed_out?: boolean;
  exit?: number | null;
  stdout?: string;
  stdout_hex?: string;
  stderr?: string;
}
const EXPECTED = '<h1>Title</h1>\n<p>a <em>b</em><br />\nc &quot;d&quot;</p>\n<pre><code>x  y\n</code></pre>\n';
const SECRET_WORDS = ['Title', 'x  y', '<em>', '<h1>', 'quot', 'code'];

function judge(runs: Run[], html = EXPECTED): (string | null)[] {
  const pairs = runs.map((r) => [
    { expect: { html } },
    { spawn_error: false, timed_out: false, exit: 0, stdout: '', stderr: '', ...r },
  ]);
  return pythonJson<(string | null)[]>(JUDGE, pairs, { ORACLE_DIR: ORACLE, RUNNER_DIR });
}

describe('the commonmark judge', () => {
  it('passes the expected HTML, as written or in an equivalent form, whatever stderr says', () => {
    const equivalent = '<h1>Title</h1><p>a <em>b</em><br>c &#34;d&#x22;</p>\n\n<pre><code>x  y\n</code></pre>';
    expect(judge([{ stdout: EXPECTED }, { stdout: equivalent, stderr: 'warning: whatever' }])).toEqual([null, null]);
  });

  it('names the kind of failure, never the expected output', () => {
    const reasons = judge([
      { spawn_error: true },
      { timed_out: true, exit: null },
      { exit: null },
      { exit: 1, stdout: EXPECTED },
      { stdout_hex: 'ff' },
      { stdout: 'x'.repeat((1 << 20) + 1) },
      { stdout: '\n  \n' },
      { stdout: EXPECTED.replace('<h1>', '<h2>').replace('</h1>', '</h2>') },
      { stdout: EXPECTED.replace('<em>b</em>', '*b*') },
      { stdout: EXPECTED.replace('x  y', 'x y') },
      { stdout: EXPECTED.replace('&quot;', '"') },
      { stdout: '<h1>Title</h1>' },
      { stdout: EXPECTED + '<hr />' },
    ]);
    expect(reasons).toMatchInlineSnapshot(`
      [
        "the program could not be started",
        "timed out",
        "killed by a signal",
        "exit status 1 is not the expected one",
        "stdout is not UTF-8",
        "output exceeded the 1 MiB cap",
        "stdout is empty once normalised, HTML was expected",
        "HTML differs at token 1: another tag was expected",
        "HTML differs at token 5: other text was expected",
        "HTML differs at token 14: other text was expected",
        "HTML differs at token 10: other text was expected",
        "HTML ends after token 3, more was expected",
        "HTML goes on past token 16, where it was expected to end",
      ]
    `);
    for (const reason of reasons) for (const word of SECRET_WORDS) expect(reason ?? '').not.toContain(word);
  });

  it('judges a hostile output in linear time (unterminated tags would make html.parser quadratic)', { timeout: 60_000 }, () => {
    const started = Date.now();
    const reasons = judge([{ stdout: '<a '.repeat(200_000) }, { stdout: '<!--'.repeat(100_000) }, { stdout: '<p>a<b</p>' }]);
    expect(reasons).toEqual([
      'HTML differs at token 1: another tag was expected',
      'HTML differs at token 1: another tag was expected',
      'HTML differs at token 1: another tag was expected',
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
