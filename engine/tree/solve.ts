import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Accounting, NodeAccount } from '../runtime/accounting.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { brief } from '../runtime/brief.js';
import type { Task } from '../runtime/engine-context.js';
import { sessionIds } from '../runtime/session.js';
import { workspaceOf } from '../runtime/workspace.js';
import type { TreeContext } from './tree-context.js';
import { BudgetExhaustedError, NoEligibleModelError } from '../base/errors.js';
import { type EventSink, stamp } from '../ports/events.js';
import type { GateOutcome } from '../court/gate.js';
import { runLeaf } from './leaf.js';
import type { StageOutcome } from './stage-outcome.js';
import type { ChatMessage, ModelClient } from '../ports/model-client.js';
import { ModelRouter } from '../runtime/model-router.js';
import type { ModelSpec } from '../runtime/model-spec.js';
import type { NodeResult } from './node-result.js';
import { DEFAULT_ATOMICITY, atomicity, isOneFileGoal, maySplitAtDepth, namedFiles, openQuestions, type AtomicityLimits } from './plan-rules.js';
import { promptFor } from '../runtime/prompts.js';
import { PlanReply } from '../runtime/replies.js';
import { runSplit } from './split.js';
import { StructuredOutputError, askStructured } from '../runtime/structured.js';
import type { SandboxProvider } from '../ports/sandbox.js';

export interface SolveOptions {
  /** The one-line goal (or, for a spec-driven run, the objective's summary). */
  goal: string;
  /** Token allocation of the whole tree. */
  budget: number;
  /** Planning levels allowed. Default 3. */
  maxDepth?: number;
  /** Attempts per node, first included. Default 2. */
  maxAttempts?: number;
  /** Siblings built at once. Default 4. */
  concurrency?: number;
  /** Model turns per tool loop. Default 30. */
  maxTurns?: number;
  /** Models the engine may call. */
  roster: ModelSpec[];
  /** Clients by endpoint name (see ModelSpec.endpoint). */
  clients: Record<string, ModelClient>;
  sandboxes: SandboxProvider;
  /** Host directory for node workspaces. */
  workRoot: string;
  /** Run id for container labels. Default: derived from the time. */
  runId?: string;
  /** Default: events are dropped. */
  events?: EventSink;
  /** Default: the system clock. */
  clock?: Clock;
  /** Objective text (e.g. a spec) and its acceptance criteria, handed to every node. Default none. */
  objective?: { context: string | null; criteria: string[] };
  /** Default {@link DEFAULT_ATOMICITY}. */
  atomicity?: AtomicityLimits;
  /** Model cooldown after repeated failures. Default 60 000 ms. */
  cooldownMs?: number;
}

export interface SolveRun {
  root: NodeResult;
  router: ModelRouter;
}

/**
 * Solve a goal: the root plans, splits and calls itself on the pieces within a smaller
 * enforced budget, and no node is DONE until a family that contributed nothing has re-run
 * every check. A stop is a designed outcome with an account of why, never a crash; only
 * failures true of every call (quota, configuration, Docker) are thrown.
 */
export async function solve(options: SolveOptions): Promise<SolveRun> {
  const clock = options.clock ?? systemClock;
  const events = options.events ?? { emit: () => undefined };
  const accounting = new Accounting();
  const router = new ModelRouter({ roster: options.roster, clients: options.clients, accounting, events, clock, cooldownMs: options.cooldownMs });
  const ctx: TreeContext = {
    router,
    sandboxes: options.sandboxes,
    events,
    clock,
    accounting,
    workRoot: path.resolve(options.workRoot),
    runId: options.runId ?? `solve-${clock.now().getTime()}`,
    maxDepth: options.maxDepth ?? 3,
    maxAttempts: options.maxAttempts ?? 2,
    concurrency: options.concurrency ?? 4,
    maxTurns: options.maxTurns ?? 30,
    atomicity: options.atomicity ?? DEFAULT_ATOMICITY,
    objective: options.objective ?? { context: null, criteria: [] },
  };
  await mkdir(ctx.workRoot, { recursive: true });
  const root: Task = {
    id: 'root', slug: 'root', goal: options.goal, depth: 0, kind: 'work', claims: [], artifacts: [], criteria: ctx.objective.criteria,
    layout: null, prerequisiteListing: null, seedDirs: [], oversized: true,
  };
  return { root: await solveNode(ctx, root, new NodeAccount('root', options.budget)), router };
}

/** Why this node may not split, or null when it may. */
function splitBrake(ctx: TreeContext, task: Task): string | null {
  if (!maySplitAtDepth(task.depth, ctx.maxDepth)) return `depth cap: a node at depth ${task.depth} may not split under a cap of ${ctx.maxDepth} level(s)`;
  if (isOneFileGoal(task.goal)) return `one-file rule: the goal names exactly one file (${namedFiles(task.goal)[0]}), so it may not split`;
  if (task.depth > 0 && !task.oversized) return 'atomic: the unit claims at most one criterion and declares few artifacts, so it is built whole';
  return null;
}

async function solveNode(ctx: TreeContext, task: Task, account: NodeAccount): Promise<NodeResult> {
  return ctx.accounting.run(account, async () => {
    const session = sessionIds(task.id);
    ctx.events.emit({ type: 'node_started', ...stamp(ctx.clock, task.id), parentId: task.id.includes('.') ? task.id.slice(0, task.id.lastIndexOf('.')) : null, depth: task.depth, goal: task.goal, allocation: account.allocation });
    let assumptions: string[] = [];
    let stage: StageOutcome | null = null;
    let children: NodeResult[] = [];
    let mode: 'leaf' | 'split' = 'leaf';
    let forcedExecute: string | null = null;
    try {
      ctx.accounting.assertRoom();
      forcedExecute = splitBrake(ctx, task);
      let plan: PlanReply | null = null;
      if (!forcedExecute) {
        const messages: ChatMessage[] = [
          { role: 'system', content: promptFor('planner') },
          { role: 'user', content: `## Task: plan\n\nYou are at depth ${task.depth}${task.depth === 0 ? ' (the root: you own the layout and interfaces)' : ''}.\n\n${brief(ctx, task)}` },
        ];
        plan = (await askStructured(ctx.router, 'planner', PlanReply, { sessionId: session('planner'), messages })).value;
        assumptions = plan.assumptions;
        if (plan.mode === 'split' && plan.subtasks.length < 2) forcedExecute = 'a split needs at least two pieces';
      }
      mode = plan && plan.mode === 'split' && !forcedExecute ? 'split' : 'leaf';
      ctx.events.emit({
        type: 'node_planned', ...stamp(ctx.clock, task.id),
        mode: mode === 'split' ? 'split' : 'execute', forcedExecute: plan?.mode === 'split' || !plan ? forcedExecute : null,
        assumptions, openQuestions: openQuestions(assumptions), layout: plan?.layout ?? null,
        subtasks: (mode === 'split' ? plan!.subtasks : []).map((s) => ({ slug: s.slug, goal: s.goal, kind: s.kind, prerequisite: s.prerequisite, claims: s.claims })),
        atomicity: (mode === 'split' ? plan!.subtasks : []).map((s) => ({ slug: s.slug, ...atomicity(s, ctx.atomicity) })),
      });
      if (mode === 'split') {
        const layout = task.layout ?? plan!.layout;
        const split = await runSplit(ctx, { ...task, layout }, plan!, account, session, solveNode);
        stage = split.outcome;
        children = split.children;
      } else {
        stage = await runLeaf(ctx, task, assumptions, session);
      }
    } catch (error) {
      const stop = stopReason(error);
      if (!stop) throw error;
      const questions = [...openQuestions(assumptions), ...children.flatMap((c) => c.openQuestions)];
      // A question stays a question when the money runs out: it travels up, it is not a "stop".
      const outcome: GateOutcome = questions.length
        ? { verdict: 'NEEDS_HUMAN', reasons: [`stopped (${stop}) with question(s) open: ${questions.join(' | ')}`], overrides: [] }
        : { verdict: 'STOPPED', reasons: [stop], overrides: [] };
      stage = {
        gate: outcome, assumptions, openQuestions: questions, checks: [], checkResults: [], opinion: null,
        attempts: 0, checkRewrites: 0, monitorFlags: [], overrides: [], interfaceChanges: [],
      };
    }
    const result: NodeResult = {
      id: task.id, slug: task.slug, goal: task.goal, depth: task.depth, kind: task.kind, mode, forcedExecute,
      verdict: stage.gate.verdict, reasons: stage.gate.reasons, assumptions: stage.assumptions, openQuestions: stage.openQuestions,
      claims: task.claims, artifacts: task.artifacts, checks: stage.checks, checkResults: stage.checkResults,
      // A family signed off when its verifier said DONE and it contributed nothing; the gate may still withhold DONE.
      verifiedBy: stage.opinion?.verdict === 'DONE' && !account.contributorFamilies.has(stage.opinion.family) ? [stage.opinion.family] : [],
      contributorModels: [...account.contributorModels], contributorFamilies: [...account.contributorFamilies],
      attempts: stage.attempts, checkRewrites: stage.checkRewrites, monitorFlags: stage.monitorFlags, overrides: stage.overrides,
      interfaceChanges: stage.interfaceChanges, allocation: account.allocation, tokens: account.spent, usage: account.usage,
      costUsd: account.costUsd, workspace: workspaceOf(ctx, task), children,
    };
    ctx.events.emit({
      type: 'verdict', ...stamp(ctx.clock, task.id), verdict: result.verdict, reasons: result.reasons,
      checksPassed: result.checkResults.filter((c) => c.passed).length, checksTotal: result.checkResults.length,
      verifiedBy: result.verifiedBy, openQuestions: result.openQuestions, attempt: result.attempts,
    });
    return result;
  });
}

/** Failures that end one node as a designed STOPPED outcome; anything else is thrown. */
function stopReason(error: unknown): string | null {
  if (error instanceof BudgetExhaustedError) return `budget: ${error.message}`;
  if (error instanceof NoEligibleModelError) return error.message;
  if (error instanceof StructuredOutputError) return error.message;
  return null;
}
