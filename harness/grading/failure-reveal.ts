import type { RunnerReport } from './grading-report.js';
import type { OracleCase } from './oracle-cases.js';

const MAX_LINES = 12;

/**
 * Full differences of the failing cases, for `harness grade --reveal`: the case's
 * arguments and expected output beside what the program printed. This quotes the oracle,
 * so it is for a person at a terminal only; it never enters a GradeResult or any file.
 */
export function revealFailures(cases: OracleCase[], report: RunnerReport): string {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const blocks: string[] = [];
  for (const row of report.cases) {
    if (row.pass) continue;
    const c = byId.get(row.id);
    const got = report.revealed?.[row.id];
    if (!c) continue;
    const lines = [`${row.id}  (${row.reason ?? 'failed'})`, `  args: ${c.args.map(quoteArg).join(' ')}`];
    if (c.stdin !== undefined) lines.push(...block('stdin', c.stdin));
    lines.push(`  exit: expected ${c.expect.exit}, got ${row.exit ?? 'none'}`);
    if (c.expect.stdout !== undefined) lines.push(...block('expected stdout', c.expect.stdout));
    if (c.expect.result) lines.push(...block('expected result', JSON.stringify(c.expect.result)));
    if (got) {
      lines.push(...block('got stdout', got.stdout));
      if (got.stderr) lines.push(...block('got stderr', got.stderr));
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.length ? `${blocks.join('\n\n')}\n` : 'no failing case\n';
}

function block(title: string, text: string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, MAX_LINES).map((l) => `    |${JSON.stringify(l).slice(1, -1)}`);
  if (lines.length > MAX_LINES) shown.push(`    ... ${lines.length - MAX_LINES} more lines`);
  return [`  ${title}:`, ...shown];
}

function quoteArg(arg: string): string {
  return /^[\w{}./=-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
