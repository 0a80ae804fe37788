import type { GradeResult } from './grading-report.js';

/** The text `harness grade` prints: one line per requirement, then the summary. */
export function renderGrade(result: GradeResult): string {
  const lines = result.requirements.map((r) => {
    const mark = r.pass ? 'pass' : 'FAIL';
    const why = r.failures[0] ? `  <- ${r.failures[0].case}: ${r.failures[0].reason}` : '';
    return `${r.id}  ${mark}  ${`${r.passed}/${r.total}`.padStart(5)}  ${r.title}${why}`;
  });
  const notes: string[] = [];
  if (result.undeliverable) notes.push(`tree not graded, scored 0: ${result.undeliverable}`);
  if (result.skippedCount) {
    notes.push(`left out of the graded copy: ${result.skippedCount} entr${result.skippedCount === 1 ? 'y' : 'ies'}`);
    for (const s of result.skipped.slice(0, 10)) notes.push(`  ${s.path}: ${s.why}`);
    if (result.skippedCount > 10) notes.push(`  ... and ${result.skippedCount - 10} more (see --json)`);
  }
  const reruns = result.reruns ?? [];
  if (reruns.length) {
    const passed = reruns.filter((r) => r.outcome === 'passed').length;
    notes.push(`run again alone after running out of wall-clock time: ${reruns.length} case${reruns.length === 1 ? '' : 's'}, ${passed} then passed`);
    for (const r of reruns.slice(0, 10)) notes.push(`  ${r.case}: first ${(r.firstMs / 1000).toFixed(1)} s; alone ${(r.ms / 1000).toFixed(1)} s, CPU ${r.cpuMs === null ? '?' : (r.cpuMs / 1000).toFixed(1)} of ${r.cpuLimitS} s: ${r.outcome}`);
    if (reruns.length > 10) notes.push(`  ... and ${reruns.length - 10} more (see --json)`);
  }
  if (result.compile && !result.compile.ok) notes.push(`byte-compiling the tree: ${result.compile.note ?? 'failed'} (the cases ran without bytecode)`);
  const integrity = result.undeliverable ? 'none needed (nothing ran)' : `${result.integrityChecks}, all clean`;
  return [
    `grading ${result.tree} against spec ${result.spec}`,
    '',
    ...lines,
    '',
    ...(notes.length ? [...notes, ''] : []),
    `satisfied ${result.satisfied}/${result.total} requirements  (cases ${result.casesPassed}/${result.casesTotal})`,
    `test files carried by the tree: ${result.testFiles}`,
    ...(result.scaffolding?.entries
      ? [`engine scaffolding, not graded: ${result.scaffolding.partial ? 'at least ' : ''}${result.scaffolding.files} files, ${result.scaffolding.bytes} bytes (${result.scaffolding.testFiles} test file copies)`]
      : []),
    `integrity checks: ${integrity}; ${(result.elapsedMs / 1000).toFixed(1)} s`,
    '',
  ].join('\n');
}
