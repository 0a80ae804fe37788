import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SecretCatalogue } from '../base/secrets.js';
import type { GateOutcome } from '../court/gate.js';
import { NodeRecord } from '../court/node-record.js';
import type { CallLimiter } from '../ports/call-limiter.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { type EngineEvent, type EventSink, stamp } from '../ports/events.js';
import type { ModelClient } from '../ports/model-client.js';
import type { SandboxProvider } from '../ports/sandbox.js';
import { Accounting, NodeAccount, type SessionCeilings } from '../runtime/accounting.js';
import type { Task } from '../runtime/engine-context.js';
import { isUnplaced } from '../runtime/model-family.js';
import { ModelRouter } from '../runtime/model-router.js';
import type { ModelSpec } from '../runtime/model-spec.js';
import type { PlanReply } from '../runtime/replies.js';
import { sessionIds } from '../runtime/session.js';
import { workspaceOf } from '../runtime/workspace.js';
import { runLeaf } from './leaf.js';
import type { NodeResult, NodeStop } from './node-result.js';
import { planNode } from './plan-stage.js';
import { DEFAULT_ATOMICITY, atomicity, isOneFileGoal, maySplitAtDepth, namedFiles, type AtomicityLimits } from './plan-rules.js';
import { runSplit } from './build.js';
import { stopOf } from './stops.js';
import type { TreeContext } from './tree-context.js';

export interface SolveOptions {
  /** The one-line goal (or, for a spec-driven run, the objective's summary). */
  goal: string;
  /** Token allocation of the whole tree. */
  budget: number;
  /** Ceilings on each session (the manifest's unit ceilings). Default: none beyond the tree's budget. */
  sessionCeilings?: SessionCeilings;
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
  /** Default: events are dropped. Every event is redacted (see `secrets`) before it reaches the sink. */
  events?: EventSink;
  /** Default: the system clock. */
  clock?: Clock;
  /** Objective text (e.g. a spec) and its acceptance criteria, handed to every node. Default none. */
  objective?: { context: string | null; criteria: string[] };
  /** Default {@link DEFAULT_ATOMICITY}. */
  atomicity?: AtomicityLimits;
  /** Model cooldown after repeated failures. Default 60 000 ms. */
  cooldownMs?: number;
  /** One bound on model calls in flight, shared with whatever else the caller runs. Default: unlimited. */
  limiter?: CallLimiter;
  /** Known secret values (e.g. the configured API keys) to redact from events, besides every key-shaped string. Default none. */
  secrets?: Iterable<string>;
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
  const sink = options.events ?? { emit: () => undefined };
  const secrets = new SecretCatalogue(options.secrets ?? []);
  const events: EventSink = { emit: (event: EngineEvent) => sink.emit(secrets.redactDeep(event)) };
  const accounting = new Accounting(options.sessionCeilings);
  const router = new ModelRouter({
    roster: options.roster, clients: options.clients, accounting, events, clock, cooldownMs: options.cooldownMs, limiter: options.limiter, secrets,
  });
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
    layout: null, prerequisiteListing: null, seedDirs: [], oversized: true, blockedBy: null,
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
    const record = new NodeRecord();
    const children: NodeResult[] = [];
    let mode: 'leaf' | 'split' = 'leaf';
    let forcedExecute: string | null = null;
    let outcome: GateOutcome;
    let stop: NodeStop | null = null;
    try {
      if (task.blockedBy) throw new Blocked(task.blockedBy);
      ctx.accounting.assertRoom();
      forcedExecute = splitBrake(ctx, task);
      let plan: PlanReply | null = null;
      if (!forcedExecute) {
        plan = await planNode(ctx, task, record, session);
        if (plan.mode === 'split' && plan.subtasks.length < 2) forcedExecute = 'a split needs at least two pieces';
      }
      mode = plan && plan.mode === 'split' && !forcedExecute ? 'split' : 'leaf';
      ctx.events.emit({
        type: 'node_planned', ...stamp(ctx.clock, task.id),
        mode: mode === 'split' ? 'split' : 'execute', forcedExecute: plan?.mode === 'split' || !plan ? forcedExecute : null,
        assumptions: record.assumptions, openQuestions: record.questions, layout: plan?.layout ?? null,
        subtasks: (mode === 'split' ? plan!.subtasks : []).map((s) => ({ slug: s.slug, goal: s.goal, kind: s.kind, prerequisite: s.prerequisite, claims: s.claims })),
        atomicity: (mode === 'split' ? plan!.subtasks : []).map((s) => ({ slug: s.slug, ...atomicity(s, ctx.atomicity) })),
      });
      outcome =
        mode === 'split'
          ? await runSplit(ctx, { ...task, layout: task.layout ?? plan!.layout }, plan!, { account, session, record, out: children, solveNode })
          : await runLeaf(ctx, task, record, session);
    } catch (error) {
      const stopped = error instanceof Blocked ? { by: 'prerequisite' as const, model: null, code: 'prerequisite_failed', reason: error.message } : stopOf(error);
      if (!stopped) throw error;
      const { reason, ...cause } = stopped;
      stop = cause;
      record.raise(children.filter(Boolean).flatMap((c) => c.openQuestions));
      outcome = { verdict: 'STOPPED', reasons: [reason], overrides: [] };
    }
    // A question stays a question whatever else ended the node (a stop, too few checks): it travels up and blocks DONE.
    if (record.questions.length && outcome.verdict !== 'NEEDS_HUMAN') {
      outcome = { verdict: 'NEEDS_HUMAN', reasons: [`open question(s) only a person can settle: ${record.questions.join(' | ')}`, ...outcome.reasons], overrides: outcome.overrides };
    }
    const opinion = record.opinion;
    const result: NodeResult = {
      id: task.id, slug: task.slug, goal: task.goal, depth: task.depth, kind: task.kind, mode, forcedExecute,
      verdict: outcome.verdict, reasons: outcome.reasons, assumptions: record.assumptions, openQuestions: record.questions,
      claims: task.claims, artifacts: task.artifacts, checks: record.checks, checkResults: record.checkResults,
      // A family signed off when its verifier said DONE and it contributed nothing; the gate may still withhold DONE.
      verifiedBy: opinion?.verdict === 'DONE' && !account.contributorFamilies.has(opinion.family) && !isUnplaced(opinion.family) ? [opinion.family] : [],
      contributorModels: [...account.contributorModels], contributorFamilies: [...account.contributorFamilies],
      attempts: record.attempts, repairStop: record.repairStop, stop, checkRewrites: record.checkRewrites, monitorFlags: record.monitorFlags,
      overrides: record.overrides, interfaceChanges: record.interfaceChanges, allocation: account.allocation, tokens: account.spent, usage: account.usage,
      costUsd: account.costUsd, estimatedUsageCalls: account.estimatedCalls, workspace: workspaceOf(ctx, task), children: children.filter(Boolean),
    };
    ctx.events.emit({
      type: 'verdict', ...stamp(ctx.clock, task.id), verdict: result.verdict, reasons: result.reasons,
      checksPassed: result.checkResults.filter((c) => c.passed).length, checksTotal: result.checkResults.length,
      verifiedBy: result.verifiedBy, openQuestions: result.openQuestions, attempt: result.attempts,
    });
    return result;
  });
}

/** A node that may not run: a prerequisite it depends on failed. */
class Blocked extends Error {}
