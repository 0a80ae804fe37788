import { cp, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import PQueue from 'p-queue';
import { WorkspaceListingError } from '../base/errors.js';
import { establishChecks } from '../court/check-stage.js';
import { runChecks } from '../court/checks.js';
import { driftJudgeFor } from '../court/drift-judge.js';
import type { GateOutcome } from '../court/gate.js';
import { findingsNote, judge, repairRounds, settledRound } from '../court/judgement.js';
import { settleChecks } from '../court/meta-verify.js';
import { Monitor } from '../court/monitor.js';
import type { NodeRecord } from '../court/node-record.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { WORKER_CAP, type NodeAccount } from '../runtime/accounting.js';
import type { Task } from '../runtime/engine-context.js';
import { promptFor } from '../runtime/prompts.js';
import type { PlanReply, SubtaskReply } from '../runtime/replies.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import { WORK_TOOLS } from '../runtime/tools.js';
import { prepareWorkspace } from '../runtime/workspace.js';
import type { NodeResult } from './node-result.js';
import { atomicity } from './plan-rules.js';
import type { TreeContext } from './tree-context.js';

export type SolveNode = (ctx: TreeContext, task: Task, account: NodeAccount) => Promise<NodeResult>;

/**
 * Subtask slugs made safe for paths and unique among siblings. What a prerequisite of an
 * ancestor built (its files and their listing) is inherited, so it reaches every descendant.
 */
export function childTasks(ctx: TreeContext, parent: Task, plan: PlanReply): Array<Task & { prerequisite: boolean }> {
  const used = new Set<string>();
  return plan.subtasks.map((s: SubtaskReply, i) => {
    let slug = s.slug.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || `part-${i + 1}`;
    while (used.has(slug)) slug = `${slug}-${i + 1}`;
    used.add(slug);
    return {
      id: `${parent.id}.${i + 1}`,
      slug,
      goal: s.goal,
      depth: parent.depth + 1,
      kind: s.kind,
      claims: s.claims,
      artifacts: s.artifacts,
      criteria: s.criteria,
      layout: parent.layout ?? plan.layout,
      prerequisiteListing: parent.prerequisiteListing,
      seedDirs: [...parent.seedDirs],
      oversized: atomicity(s, ctx.atomicity).oversized,
      blockedBy: null,
      prerequisite: s.prerequisite,
    };
  });
}

/** The real files a prerequisite produced, as workspace-relative paths. Failing to read them is an error, never "nothing". */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((cause: unknown) => {
    throw new WorkspaceListingError(dir, { cause });
  });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((rel) => !rel.split(path.sep).some((part) => part === '.children' || part === '__pycache__'))
    .sort();
}

/**
 * Runs the children: prerequisites first, alone, each handing its real files on; a failed
 * prerequisite stops every sibling after it, with that reason; the rest run at once, each with
 * an equal share after the parent's reserve. Every sibling finishes (or stops) before a failure
 * true of the whole run is raised, so none is left running.
 */
async function runChildren(ctx: TreeContext, task: Task, plan: PlanReply, account: NodeAccount, children: NodeResult[], solveNode: SolveNode): Promise<{ failedPrerequisite: NodeResult | null }> {
  const kids = childTasks(ctx, task, plan);
  const share = account.childShares(kids.length);
  const seedDirs: string[] = [];
  let prereqListing: string[] | null = task.prerequisiteListing;
  let failed: NodeResult | null = null;
  const blockedBy = () => (failed ? `prerequisite ${failed.slug} ended ${failed.verdict}: ${failed.reasons[0] ?? ''}` : null);
  const child = (kid: Task) => ({ ...kid, seedDirs: [...kid.seedDirs, ...seedDirs], prerequisiteListing: prereqListing, blockedBy: blockedBy() });

  for (const [i, kid] of kids.entries()) {
    if (!kid.prerequisite) continue;
    const result = await solveNode(ctx, child(kid), account.child(kid.id, share));
    children[i] = result;
    if (failed) continue;
    if (result.verdict !== 'DONE') {
      failed = result;
      continue;
    }
    seedDirs.push(result.workspace);
    prereqListing = [...(prereqListing ?? []), ...(await listing(result.workspace))];
  }
  const queue = new PQueue({ concurrency: ctx.concurrency });
  const settled = await Promise.allSettled(
    kids.map((kid, i) =>
      kid.prerequisite
        ? null
        : queue.add(async () => {
            children[i] = await solveNode(ctx, child(kid), account.child(kid.id, share));
          }),
    ),
  );
  const thrown = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (thrown) throw thrown.reason;
  return { failedPrerequisite: failed };
}

/**
 * A split node: its children, then assembly under `.children/`, watched like a leaf's work
 * (monitor, drift judge on a trigger, a 60% cap); integration checks written after the fact,
 * falsified and meta-verified like a leaf's; the same independent re-run and gate. Children
 * land in `out` as each finishes, so a stop during assembly still reports them.
 */
export async function runSplit(
  ctx: TreeContext,
  task: Task,
  plan: PlanReply,
  o: { account: NodeAccount; session: (r: string) => string; record: NodeRecord; out: NodeResult[]; solveNode: SolveNode },
): Promise<GateOutcome> {
  const { account, session, record } = o;
  const { failedPrerequisite } = await runChildren(ctx, task, plan, account, o.out, o.solveNode);
  const children = o.out.filter(Boolean);
  record.raise(children.flatMap((c) => c.openQuestions));
  const unfinished = children.filter((c) => c.verdict !== 'DONE');
  const incomplete = (outcome: GateOutcome): GateOutcome =>
    outcome.verdict === 'NEEDS_HUMAN' || !unfinished.length
      ? outcome
      : {
          verdict: 'INCOMPLETE',
          reasons: [`${unfinished.length} of ${children.length} children are not done: ${unfinished.map((c) => `${c.slug} ${c.verdict}`).join(', ')}`, ...outcome.reasons],
          overrides: [],
        };
  if (failedPrerequisite) {
    const reason = `nothing to assemble: prerequisite ${failedPrerequisite.slug} ended ${failedPrerequisite.verdict}, so its siblings were stopped`;
    return incomplete(record.questions.length ? { verdict: 'NEEDS_HUMAN', reasons: [reason], overrides: [] } : { verdict: 'STOPPED', reasons: [reason], overrides: [] });
  }

  const workspace = await prepareWorkspace(ctx, task);
  for (const c of children) {
    // A child stopped before it built anything has no workspace; the merger sees it missing.
    if (await stat(c.workspace).then(() => true, () => false)) {
      await cp(c.workspace, path.join(workspace, '.children', c.slug), { recursive: true });
    }
  }
  const sandbox = await ctx.sandboxes.create({ workspaceDir: workspace, runId: ctx.runId, purpose: `${task.id}:assemble` });
  try {
    const summary = children
      .map((c) => `- .children/${c.slug}/  verdict ${c.verdict}; goal: ${c.goal}${c.claims.length ? `; claims: ${c.claims.join(' | ')}` : ''}`)
      .join('\n');
    const layout = task.layout ?? plan.layout ?? '(none declared)';
    const extra = `## Children\n${summary}`;
    const mergeBasis = account.remaining;
    let seamReady = false;
    const outcome = await repairRounds(ctx, task, record, async (index, findings) => {
      const messages: ChatMessage[] = [
        { role: 'system', content: promptFor('merger') },
        {
          role: 'user',
          content: `## Goal\n${task.goal}\n\n## Layout and interfaces\n${layout}\n\n## Children\n${summary}${findingsNote(index, findings, 'assembly')}`,
        },
      ];
      // Before seam checks exist, the layout is what a write should be about.
      const monitor = new Monitor(seamReady ? record.checks.map((c) => c.command).join('\n') : `${layout}\n${summary}`);
      const merged = await ctx.accounting.withPhaseCap(
        'merge',
        WORKER_CAP,
        () =>
          runToolLoop({
            router: ctx.router, role: 'merger', sessionId: session('merger'), nodeId: task.id, messages, tools: WORK_TOOLS,
            ctx: { sandbox, runChecks: () => runChecks(sandbox, record.checks) }, events: ctx.events, clock: ctx.clock, maxTurns: ctx.maxTurns,
            monitor, driftJudge: driftJudgeFor(ctx, task, session),
          }),
        mergeBasis,
      );
      record.monitorFlags.push(...merged.flags);
      record.interfaceChanges.push(...(merged.finish?.interfaceChanges ?? []));
      record.note([merged.finish?.summary, ...(merged.finish?.interfaceChanges ?? []), merged.finalContent]);
      ctx.events.emit({ type: 'assembled', ...stamp(ctx.clock, task.id), children: children.map((c) => c.slug), interfaceChanges: merged.finish?.interfaceChanges ?? [] });
      // Integration checks are written after the fact, once the seams exist to be tested, and judged like a leaf's.
      if (!seamReady) {
        const seam = await establishChecks(ctx, task, { reason: 'seam', session, extra, record });
        record.checks = seam.checks;
        if (seam.short) return settledRound('CHECKS_INADEQUATE', seam.short, 0);
        const settled = await settleChecks(ctx, task, { checks: seam.checks, listing: () => sandbox.listFiles(), session, record, extra });
        if (!settled.ok) return settledRound(settled.verdict, settled.reason, 0);
        record.checks = settled.checks;
        seamReady = true;
      }
      return judge(ctx, task, { checks: record.checks, workspace, session, by: 'seam', record });
    });
    return incomplete(outcome);
  } finally {
    await sandbox.dispose();
  }
}
