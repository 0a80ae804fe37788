import { cp, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Arm } from '../base/arm.js';
import type { CheckResult } from '../base/check.js';
import { establishChecks } from '../court/check-stage.js';
import { runChecks } from '../court/checks.js';
import { DRIFT_ALLOWANCE, driftJudgeFor } from '../court/drift-judge.js';
import { gate, type GateOutcome, type VerifierOpinion } from '../court/gate.js';
import { findingsNote } from '../court/judgement.js';
import { settleChecks } from '../court/meta-verify.js';
import { reviewMerge, type MergeReview } from '../court/merge-review.js';
import { Monitor } from '../court/monitor.js';
import type { NodeRecord } from '../court/node-record.js';
import { repairLoop, type RepairRound } from '../court/repair-loop.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { WORKER_CAP, type NodeAccount } from '../runtime/accounting.js';
import type { Task } from '../runtime/engine-context.js';
import { goalSections } from '../runtime/brief.js';
import { openingMessages } from '../runtime/request-layout.js';
import type { PlanReply } from '../runtime/replies.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import { WORK_TOOLS } from '../runtime/tools.js';
import { prepareWorkspace, WORKSPACE_SCAFFOLDING } from '../runtime/workspace.js';
import type { MergeAttempt, MergeRecord, NodeResult } from './node-result.js';
import type { TreeContext } from './tree-context.js';

/** The reason an ungated merge carries in place of a verdict. */
export const SELF_REVIEWED_REASON = 'ungated: self-reviewed; the self-review is not independent and no verdict is taken from it';

interface Round {
  outcome: GateOutcome;
  results: CheckResult[];
}

/**
 * One merge node's loop in one arm: `mergeAttempts` attempts, the same number in both arms, and
 * nothing else at a merge may judge, retry or repair. Each attempt assembles the children under
 * `.children/` (watched like a leaf's work: monitor, drift judge on a trigger, a 60% cap), then
 * the arm's reviewer reads a detached copy of the result; integration checks on the seams are
 * written after the first assembly, falsified on an empty workspace and meta-verified like a
 * leaf's (rewritten once if weak, else the node ends CHECKS_INADEQUATE), the same in both arms.
 * - gated: a reviewer of a family that contributed nothing to the subtree (judged on who
 *   answered) re-runs the seam checks and judges; the deterministic gate decides; a rejection's
 *   findings go to the next attempt, an approval ends the loop. It can only spend less.
 * - ungated: the merging agent reviews itself; its findings go to the next attempt, no verdict is
 *   taken from it, and the loop spends every attempt.
 * `merge` is filled in as the loop runs, so a stop halfway still reports the attempts made.
 */
export async function runMerge(
  ctx: TreeContext,
  task: Task,
  o: { arm: Arm; plan: PlanReply; account: NodeAccount; session: (r: string) => string; record: NodeRecord; children: NodeResult[]; merge: MergeRecord },
): Promise<GateOutcome> {
  const { arm, account, session, record, children } = o;
  const workspace = await prepareWorkspace(ctx, task);
  for (const c of children) {
    // A child stopped before it built anything has no workspace; the merger sees it missing.
    if (await stat(c.workspace).then(() => true, () => false)) {
      await cp(c.workspace, path.join(workspace, WORKSPACE_SCAFFOLDING.children, c.slug), { recursive: true });
    }
  }
  const summary = children
    .map((c) => `- ${WORKSPACE_SCAFFOLDING.children}/${c.slug}/  verdict ${c.verdict}; goal: ${c.goal}${c.claims.length ? `; claims: ${c.claims.join(' | ')}` : ''}`)
    .join('\n');
  const layout = task.layout ?? o.plan.layout ?? '(none declared)';
  const extra = `## Children\n${summary}`;
  const sandbox = await ctx.sandboxes.create({ workspaceDir: workspace, runId: ctx.runId, purpose: `${task.id}:assemble` });
  try {
    const mergeBasis = account.remaining;
    let seamReady = false;
    const loop = await repairLoop<Round>({
      maxAttempts: ctx.mergeAttempts,
      stopOnNoProgress: false,
      budgetLeft: () => ctx.accounting.current().headroom > 0,
      attempt: (index, findings) =>
        ctx.accounting.inAttempt(index, async (): Promise<RepairRound<Round>> => {
          record.attempts = index;
          const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
            role: 'merger', brief: goalSections(task, `## Layout and interfaces\n${layout}`), tail: `\n\n${extra}${findingsNote(index, findings, 'assembly')}`,
          });
          // Before seam checks exist, the layout is what a write should be about.
          const monitor = new Monitor(seamReady ? record.checks.map((c) => c.command).join('\n') : `${layout}\n${summary}`);
          const mergerSession = session('merger');
          const merged = await ctx.accounting.withPhaseCap(
            'merge',
            WORKER_CAP,
            () =>
              runToolLoop({
                router: ctx.router, role: 'merger', sessionId: mergerSession, nodeId: task.id, messages, tools: WORK_TOOLS,
                ctx: { sandbox, runChecks: () => runChecks(sandbox, record.checks) }, events: ctx.events, clock: ctx.clock, maxTurns: ctx.maxTurns,
                monitor, driftJudge: driftJudgeFor(ctx, task, session), driftAllowance: DRIFT_ALLOWANCE,
              }),
            mergeBasis,
          );
          record.monitorFlags.push(...merged.flags);
          record.interfaceChanges.push(...(merged.finish?.interfaceChanges ?? []));
          record.note([merged.finish?.summary, ...(merged.finish?.interfaceChanges ?? []), merged.finalContent]);
          ctx.events.emit({ type: 'assembled', ...stamp(ctx.clock, task.id), children: children.map((c) => c.slug), interfaceChanges: merged.finish?.interfaceChanges ?? [] });
          // Integration checks are written after the fact, once the seams exist to be tested, and
          // judged like a leaf's. Both arms alike: the meta-verifier judges the checks, not the merge.
          if (!seamReady) {
            const seam = await establishChecks(ctx, task, { reason: 'seam', session, extra, record });
            record.checks = seam.checks;
            if (seam.short) return settled({ verdict: 'CHECKS_INADEQUATE', reasons: [seam.short], overrides: [] });
            const judged = await settleChecks(ctx, task, { checks: seam.checks, listing: () => sandbox.listFiles(), session, record, extra });
            if (!judged.ok) return settled({ verdict: judged.verdict, reasons: [judged.reason], overrides: [] });
            record.checks = judged.checks;
            seamReady = true;
          }
          const { results, review } = await reviewMerge(ctx, task, {
            arm, attempt: index, checks: record.checks, workspace, session, children: extra,
            contributors: [...ctx.accounting.current().contributorFamilies], mergerFamily: ctx.router.lastAnswer(mergerSession)?.family ?? null,
          });
          record.checkResults = results;
          record.note(review.findings);
          const outcome = arm === 'gated' ? judgeGated(ctx, task, record, results, review) : selfReviewed(record);
          const attempt: MergeAttempt = {
            attempt: index,
            reviewer: { kind: review.kind, model: review.model, family: review.family, independent: review.independent },
            accept: review.accept, findings: review.findings,
            verdict: arm === 'gated' ? outcome.verdict : 'self-review, not used',
            seamChecks: { passed: results.filter((r) => r.passed).length, total: results.length },
          };
          o.merge.attempts.push(attempt);
          const failing = results.filter((r) => !r.passed).map((f) => `seam check ${f.id} failed: ${f.output.slice(-500)}`);
          const accepted = arm === 'gated' && outcome.verdict === 'DONE';
          return {
            value: { outcome, results },
            score: results.length - failing.length,
            accepted,
            settled: outcome.verdict === 'NEEDS_HUMAN',
            independent: review.independent,
            findings: accepted ? [] : [...failing, ...review.findings],
          };
        }),
      onRound: (attempt, round, stop) =>
        ctx.events.emit({ type: 'repair_round', ...stamp(ctx.clock, task.id), attempt, accepted: round.accepted, independent: round.independent, score: round.score, stop }),
    });
    record.repairStop = loop.stop;
    o.merge.stop = loop.stop;
    return loop.final.value.outcome;
  } finally {
    await sandbox.dispose();
  }
}

/** A round ended before any review: the seam checks cannot decide the node, so another attempt cannot help. */
function settled(outcome: GateOutcome): RepairRound<Round> {
  return { value: { outcome, results: [] }, score: 0, accepted: false, settled: true, independent: false, findings: [] };
}

/** Gated: the reviewer's opinion goes through the deterministic gate; its overrides are recorded. */
function judgeGated(ctx: TreeContext, task: Task, record: NodeRecord, results: CheckResult[], review: MergeReview): GateOutcome {
  const opinion: VerifierOpinion | null =
    review.model !== null && review.family !== null && review.accept !== null
      ? { verdict: review.accept ? 'DONE' : 'NOT_DONE', model: review.model, family: review.family, findings: review.findings }
      : null;
  record.opinion = opinion;
  const outcome = gate({ checks: results, verifier: opinion, contributorFamilies: [...ctx.accounting.current().contributorFamilies], openQuestions: record.questions });
  record.overrides.push(...outcome.overrides);
  for (const ov of outcome.overrides) ctx.events.emit({ type: 'override', ...stamp(ctx.clock, task.id), ...ov });
  return outcome;
}

/** Ungated: no verdict is taken from the self-review; only a question for a person can settle the node. */
function selfReviewed(record: NodeRecord): GateOutcome {
  if (record.questions.length) return { verdict: 'NEEDS_HUMAN', reasons: [`open question(s) only a person can settle: ${record.questions.join(' | ')}`], overrides: [] };
  return { verdict: 'SELF_REVIEWED', reasons: [SELF_REVIEWED_REASON], overrides: [] };
}
