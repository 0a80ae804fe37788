import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gradeTree, oracleDir } from '../../harness/index.js';
import { figure, sample, type Figure } from './stats.js';

/** Target: grading the reference tree in under 3 s on a 2-core machine. */
export const GRADE_TARGET_MS = 3000;

/**
 * Grading wall time, against the container floor, and against grading an empty tree: the
 * same container, runner and case count, where every case only starts an interpreter that
 * fails at once. That second figure is what a fresh `python3 -m` per case costs by itself.
 */
export async function gradeBench(floorMs: number): Promise<Figure[]> {
  const reference = path.join(oracleDir('sqlcsv'), 'reference');
  const empty = await mkdtemp(path.join(tmpdir(), 'rdh-bench-empty-'));
  let cases = 0;
  const emptyTimes = await sample(5, () => gradeTree({ tree: empty }));
  const times = await sample(7, async () => {
    const result = await gradeTree({ tree: reference });
    if (result.satisfied !== result.total) throw new Error(`reference scored ${result.satisfied}/${result.total}; the bench measures a passing grade`);
    cases = result.casesTotal;
  });
  const med = figure('x', times).medianMs;
  const emptyMed = figure('x', emptyTimes).medianMs;
  return [
    figure(`grade an empty tree (${cases} interpreter starts)`, emptyTimes, floorMs, 'runner + one python3 start per case'),
    figure(`grade the reference tree (${cases} cases)`, times, floorMs, `target < ${GRADE_TARGET_MS} ms: ${med < GRADE_TARGET_MS ? 'met' : 'MISSED'}; ${(med / emptyMed).toFixed(2)}x the empty tree`),
  ];
}
