import type { CheckReport } from './check-result.js';

/** Failures printed under a failing row; the JSON form holds them all. */
export const FAILURES_SHOWN = 12;

/** The table `harness task check` prints: one row per property, its failures under it, and a summary line. */
export function renderCheck(r: CheckReport): string {
  const width = Math.max(...r.properties.map((p) => p.property.length), 'property'.length);
  const lines = [`${'property'.padEnd(width)}  status  detail`, `${'-'.repeat(width)}  ------  ------`];
  for (const p of r.properties) {
    lines.push(`${p.property.padEnd(width)}  ${p.status.toUpperCase().padEnd(6)}  ${p.detail}`);
    if (p.status !== 'fail') continue;
    for (const f of p.failures.slice(0, FAILURES_SHOWN)) lines.push(`${' '.repeat(width)}    - ${f}`);
    if (p.failures.length > FAILURES_SHOWN) lines.push(`${' '.repeat(width)}    ... and ${p.failures.length - FAILURES_SHOWN} more (--json lists every one)`);
  }
  const count = (s: string) => r.properties.filter((p) => p.status === s).length;
  const failed = r.properties.filter((p) => p.status === 'fail').map((p) => p.property);
  lines.push(
    '',
    `${r.task}: ${r.pass ? 'VALID' : `INVALID (${failed.join(', ')})`}: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped of ${r.properties.length} properties; ${r.gradings} gradings in ${(r.elapsedMs / 1000).toFixed(0)} s${r.exhaustive.mutants || r.exhaustive.corpus ? ' (exhaustive)' : ''}`,
  );
  return `${lines.join('\n')}\n`;
}
