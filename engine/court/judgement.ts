import type { Check, CheckResult } from '../base/check.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { isUnplaced } from '../runtime/model-family.js';
import { stamp } from '../ports/events.js';
import { gate, type GateOutcome, type VerifierOpinion } from './gate.js';
import type { NodeRecord } from './node-record.js';
import { repairLoop, type RepairRound, type RepairStop } from './repair-loop.js';
import { verifyWork } from './verify-work.js';

export interface Judgement {
  outcome: GateOutcome;
  results: CheckResult[];
  opinion: VerifierOpinion | null;
}

/**
 * The critic half of one repair round, the same for a leaf and an assembly: the independent
 * re-run, then the gate, its overrides recorded, and the findings the next attempt starts from.
 */
export async function judge(
  ctx: EngineContext,
  task: Task,
  o: { checks: Check[]; workspace: string; session: (r: string) => string; by: 'verifier' | 'seam'; record: NodeRecord },
): Promise<RepairRound<Judgement>> {
  const { results, opinion } = await verifyWork(ctx, task, o.checks, o.workspace, o.session, o.by);
  o.record.checkResults = results;
  o.record.opinion = opinion;
  o.record.note(opinion?.findings ?? []);
  const contributors = ctx.accounting.current().contributorFamilies;
  const outcome = gate({ checks: results, verifier: opinion, contributorFamilies: [...contributors], openQuestions: o.record.questions });
  o.record.overrides.push(...outcome.overrides);
  for (const ov of outcome.overrides) ctx.events.emit({ type: 'override', ...stamp(ctx.clock, task.id), ...ov });
  const failing = results.filter((r) => !r.passed);
  const label = o.by === 'seam' ? 'seam check' : 'check';
  return {
    value: { outcome, results, opinion },
    score: results.length - failing.length,
    accepted: outcome.verdict === 'DONE',
    settled: outcome.verdict === 'NEEDS_HUMAN' || outcome.verdict === 'CHECKS_INADEQUATE',
    independent: opinion !== null && !contributors.has(opinion.family) && !isUnplaced(opinion.family),
    findings: [...failing.map((f) => `${label} ${f.id} failed: ${f.output.slice(-500)}`), ...(opinion?.verdict === 'NOT_DONE' ? opinion.findings : [])],
  };
}

/** A round the court settled before any re-run: the checks cannot decide DONE, so another attempt cannot help. */
export function settledRound(verdict: 'CHECKS_INADEQUATE' | 'NOT_DONE', reason: string, score: number): RepairRound<Judgement> {
  return { value: { outcome: { verdict, reasons: [reason], overrides: [] }, results: [], opinion: null }, score, accepted: false, settled: true, independent: true, findings: [] };
}

/**
 * A node's repair rounds, the same for a leaf and an assembly: each attempt runs as that
 * attempt (every call it makes says so), its number and the loop's stop are recorded, and
 * another attempt is made only while the node and every ancestor still have budget.
 */
export async function repairRounds(
  ctx: EngineContext,
  task: Task,
  record: NodeRecord,
  attempt: (index: number, findings: string[]) => Promise<RepairRound<Judgement>>,
): Promise<GateOutcome> {
  const loop = await repairLoop({
    maxAttempts: ctx.maxAttempts,
    budgetLeft: () => ctx.accounting.current().headroom > 0,
    attempt: (index, findings) =>
      ctx.accounting.inAttempt(index, () => {
        record.attempts = index;
        return attempt(index, findings);
      }),
    onRound: roundReporter(ctx, task),
  });
  record.repairStop = loop.stop;
  return loop.final.value.outcome;
}

/** What the next attempt starts from: the last one's failures, first. */
export function findingsNote(index: number, findings: string[], what: 'attempt' | 'assembly'): string {
  return findings.length ? `\n\n## Attempt ${index}: the last ${what} was not done. Fix these first\n${findings.map((f) => `- ${f}`).join('\n')}` : '';
}

/** Journals one round of a repair loop. */
function roundReporter(ctx: EngineContext, task: Task) {
  return (attempt: number, round: RepairRound<Judgement>, stop: RepairStop | null): void =>
    ctx.events.emit({ type: 'repair_round', ...stamp(ctx.clock, task.id), attempt, accepted: round.accepted, independent: round.independent, score: round.score, stop });
}
