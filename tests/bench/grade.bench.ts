import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gradeTree, oracleDir, sandboxImageTag } from '../../harness/index.js';
import { figure, sample, type Figure } from './stats.js';

/** Target: grading the reference tree in at most 3 s on a 2-core machine. */
export const GRADE_TARGET_MS = 3000;

/**
 * Grading wall time against the container floor (`docker run --rm <image> true`, measured in
 * the same run) and against grading an empty tree: the same container, runner and case
 * count, where every case only starts a program that fails at once. Printed as one line:
 * reference ÷ empty ÷ floor. The reference is also graded with one interpreter per case
 * (`exec`), the way the fast path (`fork`) is measured against.
 */
export async function gradeBench(floorMs: number): Promise<{ figures: Figure[]; summary: string }> {
  const reference = path.join(oracleDir('sqlcsv'), 'reference');
  const empty = await mkdtemp(path.join(tmpdir(), 'rdh-bench-empty-'));
  let cases = 0;
  const short: string[] = [];
  // A per-case limit far above the 3 s default: on a noisy machine a case that runs long
  // would otherwise fail, and the bench measures the time of a passing grade.
  const passing = (mode: 'fork' | 'exec') => async () => {
    const result = await gradeTree({ tree: reference, mode, caseTimeoutMs: 20_000 });
    if (result.satisfied !== result.total) short.push(`${mode} ${result.satisfied}/${result.total}`);
    cases = result.casesTotal;
  };
  // Gradings are seconds each: few samples, one warm-up (the first pays for cold caches).
  const forkTimes = await sample(4, passing('fork'));
  const emptyTimes = await sample(3, () => gradeTree({ tree: empty }), 0);
  const execTimes = await sample(2, passing('exec'), 0);
  const ref = figure('x', forkTimes).medianMs;
  const emptyMed = figure('x', emptyTimes).medianMs;
  const exec = figure('x', execTimes).medianMs;
  const figures = [
    figure(`grade an empty tree (${cases} cases, fast path)`, emptyTimes, floorMs, 'runner + fork server + one failing start per case'),
    figure(`grade the reference tree (${cases} cases, fast path)`, forkTimes, floorMs, `target <= ${GRADE_TARGET_MS} ms: ${ref <= GRADE_TARGET_MS ? 'met' : 'MISSED'}`),
    figure(`grade the reference tree (${cases} cases, one interpreter each)`, execTimes, floorMs, `${(exec / ref).toFixed(2)}x the fast path`),
  ];
  const summary =
    `grading: reference ${(ref / 1000).toFixed(2)} s ÷ empty ${(emptyMed / 1000).toFixed(2)} s ÷ container floor ${(floorMs / 1000).toFixed(2)} s` +
    ` = ${(ref / emptyMed).toFixed(2)} ÷ 1 ÷ ${(floorMs / emptyMed).toFixed(2)} (goal: reference <= ${GRADE_TARGET_MS / 1000} s, ${ref <= GRADE_TARGET_MS ? 'met' : 'MISSED'})`;
  return { figures, summary: short.length ? `${summary}\nWARNING: the reference did not pass every time (${short.join(', ')}); the machine is too loaded to trust these figures` : summary };
}

/** The floor alone (what sandbox.bench.ts also measures): `docker run --rm <image> true` from the CLI. */
export async function floorOnly(): Promise<{ figures: Figure[]; floorMs: number }> {
  const floor = await sample(10, () => promisify(execFile)('docker', ['run', '--rm', '--network', 'none', sandboxImageTag(), 'true']));
  const floorMs = figure('floor', floor).medianMs;
  return { floorMs, figures: [figure('floor: docker run --rm <image> true', floor, floorMs, 'CLI, same image')] };
}
