import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceListingError } from '../base/errors.js';
import type { GateOutcome } from '../court/gate.js';
import { NodeRecord } from '../court/node-record.js';
import { stamp } from '../ports/events.js';
import type { NodeAccount } from '../runtime/accounting.js';
import type { Task } from '../runtime/engine-context.js';
import type { PlanReply, SubtaskReply } from '../runtime/replies.js';
import { sessionIds } from '../runtime/session.js';
import { inScaffolding } from '../runtime/workspace.js';
import { runLeaf } from './leaf.js';
import { finishNode } from './node-finish.js';
import type { NodeResult, NodeStop } from './node-result.js';
import { planNode } from './plan-stage.js';
import { atomicity, isOneFileGoal, maySplitAtDepth, namedFiles } from './plan-rules.js';
import { stopOf } from './stops.js';
import { inSlot, type TreeContext } from './tree-context.js';

/**
 * A node after the build phase. A leaf (or a node that stopped before it had children) is
 * finished: its result is final and shared by every arm. A split node holds its plan and its
 * built children, waiting for an arm to assemble it.
 */
export type BuiltNode =
  | { kind: 'finished'; result: NodeResult }
  | {
      kind: 'split';
      task: Task;
      /** The ledger as the build left it: each arm's merges are charged to a branch of it. */
      account: NodeAccount;
      /** What planning learnt (assumptions, questions); each arm's merge starts from a copy. */
      record: NodeRecord;
      plan: PlanReply;
      children: BuiltNode[];
      /** A prerequisite that failed, so its siblings were stopped and there is nothing to assemble. */
      failedPrerequisite: NodeResult | null;
    };

/**
 * Subtask slugs made safe for paths and unique among siblings. What a prerequisite of an
 * ancestor built (its files and their listing) is inherited, so it reaches every descendant.
 */
export function childTasks(ctx: TreeContext, parent: Task, plan: PlanReply): Task[] {
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
    .filter((rel) => !inScaffolding(rel) && !rel.split(path.sep).includes('__pycache__'))
    .sort();
}

/** Why this node may not split, or null when it may. */
function splitBrake(ctx: TreeContext, task: Task): string | null {
  if (!maySplitAtDepth(task.depth, ctx.maxDepth)) return `depth cap: a node at depth ${task.depth} may not split under a cap of ${ctx.maxDepth} level(s)`;
  if (isOneFileGoal(task.goal)) return `one-file rule: the goal names exactly one file (${namedFiles(task.goal)[0]}), so it may not split`;
  // Its real files must exist before its siblings start, and a merge would belong to one arm.
  if (task.prerequisite) return 'prerequisite: built whole, so its real files exist before its siblings start';
  if (task.depth > 0 && !task.oversized) return 'atomic: the unit claims at most one criterion and declares few artifacts, so it is built whole';
  return null;
}

/**
 * The build phase of one node, the same for both arms: plan, then either build the leaf or
 * build every child (a split node's merge is left to an arm). A stop is a designed outcome
 * with an account of why; only failures true of every call are thrown.
 */
export async function buildNode(ctx: TreeContext, task: Task, account: NodeAccount): Promise<BuiltNode> {
  return ctx.accounting.run(account, async () => {
    const session = sessionIds(task.id);
    ctx.events.emit({ type: 'node_started', ...stamp(ctx.clock, task.id), parentId: task.id.includes('.') ? task.id.slice(0, task.id.lastIndexOf('.')) : null, depth: task.depth, goal: task.goal, allocation: account.allocation });
    const record = new NodeRecord();
    // Children land here as each is built, so a stop while building them still reports the finished ones.
    const built: BuiltNode[] = [];
    let forcedExecute: string | null = null;
    let outcome: GateOutcome;
    let stop: NodeStop | null = null;
    try {
      if (task.blockedBy) throw new Blocked(task.blockedBy);
      ctx.accounting.assertRoom();
      forcedExecute = splitBrake(ctx, task);
      let plan: PlanReply | null = null;
      if (!forcedExecute) {
        plan = await inSlot(ctx, () => planNode(ctx, task, record, session));
        if (plan.mode === 'split' && plan.subtasks.length < 2) forcedExecute = 'a split needs at least two pieces';
      }
      const split = plan && plan.mode === 'split' && !forcedExecute;
      ctx.events.emit({
        type: 'node_planned', ...stamp(ctx.clock, task.id),
        mode: split ? 'split' : 'execute', forcedExecute: plan?.mode === 'split' || !plan ? forcedExecute : null,
        assumptions: record.assumptions, openQuestions: record.questions, layout: plan?.layout ?? null,
        subtasks: (split ? plan!.subtasks : []).map((s) => ({ slug: s.slug, goal: s.goal, kind: s.kind, prerequisite: s.prerequisite, claims: s.claims })),
        atomicity: (split ? plan!.subtasks : []).map((s) => ({ slug: s.slug, ...atomicity(s, ctx.atomicity) })),
      });
      if (split) {
        const planned = { ...task, layout: task.layout ?? plan!.layout };
        const failedPrerequisite = await buildChildren(ctx, planned, plan!, account, built);
        return { kind: 'split', task: planned, account, record, plan: plan!, children: built, failedPrerequisite };
      }
      outcome = await inSlot(ctx, () => runLeaf(ctx, task, record, session));
    } catch (error) {
      const stopped = error instanceof Blocked ? { by: 'prerequisite' as const, model: null, code: 'prerequisite_failed', reason: error.message } : stopOf(error);
      if (!stopped) throw error;
      const { reason, ...cause } = stopped;
      stop = cause;
      outcome = { verdict: 'STOPPED', reasons: [reason], overrides: [] };
    }
    const finishedChildren = built.filter((c) => c?.kind === 'finished').map((c) => c.result);
    record.raise(finishedChildren.flatMap((c) => c.openQuestions));
    const mode = finishedChildren.length ? 'split' : 'leaf';
    return { kind: 'finished', result: finishNode(ctx, task, account, record, { mode, forcedExecute, outcome, stop, children: finishedChildren, merge: null }) };
  });
}

/**
 * Builds the children: prerequisites first, alone, each handing its real files on; a failed
 * prerequisite stops every sibling after it, with that reason; the rest run at once, each with
 * an equal share after the parent's reserve, and each taking a session slot only for its own
 * planning or leaf (the parent, waiting here, holds none). Every sibling finishes (or stops) before a failure
 * true of the whole run is raised, so none is left running.
 */
async function buildChildren(ctx: TreeContext, task: Task, plan: PlanReply, account: NodeAccount, children: BuiltNode[]): Promise<NodeResult | null> {
  const kids = childTasks(ctx, task, plan);
  // Declared allocations follow the plan actually made: every child a leaf's share (it grows
  // again if it splits), this node its assembly share on top. A fixed budget is divided instead.
  const declared = ctx.allocation;
  if (declared) account.resize(declared.assemblyTokens + kids.length * declared.leafTokens);
  const share = declared ? declared.leafTokens : account.childShares(kids.length);
  const seedDirs: string[] = [];
  let prereqListing: string[] | null = task.prerequisiteListing;
  let failed: NodeResult | null = null;
  const blockedBy = () => (failed ? `prerequisite ${failed.slug} ended ${failed.verdict}: ${failed.reasons[0] ?? ''}` : null);
  const child = (kid: Task) => ({ ...kid, seedDirs: [...kid.seedDirs, ...seedDirs], prerequisiteListing: prereqListing, blockedBy: blockedBy() });

  for (const [i, kid] of kids.entries()) {
    if (!kid.prerequisite) continue;
    const built = await buildNode(ctx, child(kid), account.child(kid.id, share));
    children[i] = built;
    if (failed) continue;
    // A prerequisite is built whole (see splitBrake), so it is finished here.
    const result = built.kind === 'finished' ? built.result : null;
    if (!result || result.verdict !== 'DONE') {
      failed = result;
      continue;
    }
    seedDirs.push(result.workspace);
    prereqListing = [...(prereqListing ?? []), ...(await listing(result.workspace))];
  }
  // All at once: each child's planning and leaf wait for a session slot (ctx.sessions), never this node.
  const settled = await Promise.allSettled(
    kids.map(async (kid, i) => {
      if (!kid.prerequisite) children[i] = await buildNode(ctx, child(kid), account.child(kid.id, share));
    }),
  );
  const thrown = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (thrown) throw thrown.reason;
  return failed;
}

/** A node that may not run: a prerequisite it depends on failed. */
class Blocked extends Error {}
