import { describe, expect, it } from 'vitest';
import { classify, type CheckResult } from '../../../engine/index.js';

const ran = (exitCode: number | null, output = '', timedOut = false): CheckResult => ({ id: 'c', passed: exitCode === 0, exitCode, timedOut, output });

describe('falsification on an empty workspace', () => {
  it('calls a check that passes with nothing built a tautology', () => {
    expect(classify(ran(0))).toEqual({ outcome: 'tautology', detail: 'it passes with nothing built, so it proves nothing' });
  });

  it('calls a check with its own syntax error, or one needing a missing tool, or one that hangs, malformed', () => {
    expect(classify(ran(1, '  File "<string>", line 1\nSyntaxError: invalid syntax'))).toMatchObject({ outcome: 'malformed', detail: 'the check itself has a syntax error (SyntaxError)' });
    expect(classify(ran(127, 'sh: 1: jq: not found'))).toMatchObject({ outcome: 'malformed', detail: 'it needs `jq`, which the sandbox does not have' });
    expect(classify(ran(null, '', true))).toMatchObject({ outcome: 'malformed' });
  });

  it('keeps a check that fails because the work is absent', () => {
    expect(classify(ran(1, "python3: can't open file 'hello.py'"))).toEqual({ outcome: 'ok', detail: 'fails because the work does not exist yet' });
    // A program the work should provide is missing: that is the work's absence, not a missing tool.
    expect(classify(ran(127, 'sh: 1: ./run.sh: not found')).outcome).toBe('ok');
  });
});
