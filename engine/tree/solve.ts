import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Arm } from '../base/arm.js';
import { SecretCatalogue } from '../base/secrets.js';
import type { Usage } from '../base/usage.js';
import { sessionLimiter, type SessionLimiter } from '../ports/session-limiter.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { EngineEvent, EventSink } from '../ports/events.js';
import type { ModelClient, RequestLayout } from '../ports/model-client.js';
import type { SandboxProvider } from '../ports/sandbox.js';
import { Accounting, NodeAccount, type PARENT_RESERVE, type SessionCeilings, type TreeAllocation } from '../runtime/accounting.js';
import type { Task } from '../runtime/engine-context.js';
import { ModelRouter } from '../runtime/model-router.js';
import type { ModelSpec } from '../runtime/model-spec.js';
import { assembleNode } from './assemble.js';
import { buildNode, type BuiltNode } from './build.js';
import { flatten, type NodeResult } from './node-result.js';
import { DEFAULT_ATOMICITY, type AtomicityLimits } from './plan-rules.js';
import { DEFAULT_REQUEST_LAYOUT } from '../runtime/request-layout.js';
import type { TreeContext } from './tree-context.js';

export interface SolveOptions {
  /** The one-line goal (or, for a spec-driven run, the objective's summary). */
  goal: string;
  /**
   * Tokens the tree may spend: one number for the whole tree (each split keeps
   * {@link PARENT_RESERVE} and shares the rest equally among the children), or declared
   * per-node allocations ({@link TreeAllocation}: each leaf and each assembling node its own,
   * the tree's total following the plan actually made).
   */
  budget: number | TreeAllocation;
  /** Ceilings on each session (the manifest's unit ceilings). Default: none beyond the tree's budget. */
  sessionCeilings?: SessionCeilings;
  /** Planning levels allowed. Default 3. */
  maxDepth?: number;
  /**
   * Most children one planning node may have (the manifest's max_children): a wider plan is
   * asked for again once, then cut by a written rule (see width-rule.ts). Default: no bound.
   */
  maxChildren?: number;
  /** Attempts per leaf, first included. Default 2. */
  maxAttempts?: number;
  /** Who judges every merge (see {@link Arm}). Default `gated`. */
  arm?: Arm;
  /** Attempts of every merge loop, first included; hold it equal across arms. Default 2. */
  mergeAttempts?: number;
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
  /**
   * Where each part of a session's opening request goes. Default {@link DEFAULT_REQUEST_LAYOUT}
   * (what repeats first); a replay passes the layout its transcripts were recorded in.
   */
  requestLayout?: RequestLayout;
  /** Default {@link DEFAULT_ATOMICITY}. */
  atomicity?: AtomicityLimits;
  /** Model cooldown after repeated failures. Default 60 000 ms. */
  cooldownMs?: number;
  /**
   * The one bound on sessions in flight, for every level of the tree and both arms' merges;
   * a sweep passes one limiter to every cell (see {@link SessionLimiter} for what holds a slot).
   * Default: `sessionLimiter(4)`, made for this build and shared by its assemblies.
   */
  limiter?: SessionLimiter;
  /** Known secret values (e.g. the configured API keys) to redact from events, besides every key-shaped string. Default none. */
  secrets?: Iterable<string>;
}

export interface BuildOptions extends Omit<SolveOptions, 'arm'> {
  /**
   * Set only when this build serves one arm alone (independent pairing): every call and event
   * then says so, and only that arm may assemble it. Default: the build is shared by both arms.
   */
  forArm?: Arm;
}

export interface SolveRun {
  root: NodeResult;
  router: ModelRouter;
  arm: Arm;
}

/** What one build spent: planning and every leaf, paid once however many arms assemble it. */
export interface BuildSpend {
  tokens: number;
  costUsd: number;
  usage: Usage;
  estimatedUsageCalls: number;
}

interface BuildState {
  ctx: TreeContext;
  root: BuiltNode;
  rootAccount: NodeAccount;
  forArm: Arm | null;
  assembled: Set<Arm>;
}

const states = new WeakMap<BuiltTree, BuildState>();

/**
 * A planned tree with every leaf built: the phase both arms of a pair share. Each arm then
 * assembles it once (see {@link assemble}); the leaves are never touched again.
 */
export class BuiltTree {
  /** Every finished node (leaves, and nodes stopped before they had children), depth first. */
  readonly leaves: NodeResult[];
  readonly spend: BuildSpend;
  readonly router: ModelRouter;

  constructor(state: BuildState) {
    states.set(this, state);
    this.router = state.ctx.router;
    const leaves: NodeResult[] = [];
    const walk = (node: BuiltNode): void => {
      if (node.kind === 'finished') leaves.push(...flatten(node.result));
      else node.children.forEach(walk);
    };
    walk(state.root);
    this.leaves = leaves;
    const a = state.rootAccount;
    this.spend = { tokens: a.spent, costUsd: a.costUsd, usage: a.usage, estimatedUsageCalls: a.estimatedCalls };
  }
}

/**
 * The build phase, the same for both arms: the root plans, splits and calls itself on the
 * pieces within a smaller enforced budget, and every leaf is built and judged (no node is DONE
 * until a family that contributed nothing has re-run every check). Merges are left to
 * {@link assemble}. A stop is a designed outcome with an account of why, never a crash; only
 * failures true of every call (quota, configuration, Docker) are thrown.
 */
export async function build(options: BuildOptions): Promise<BuiltTree> {
  if (options.maxChildren !== undefined && !(Number.isInteger(options.maxChildren) && options.maxChildren >= 2)) {
    throw new RangeError(`maxChildren must be a whole number of at least 2 (a split into fewer pieces is no split), got ${options.maxChildren}`);
  }
  const clock = options.clock ?? systemClock;
  const sink = options.events ?? { emit: () => undefined };
  const secrets = new SecretCatalogue(options.secrets ?? []);
  const accounting = new Accounting(options.sessionCeilings);
  // Every event says which arm's work emitted it, read from the node's own async scope.
  const events: EventSink = {
    emit: (event: EngineEvent) => {
      const arm = accounting.arm();
      sink.emit(secrets.redactDeep(arm ? { ...event, arm } : event));
    },
  };
  const router = new ModelRouter({
    roster: options.roster, clients: options.clients, accounting, events, clock, cooldownMs: options.cooldownMs, secrets,
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
    maxChildren: options.maxChildren ?? null,
    maxAttempts: options.maxAttempts ?? 2,
    mergeAttempts: options.mergeAttempts ?? 2,
    sessions: options.limiter ?? sessionLimiter(4),
    maxTurns: options.maxTurns ?? 30,
    atomicity: options.atomicity ?? DEFAULT_ATOMICITY,
    objective: options.objective ?? { context: null, criteria: [] },
    requestLayout: options.requestLayout ?? DEFAULT_REQUEST_LAYOUT,
    allocation: typeof options.budget === 'number' ? null : options.budget,
  };
  await mkdir(ctx.workRoot, { recursive: true });
  // The root claims the whole objective: a root that executes as one leaf is measured at level 0
  // like any leaf, and a root that splits hands its claims on through its plan.
  const task: Task = {
    id: 'root', slug: 'root', goal: options.goal, depth: 0, kind: 'work', claims: [...ctx.objective.criteria], artifacts: [], criteria: ctx.objective.criteria,
    layout: null, prerequisiteListing: null, seedDirs: [], oversized: true, blockedBy: null, prerequisite: false,
  };
  // Under declared allocations the root starts as a leaf; it grows when it splits.
  const rootAccount = new NodeAccount('root', typeof options.budget === 'number' ? options.budget : options.budget.leafTokens);
  const root = await ctx.accounting.run(rootAccount, () => buildNode(ctx, task, rootAccount), options.forArm ?? null);
  return new BuiltTree({ ctx, root, rootAccount, forArm: options.forArm ?? null, assembled: new Set() });
}

/**
 * One arm's merge phase over a built tree, deepest first (see `runMerge` for the two arms).
 * Each arm of a shared build assembles it once, in its own folders and on its own branch of
 * the build's ledger; the leaves both arms see are the same, byte for byte, and paid once.
 */
export async function assemble(built: BuiltTree, arm: Arm): Promise<SolveRun> {
  const state = states.get(built);
  if (!state) throw new Error('assemble() needs a tree made by build()');
  if (state.forArm && state.forArm !== arm) throw new Error(`this tree was built for the ${state.forArm} arm alone; build another for ${arm}`);
  if (state.assembled.has(arm)) throw new Error(`the ${arm} arm has already assembled this tree; each arm assembles a build once`);
  state.assembled.add(arm);
  const ctx: TreeContext = { ...state.ctx, workRoot: path.join(state.ctx.workRoot, `merge-${arm}`) };
  await mkdir(ctx.workRoot, { recursive: true });
  return { root: await assembleNode(ctx, state.root, arm, null), router: ctx.router, arm };
}

/** Build, then assemble in one arm: a single tree, as `harness solve --arm gated|ungated` runs it. */
export async function solve(options: SolveOptions): Promise<SolveRun> {
  const { arm = 'gated', ...rest } = options;
  return assemble(await build(rest), arm);
}
