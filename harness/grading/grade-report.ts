import type { GradeResult } from './grading-report.js';

/** The text `harness grade` prints: one line per requirement, then the summary. */
export function renderGrade(result: GradeResult): string {
  const lines = result.requirements.map((r) => {
    const mark = r.pass ? 'pass' : 'FAIL';
    const why = r.failures[0] ? `  <- ${r.failures[0].case}: ${r.failures[0].reason}` : '';
    return `${r.id}  ${mark}  ${`${r.passed}/${r.total}`.padStart(5)}  ${r.title}${why}`;
  });
  return [
    `grading ${result.tree} against spec ${result.spec}`,
    '',
    ...lines,
    '',
    `satisfied ${result.satisfied}/${result.total} requirements  (cases ${result.casesPassed}/${result.casesTotal})`,
    `test files carried by the tree: ${result.testFiles}`,
    `integrity checks: ${result.integrityChecks}, all clean; ${(result.elapsedMs / 1000).toFixed(1)} s`,
    '',
  ].join('\n');
}
