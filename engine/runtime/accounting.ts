import { AsyncLocalStorage } from 'node:async_hooks';
import type { Arm } from '../base/arm.js';
import { BudgetExhaustedError } from '../base/errors.js';
import { ZERO_USAGE, addUsage, type Usage } from '../base/usage.js';

/** Share of a parent's remaining allocation it keeps for its own assembly and verification. */
export const PARENT_RESERVE = 0.15;
/** Share of a node's allocation its work loop may spend, so checks, verification and a retry stay affordable. */
export const WORKER_CAP = 0.6;

/**
 * Token allocations declared per node rather than for the whole tree: every leaf receives
 * `leafTokens`, and a node that splits receives `assemblyTokens` for its own planning, merges and
 * reviews plus the allocations of the children it actually planned. A tree's budget is then
 * whatever its real shape needs, never a guess at its branching.
 */
export interface TreeAllocation {
  /** Tokens (input + output) each leaf may spend: its planning, checks, work and verification. */
  leafTokens: number;
  /** Tokens each assembling node may spend on its own planning, merge attempts and reviews, beside its children's. */
  assemblyTokens: number;
}

/** Calls of one node cut short: refused by a budget, or answered with `finish_reason: length`. */
export interface NodeCuts {
  /** Replies the endpoint cut at the output limit (`finish_reason: length`): incomplete work, paid in full. */
  length: number;
  /** Calls the node's allocation, an ancestor's, a phase cap or the session ceiling refused. */
  budget: number;
}

/**
 * One node's ledger. `spent` includes every descendant, so a refusal at any ancestor stops
 * the whole subtree; `ownUsage` is what this node's own calls used.
 */
export class NodeAccount {
  spent = 0;
  /** This node's own calls cut short (never a descendant's). */
  cuts: NodeCuts = { length: 0, budget: 0 };
  costUsd = 0;
  usage: Usage = ZERO_USAGE;
  ownUsage: Usage = ZERO_USAGE;
  ownCostUsd = 0;
  /** Calls on this node or below whose usage was estimated or corrected (see `meterUsage`). */
  estimatedCalls = 0;
  /** `model` ids (as answered) that produced work on this node: planner, checker, worker, merger. */
  readonly contributorModels = new Set<string>();
  readonly contributorFamilies = new Set<string>();
  /** Tokens spent under each phase cap, across attempts (the work loop's 60% is cumulative). */
  readonly phaseSpent = new Map<string, number>();

  private allocated: number;

  constructor(
    readonly nodeId: string,
    allocation: number,
    readonly parent: NodeAccount | null = null,
  ) {
    this.allocated = allocation;
  }

  /** Tokens this node and its subtree may spend. */
  get allocation(): number {
    return this.allocated;
  }

  /**
   * Sets this node's allocation to `tokens` (a node that split: its assembly share plus its
   * children's), and grows every ancestor's by the same difference, so the whole path to the
   * root can pay for the subtree the plan actually made.
   */
  resize(tokens: number): void {
    const delta = Math.floor(tokens) - this.allocated;
    for (let a: NodeAccount | null = this; a; a = a.parent) a.allocated += delta;
  }

  get remaining(): number {
    return Math.max(0, this.allocation - this.spent);
  }

  /** What this node may still spend: the least left to it or to any ancestor. */
  get headroom(): number {
    let least = this.remaining;
    for (let a = this.parent; a; a = a.parent) least = Math.min(least, a.remaining);
    return least;
  }

  /**
   * A copy of this ledger, as it stands, under `parent` (itself a copy): each arm's merges of a
   * shared build are charged to their own branch, so both arms start from the same spend and
   * neither is charged for the other's merges.
   */
  branch(parent: NodeAccount | null): NodeAccount {
    const twin = new NodeAccount(this.nodeId, this.allocation, parent);
    twin.spent = this.spent;
    twin.costUsd = this.costUsd;
    twin.usage = this.usage;
    twin.ownUsage = this.ownUsage;
    twin.ownCostUsd = this.ownCostUsd;
    twin.estimatedCalls = this.estimatedCalls;
    twin.cuts = { ...this.cuts };
    for (const m of this.contributorModels) twin.contributorModels.add(m);
    for (const f of this.contributorFamilies) twin.contributorFamilies.add(f);
    for (const [k, v] of this.phaseSpent) twin.phaseSpent.set(k, v);
    return twin;
  }

  /** A child's account with a fixed allocation carved from this one. */
  child(nodeId: string, allocation: number): NodeAccount {
    return new NodeAccount(nodeId, Math.max(0, Math.floor(allocation)), this);
  }

  /** Equal shares of what remains after the parent's reserve. */
  childShares(count: number): number {
    if (count <= 0) return 0;
    return Math.floor((this.remaining * (1 - PARENT_RESERVE)) / count);
  }
}

/** Ceilings on one session (one role's conversation for one node and attempt): the manifest's unit ceilings. */
export interface SessionCeilings {
  /** Tokens (input + output) one session may spend. Default: no session ceiling. */
  tokens?: number;
  /** US dollars one session may spend; enforced wherever the answering model is priced. Default: none. */
  costUsd?: number;
}

interface Scope {
  account: NodeAccount;
  /** A phase ceiling inside the node (the work loop's 60%), when one is active. */
  phase: { label: string; limit: number } | null;
  /** The node's attempt the work belongs to (1 = first). */
  attempt: number;
  /** The arm the work serves, or null for work both arms share. */
  arm: Arm | null;
}

/** What one call may still spend, and which ceiling binds. */
export interface Room {
  tokens: number;
  /** Dollars left to the session, when it has a cost ceiling. */
  costUsd: number | null;
  binding: 'node' | 'ancestor' | 'phase' | 'session';
}

/**
 * Charges every model call to the node that made it and to every ancestor, through async
 * context rather than a shared "current node" field: concurrent siblings each carry their own
 * scope, so neither can be charged for the other's calls.
 */
export class Accounting {
  private readonly als = new AsyncLocalStorage<Scope>();
  private readonly sessions = new Map<string, { tokens: number; costUsd: number }>();

  constructor(private readonly ceilings: SessionCeilings = {}) {}

  /**
   * Run `fn` as work of `account`. Everything awaited inside is charged to it. The arm is the
   * one given, else the enclosing work's (a child serves its parent's arm), else none.
   */
  run<T>(account: NodeAccount, fn: () => Promise<T>, arm?: Arm | null): Promise<T> {
    return this.als.run({ account, phase: null, attempt: 1, arm: arm === undefined ? (this.als.getStore()?.arm ?? null) : arm }, fn);
  }

  /**
   * Run `fn` under a ceiling of `fraction` of `basis` (default: the current node's allocation).
   * The ceiling is cumulative per label: a retry's work loop shares the 60% the first attempt
   * started on, so a caller passing its own basis must pass the same one every time.
   */
  withPhaseCap<T>(label: string, fraction: number, fn: () => Promise<T>, basis?: number): Promise<T> {
    const scope = this.scope();
    const limit = Math.floor((basis ?? scope.account.allocation) * fraction);
    return this.als.run({ ...scope, phase: { label, limit } }, fn);
  }

  /** Run `fn` as attempt `attempt` of the current node: every call inside says so on its request. */
  inAttempt<T>(attempt: number, fn: () => Promise<T>): Promise<T> {
    return this.als.run({ ...this.scope(), attempt }, fn);
  }

  current(): NodeAccount {
    return this.scope().account;
  }

  attempt(): number {
    return this.scope().attempt;
  }

  /** The arm the current work serves, or null when both arms share it (or outside any node). */
  arm(): Arm | null {
    return this.als.getStore()?.arm ?? null;
  }

  private scope(): Scope {
    const scope = this.als.getStore();
    if (!scope) throw new Error('no node scope: model calls must run inside Accounting.run()');
    return scope;
  }

  /** What the next call of `sessionId` may spend under every ceiling that applies. */
  room(sessionId?: string): Room {
    const { account, phase } = this.scope();
    let room: Room = { tokens: account.remaining, costUsd: null, binding: 'node' };
    for (let a = account.parent; a; a = a.parent) {
      if (a.remaining < room.tokens) room = { ...room, tokens: a.remaining, binding: 'ancestor' };
    }
    if (phase) {
      const left = Math.max(0, phase.limit - (account.phaseSpent.get(phase.label) ?? 0));
      if (left < room.tokens) room = { ...room, tokens: left, binding: 'phase' };
    }
    const used = sessionId ? this.sessions.get(sessionId) : undefined;
    if (sessionId && this.ceilings.tokens !== undefined) {
      const left = Math.max(0, this.ceilings.tokens - (used?.tokens ?? 0));
      if (left < room.tokens) room = { ...room, tokens: left, binding: 'session' };
    }
    if (sessionId && this.ceilings.costUsd !== undefined) room.costUsd = Math.max(0, this.ceilings.costUsd - (used?.costUsd ?? 0));
    return room;
  }

  /** Throws {@link BudgetExhaustedError} when this node, an ancestor, the active phase or the session is spent. */
  assertRoom(sessionId?: string): void {
    const { account, phase } = this.scope();
    const phaseSpent = phase ? (account.phaseSpent.get(phase.label) ?? 0) : 0;
    if (phase && phaseSpent >= phase.limit) {
      throw new BudgetExhaustedError(account.nodeId, 'phase', `${phase.label} spent ${phaseSpent} of its ${phase.limit} token cap`);
    }
    for (let a: NodeAccount | null = account; a; a = a.parent) {
      if (a.spent >= a.allocation) {
        const scopeKind = a === account ? 'node' : 'ancestor';
        throw new BudgetExhaustedError(account.nodeId, scopeKind, `${a.nodeId} spent ${a.spent} of its ${a.allocation} token allocation`);
      }
    }
    const used = sessionId ? this.sessions.get(sessionId) : undefined;
    if (used && this.ceilings.tokens !== undefined && used.tokens >= this.ceilings.tokens) {
      throw new BudgetExhaustedError(account.nodeId, 'session', `session ${sessionId} spent ${used.tokens} of its ${this.ceilings.tokens} token ceiling`);
    }
    if (used && this.ceilings.costUsd !== undefined && used.costUsd >= this.ceilings.costUsd) {
      throw new BudgetExhaustedError(account.nodeId, 'session', `session ${sessionId} spent $${used.costUsd.toFixed(4)} of its $${this.ceilings.costUsd} cost ceiling`);
    }
  }

  /** Counts a call of the current node cut short (see {@link NodeCuts}). */
  noteCut(kind: keyof NodeCuts): void {
    this.scope().account.cuts[kind]++;
  }

  /** Books a call's usage on the current node, every ancestor, the active phase and the session. */
  charge(usage: Usage, costUsd: number, options: { sessionId?: string; estimated?: boolean } = {}): void {
    const { account, phase } = this.scope();
    const tokens = usage.inputTokens + usage.outputTokens;
    account.ownUsage = addUsage(account.ownUsage, usage);
    account.ownCostUsd += costUsd;
    for (let a: NodeAccount | null = account; a; a = a.parent) {
      a.spent += tokens;
      a.costUsd += costUsd;
      a.usage = addUsage(a.usage, usage);
      if (options.estimated) a.estimatedCalls++;
    }
    if (phase) account.phaseSpent.set(phase.label, (account.phaseSpent.get(phase.label) ?? 0) + tokens);
    if (options.sessionId) {
      const used = this.sessions.get(options.sessionId) ?? { tokens: 0, costUsd: 0 };
      this.sessions.set(options.sessionId, { tokens: used.tokens + tokens, costUsd: used.costUsd + costUsd });
    }
  }

  /**
   * Records who produced work on the current node. Ancestors get it too: a parent's
   * deliverable is built from its children's work, so their authors may not judge it either.
   */
  recordContributor(model: string, family: string): void {
    for (let a: NodeAccount | null = this.scope().account; a; a = a.parent) {
      a.contributorModels.add(model);
      a.contributorFamilies.add(family);
    }
  }
}
