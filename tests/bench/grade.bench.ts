import path from 'node:path';
import { gradeTree, oracleDir } from '../../harness/index.js';
import { figure, sample, type Figure } from './stats.js';

/** Target: grading the reference tree in under 3 s on a 2-core machine. */
export const GRADE_TARGET_MS = 3000;

export async function gradeBench(floorMs: number): Promise<Figure[]> {
  const tree = path.join(oracleDir('sqlcsv'), 'reference');
  let last = 0;
  const times = await sample(7, async () => {
    const result = await gradeTree({ tree });
    if (result.satisfied !== result.total) throw new Error(`reference scored ${result.satisfied}/${result.total}; the bench measures a passing grade`);
    last = result.casesTotal;
  });
  const med = figure('x', times).medianMs;
  return [
    figure(`grade reference tree (${last} cases)`, times, floorMs, `target < ${GRADE_TARGET_MS} ms: ${med < GRADE_TARGET_MS ? 'met' : 'MISSED'}`),
  ];
}
