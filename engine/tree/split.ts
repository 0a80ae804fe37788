import { cp, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import PQueue from 'p-queue';
import { establishChecks, type EstablishedChecks } from '../court/check-stage.js';
import { runChecks } from '../court/checks.js';
import type { Task } from '../runtime/engine-context.js';
import { prepareWorkspace } from '../runtime/workspace.js';
import type { StageOutcome } from './stage-outcome.js';
import type { TreeContext } from './tree-context.js';
import type { GateOutcome, Override } from '../court/gate.js';
import { judge, roundReporter } from '../court/judgement.js';
import type { ChatMessage } from '../ports/model-client.js';
import type { NodeResult } from './node-result.js';
import { atomicity, openQuestions } from './plan-rules.js';
import { promptFor } from '../runtime/prompts.js';
import { repairLoop } from '../court/repair-loop.js';
import type { PlanReply, SubtaskReply } from '../runtime/replies.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import { WORK_TOOLS } from '../runtime/tools.js';
import type { NodeAccount } from '../runtime/accounting.js';
import { stamp } from '../ports/events.js';

export type SolveNode = (ctx: TreeContext, task: Task, account: NodeAccount) => Promise<NodeResult>;

/** Subtask slugs made safe for paths and unique among siblings. */
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
      prerequisiteListing: null,
      seedDirs: [],
      oversized: atomicity(s, ctx.atomicity).oversized,
      prerequisite: s.prerequisite,
    };
  });
}

/** The real files a prerequisite produced, as workspace-relative paths. */
async function listing(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .filter((rel) => !rel.split(path.sep).some((part) => part === '.children' || part === '__pycache__'))
    .sort();
}

/**
 * A split node: prerequisites first, alone, their real files handed on; the rest at once,
 * each with an equal share after the parent's reserve; then assembly under `.children/`,
 * integration checks written after the fact, and the same independent re-run and gate.
 */
export async function runSplit(
  ctx: TreeContext,
  task: Task,
  plan: PlanReply,
  account: NodeAccount,
  session: (r: string) => string,
  solveNode: SolveNode,
): Promise<{ outcome: StageOutcome; children: NodeResult[] }> {
  const kids = childTasks(ctx, task, plan);
  const share = account.childShares(kids.length);
  const children: NodeResult[] = new Array(kids.length);
  const seedDirs: string[] = [];
  let prereqListing: string[] | null = null;

  for (const [i, kid] of kids.entries()) {
    if (!kid.prerequisite) continue;
    const result = await solveNode(ctx, { ...kid, seedDirs: [...seedDirs], prerequisiteListing: prereqListing }, account.child(kid.id, share));
    children[i] = result;
    seedDirs.push(result.workspace);
    prereqListing = [...(prereqListing ?? []), ...(await listing(result.workspace))];
  }
  const queue = new PQueue({ concurrency: ctx.concurrency });
  await Promise.all(
    kids.map((kid, i) =>
      kid.prerequisite
        ? null
        : queue.add(async () => {
            children[i] = await solveNode(ctx, { ...kid, seedDirs: [...seedDirs], prerequisiteListing: prereqListing }, account.child(kid.id, share));
          }),
    ),
  );

  const workspace = await prepareWorkspace(ctx, task);
  for (const child of children) {
    // A child stopped before it built anything has no workspace; the merger sees it missing.
    if (await stat(child.workspace).then(() => true, () => false)) {
      await cp(child.workspace, path.join(workspace, '.children', child.slug), { recursive: true });
    }
  }
  const questions = [...new Set([...openQuestions(plan.assumptions), ...children.flatMap((c) => c.openQuestions)])];
  const sandbox = await ctx.sandboxes.create({ workspaceDir: workspace, runId: ctx.runId, purpose: `${task.id}:assemble` });
  const overrides: Override[] = [];
  const interfaceChanges: string[] = [];
  const seam: { current: EstablishedChecks | null } = { current: null };
  try {
    const summary = children
      .map((c) => `- .children/${c.slug}/  verdict ${c.verdict}; goal: ${c.goal}${c.claims.length ? `; claims: ${c.claims.join(' | ')}` : ''}`)
      .join('\n');
    const loop = await repairLoop({
      maxAttempts: ctx.maxAttempts,
      budgetLeft: () => ctx.accounting.current().remaining > 0,
      attempt: async (index, findings) => {
        const messages: ChatMessage[] = [
          { role: 'system', content: promptFor('merger') },
          {
            role: 'user',
            content: `## Goal\n${task.goal}\n\n## Layout and interfaces\n${task.layout ?? plan.layout ?? '(none declared)'}\n\n## Children\n${summary}${
              findings.length ? `\n\n## Attempt ${index}: the last assembly was not done. Fix these first\n${findings.map((f) => `- ${f}`).join('\n')}` : ''
            }`,
          },
        ];
        const merged = await runToolLoop({
          router: ctx.router, role: 'merger', sessionId: session('merger'), nodeId: task.id, messages, tools: WORK_TOOLS,
          ctx: { sandbox, runChecks: () => runChecks(sandbox, seam.current?.checks ?? []) }, events: ctx.events, clock: ctx.clock, maxTurns: ctx.maxTurns,
        });
        interfaceChanges.push(...(merged.finish?.interfaceChanges ?? []));
        ctx.events.emit({ type: 'assembled', ...stamp(ctx.clock, task.id), children: children.map((c) => c.slug), interfaceChanges: merged.finish?.interfaceChanges ?? [] });
        // Integration checks are written after the fact, once the seams exist to be tested.
        seam.current ??= await establishChecks(ctx, task, { reason: 'seam', session, extra: `## Children\n${summary}` });
        return judge(ctx, task, { checks: seam.current.checks, workspace, questions, session, by: 'seam', overrides });
      },
      onRound: roundReporter(ctx, task),
    });

    const { results, opinion } = loop.final.value;
    let outcome: GateOutcome = loop.final.value.outcome;
    const unfinished = children.filter((c) => c.verdict !== 'DONE');
    if (outcome.verdict !== 'NEEDS_HUMAN' && unfinished.length) {
      outcome = {
        verdict: 'INCOMPLETE',
        reasons: [`${unfinished.length} of ${children.length} children are not done: ${unfinished.map((c) => `${c.slug} ${c.verdict}`).join(', ')}`, ...outcome.reasons],
        overrides: [],
      };
    }
    return {
      children,
      outcome: {
        gate: outcome,
        assumptions: plan.assumptions,
        openQuestions: questions,
        checks: seam.current?.checks ?? [],
        checkResults: results,
        opinion,
        attempts: loop.attempts,
        checkRewrites: 0,
        monitorFlags: [],
        overrides,
        interfaceChanges,
      },
    };
  } finally {
    await sandbox.dispose();
  }
}
