import type { GateOutcome } from '../court/gate.js';
import type { NodeRecord } from '../court/node-record.js';
import { stamp } from '../ports/events.js';
import type { NodeAccount } from '../runtime/accounting.js';
import type { Task } from '../runtime/engine-context.js';
import { isUnplaced } from '../runtime/model-family.js';
import { nodeOfWorkspace, workspaceOf } from '../runtime/workspace.js';
import type { MergeRecord, NodeResult, NodeStop } from './node-result.js';
import type { TreeContext } from './tree-context.js';

export interface NodeEnding {
  mode: 'leaf' | 'split';
  forcedExecute: string | null;
  outcome: GateOutcome;
  stop: NodeStop | null;
  children: NodeResult[];
  merge: MergeRecord | null;
}

/**
 * A node's result from what its record and ledger hold, however it ended, and its `verdict`
 * event. A question stays a question whatever else ended the node (a stop, too few checks):
 * it travels up and blocks DONE.
 */
export function finishNode(ctx: TreeContext, task: Task, account: NodeAccount, record: NodeRecord, end: NodeEnding): NodeResult {
  let { outcome } = end;
  if (record.questions.length && outcome.verdict !== 'NEEDS_HUMAN') {
    outcome = { verdict: 'NEEDS_HUMAN', reasons: [`open question(s) only a person can settle: ${record.questions.join(' | ')}`, ...outcome.reasons], overrides: outcome.overrides };
  }
  const opinion = record.opinion;
  const result: NodeResult = {
    id: task.id, slug: task.slug, goal: task.goal, depth: task.depth, kind: task.kind, mode: end.mode, forcedExecute: end.forcedExecute,
    verdict: outcome.verdict, reasons: outcome.reasons, assumptions: record.assumptions, openQuestions: record.questions,
    claims: task.claims, artifacts: task.artifacts, checks: record.checks, checkResults: record.checkResults,
    // A family signed off when its verifier said DONE and it contributed nothing; the gate may still withhold DONE.
    verifiedBy: opinion?.verdict === 'DONE' && !account.contributorFamilies.has(opinion.family) && !isUnplaced(opinion.family) ? [opinion.family] : [],
    contributorModels: [...account.contributorModels], contributorFamilies: [...account.contributorFamilies],
    attempts: record.attempts, repairStop: record.repairStop, merge: end.merge, stop: end.stop, checkRewrites: record.checkRewrites, monitorFlags: record.monitorFlags,
    overrides: record.overrides, interfaceChanges: record.interfaceChanges, allocation: account.allocation, tokens: account.spent, usage: account.usage,
    costUsd: account.costUsd, estimatedUsageCalls: account.estimatedCalls,
    ...(account.cuts.length + account.cuts.budget > 0 ? { cuts: { ...account.cuts } } : {}),
    workspace: workspaceOf(ctx, task), ...(task.seedDirs.length ? { seeds: task.seedDirs.map(nodeOfWorkspace) } : {}), children: end.children,
  };
  ctx.events.emit({
    type: 'verdict', ...stamp(ctx.clock, task.id), verdict: result.verdict, reasons: result.reasons,
    checksPassed: result.checkResults.filter((c) => c.passed).length, checksTotal: result.checkResults.length,
    verifiedBy: result.verifiedBy, openQuestions: result.openQuestions, attempt: result.attempts,
  });
  return result;
}
