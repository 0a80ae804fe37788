import { EXIT, type ExitCode } from '../exit-codes.js';
import type { StopReason } from '../journal/sweep-events.js';

/**
 * How a `harness record` invocation ends: its exit code and the one line that says what to do,
 * from the summary's counts and the stop reason. Exit 0 means every staged cell was measured,
 * and nothing else does. The README's "Resuming a sweep" table is {@link resumeTable}, made from
 * the same rows, so the two cannot disagree.
 */

/** The staged cells of an invocation, counted once each by their latest outcome. */
export interface SweepCounts {
  /** Cells this invocation was asked for (its caps, every repetition and arm). */
  staged: number;
  measured: number;
  /** Unavailable for a reason another try may cure, re-run by the same command. */
  transient: number;
  /** Unavailable for a reason another try would not cure, re-run only with --retry-unavailable. */
  permanent: number;
  /** Left unmeasured by a spend ceiling. */
  unmeasured: number;
  /** Never started, or cut before they finished (a stop, a kill). */
  notStarted: number;
}

export type SweepEnd = 'completed' | 'interrupted' | 'fatal' | 'unreachable' | 'quota' | 'ceiling' | 'cells_lost';

interface EndRow {
  end: SweepEnd;
  exit: ExitCode;
  when: string;
  resume: string;
}

/** Every way a sweep ends, in the order they are decided. */
const ENDS: readonly EndRow[] = [
  { end: 'interrupted', exit: EXIT.interrupted, when: 'Ctrl-C or SIGTERM', resume: 'continues: finished cells are kept, the cut pair is re-run with every transcribed call answered from its transcripts' },
  { end: 'fatal', exit: EXIT.environment, when: 'Docker or the sandbox image went away', resume: 'continues once Docker answers, as after Ctrl-C' },
  { end: 'unreachable', exit: EXIT.environment, when: "a provider failed for its whole patience (patience_s)", resume: 'continues once the provider answers: the cells it left unavailable (transient) are re-run, and only the calls after the failure are paid' },
  { end: 'quota', exit: EXIT.quotaExhausted, when: "the provider account's quota ran out", resume: 'continues once the account has credit, paying for nothing already paid' },
  { end: 'ceiling', exit: EXIT.ceilingReached, when: 'max_sessions or max_cost_usd would be passed', resume: "continues up to the manifest's own ceiling when --max-sessions lowered it; a manifest's ceiling is pinned, so going past it means a new --out" },
  { end: 'cells_lost', exit: EXIT.cellsLost, when: 'a staged cell ended unavailable', resume: 're-runs the transient ones; with --retry-unavailable the permanent ones too' },
  { end: 'completed', exit: EXIT.ok, when: 'every staged cell was measured', resume: 'does nothing: every cell is kept' },
];

/** Which end an invocation met: the stop reason first, then what became of its staged cells. */
export function sweepEnd(stop: StopReason, counts: SweepCounts): SweepEnd {
  if (stop === 'interrupted' || stop === 'fatal' || stop === 'unreachable' || stop === 'quota') return stop;
  if (counts.transient + counts.permanent > 0) return 'cells_lost';
  if (counts.measured < counts.staged) return 'ceiling';
  return 'completed';
}

/** The exit code of an end. */
export function exitOfEnd(end: SweepEnd): ExitCode {
  return ENDS.find((row) => row.end === end)!.exit;
}

/** The line a non-zero end prints: what happened and what the same command will do. */
export function endLine(end: SweepEnd, counts: SweepCounts, detail: string, shownRun: string): string | undefined {
  const row = ENDS.find((r) => r.end === end)!;
  if (end === 'completed') return undefined;
  const cells = `${counts.measured} of ${counts.staged} staged cells measured (${counts.transient} unavailable transient, ${counts.permanent} permanent, ${counts.unmeasured} unmeasured by a ceiling, ${counts.notStarted} not started)`;
  return `harness: the sweep stopped (${row.when}: ${detail}); ${cells}. The journal is intact: the same command ${row.resume} (${shownRun}).`;
}

/** The README's table of how a sweep ends and what the same command then does. */
export function resumeTable(): string {
  return ['| the sweep ended when | exit | the same command then |', '|---|---|---|', ...ENDS.map((r) => `| ${r.when} | ${r.exit} | ${r.resume} |`)].join('\n');
}
