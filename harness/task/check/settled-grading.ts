import type { PlannedTree } from './grading-plan.js';

/**
 * One planned tree's grading, on its subset of cases when it has one (covering-cases.ts). A
 * subset proves only that a baseline earns nothing, so a baseline (the empty tree, a constant
 * program) that earns a requirement on its subset is graded again on every case, and that
 * grading stands. A mutant's exec twin keeps its subset: modes-agree compares it there.
 */
export async function settledGrading<R extends { satisfied: number }>(
  planned: Pick<PlannedTree, 'name' | 'kind' | 'cases'>,
  grade: (caseIds?: readonly string[]) => Promise<R>,
  progress?: (line: string) => void,
): Promise<{ result: R; cases?: string[] }> {
  const result = await grade(planned.cases);
  if (!planned.cases) return { result };
  if (result.satisfied > 0 && (planned.kind === 'empty' || planned.kind === 'constant')) {
    progress?.(`${planned.name} earns ${result.satisfied} on ${planned.cases.length} cases; graded again on every case`);
    return { result: await grade() };
  }
  return { result, cases: planned.cases };
}
