import type { Check, CheckResult } from '../base/check.js';
import type { Sandbox } from '../ports/sandbox.js';

/** Default time one check may take. */
export const CHECK_TIMEOUT_MS = 60_000;
const OUTPUT_TAIL = 2_000;

export async function runChecks(sandbox: Sandbox, checks: Check[], timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const r = await sandbox.exec(check.command, { timeoutMs });
    const output = `${r.stdout}${r.stderr ? `\n[stderr]\n${r.stderr}` : ''}`;
    results.push({
      id: check.id,
      passed: r.exitCode === 0 && !r.timedOut,
      exitCode: r.exitCode,
      timedOut: r.timedOut,
      output: output.length > OUTPUT_TAIL ? `...${output.slice(-OUTPUT_TAIL)}` : output,
    });
  }
  return results;
}

export type FalsificationOutcome = 'ok' | 'tautology' | 'malformed';

export interface Falsification {
  checkId: string;
  outcome: FalsificationOutcome;
  detail: string;
  exitCode: number | null;
}

const SYNTAX = /SyntaxError|IndentationError|syntax error|unexpected (EOF|end of file|token)|Bad substitution|unterminated/i;
const MISSING_TOOL = /(?:^|\n|: )([A-Za-z0-9_.+-]+): (?:command )?not found/;

/**
 * Classify checks by running them on an empty workspace, before any work exists. Passing
 * there is a tautology (it proves nothing about the goal); failing with a syntax or tool
 * error is malformed (it could never pass, and would fail the work for its own bug). A
 * failure because the work is absent is what a good check does.
 */
export async function falsify(emptySandbox: Sandbox, checks: Check[], timeoutMs = 20_000): Promise<Falsification[]> {
  const results = await runChecks(emptySandbox, checks, timeoutMs);
  return results.map((r) => ({ checkId: r.id, exitCode: r.exitCode, ...classify(r) }));
}

export function classify(r: CheckResult): { outcome: FalsificationOutcome; detail: string } {
  if (r.timedOut) return { outcome: 'malformed', detail: 'it hangs on an empty workspace' };
  if (r.exitCode === 0) return { outcome: 'tautology', detail: 'it passes with nothing built, so it proves nothing' };
  const syntax = SYNTAX.exec(r.output);
  if (syntax) return { outcome: 'malformed', detail: `the check itself has a syntax error (${syntax[0]})` };
  const tool = r.exitCode === 127 ? MISSING_TOOL.exec(r.output) : null;
  if (tool && !tool[1]!.includes('/')) {
    return { outcome: 'malformed', detail: `it needs \`${tool[1]}\`, which the sandbox does not have` };
  }
  return { outcome: 'ok', detail: 'fails because the work does not exist yet' };
}
