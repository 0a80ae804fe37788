import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../harness/index.js';

/**
 * The automatic mutation pass over the sqlcsv reference (tests/support/sqlcsv_mutants.py), on a
 * small fixed-seed sample: the unmutated reference passes every case in the pass's harness, and
 * each sampled mutant is killed by a case or listed, with its reason, in
 * oracle/sqlcsv/auto-mutants-survivors.yaml. `npm run mutants:sqlcsv-auto` runs every mutant and
 * prints the score (docs/oracle-by-method.md).
 */
const SCRIPT = path.join(REPO_ROOT, 'tests', 'support', 'sqlcsv_mutants.py');

interface PassReport {
  mutants: number;
  killed: number;
  survived: number;
  unexplained: string[];
  stale: string[];
}

describe('sqlcsv automatic mutants (fixed-seed sample)', () => {
  // A few seconds of CPU; the limit is wide for a loaded machine.
  it('kills every sampled mutant or explains it', { timeout: 300_000 }, async () => {
    const { stdout } = await promisify(execFile)('python3', [SCRIPT, '--sample', '12', '--seed', '31', '--json'], { cwd: REPO_ROOT }).catch((e: { stdout: string; stderr: string }) => {
      if (!e.stdout) throw new Error(`the mutation pass did not run: ${e.stderr}`);
      return e;
    });
    const report = JSON.parse(stdout) as PassReport;
    expect(report.mutants).toBe(12);
    expect(report.unexplained).toEqual([]);
    expect(report.killed + report.survived).toBe(12);
  });
});
