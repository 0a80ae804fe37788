import path from 'node:path';
import { gradeTree, oracleDir, specDir } from '../../harness/index.js';
import { witnessCaseIds } from '../support/witness-oracle.js';
import { figure, sample, type Figure } from './stats.js';

/**
 * What the witness cases save (tests/support/witness-oracle.ts): each task's reference graded with
 * the whole oracle and with its witness cases, alternately, in the same run. The ratio is what a
 * SIMULATED Docker test's grading costs against a whole one.
 */
export async function witnessBench(n = 3, tasks: readonly string[] = ['sqlcsv', 'commonmark']): Promise<{ figures: Figure[]; lines: string[] }> {
  const figures: Figure[] = [];
  const lines: string[] = [];
  for (const task of tasks) {
    const tree = path.join(oracleDir(task), 'reference');
    const witnesses = await witnessCaseIds(task);
    const grade = (o: { caseIds?: readonly string[] }) => gradeTree({ tree, spec: task, specDir: specDir(task), runId: 'bench-witness', caseTimeoutMs: 20_000, ...o });
    const whole: number[] = [];
    const cut: number[] = [];
    await grade({ caseIds: witnesses });
    for (let i = 0; i < n; i++) {
      whole.push(...(await sample(1, () => grade({}), 0)));
      cut.push(...(await sample(1, () => grade({ caseIds: witnesses }), 0)));
    }
    const all = figure(`${task}: reference, whole oracle`, whole);
    const few = figure(`${task}: reference, ${witnesses.length} witness cases`, cut, all.medianMs, 'ratio to the whole oracle');
    figures.push(all, few);
    lines.push(`${task}: a grading with the witness cases takes ${few.ratio?.toFixed(2)} of one with the whole oracle (${few.medianMs.toFixed(0)} ms against ${all.medianMs.toFixed(0)} ms, median of ${n})`);
  }
  return { figures, lines };
}
