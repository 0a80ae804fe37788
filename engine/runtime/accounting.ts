import { AsyncLocalStorage } from 'node:async_hooks';
import { BudgetExhaustedError } from '../base/errors.js';
import { ZERO_USAGE, addUsage, type Usage } from '../base/usage.js';

/** Share of a parent's remaining allocation it keeps for its own assembly and verification. */
export const PARENT_RESERVE = 0.15;
/** Share of a node's allocation its work loop may spend, so checks, verification and a retry stay affordable. */
export const WORKER_CAP = 0.6;

/**
 * One node's ledger. `spent` includes every descendant, so a refusal at any ancestor stops
 * the whole subtree; `ownUsage` is what this node's own calls used.
 */
export class NodeAccount {
  spent = 0;
  costUsd = 0;
  usage: Usage = ZERO_USAGE;
  ownUsage: Usage = ZERO_USAGE;
  ownCostUsd = 0;
  /** `model` ids (as answered) that produced work on this node: planner, checker, worker, merger. */
  readonly contributorModels = new Set<string>();
  readonly contributorFamilies = new Set<string>();
  /** Tokens spent under each phase cap, across attempts (the work loop's 60% is cumulative). */
  readonly phaseSpent = new Map<string, number>();

  constructor(
    readonly nodeId: string,
    readonly allocation: number,
    readonly parent: NodeAccount | null = null,
  ) {}

  get remaining(): number {
    return Math.max(0, this.allocation - this.spent);
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

interface Scope {
  account: NodeAccount;
  /** A phase ceiling inside the node (the work loop's 60%), when one is active. */
  phase: { label: string; limit: number } | null;
}

/**
 * Charges every model call to the node that made it and to every ancestor, through async
 * context rather than a shared "current node" field: concurrent siblings each carry their own
 * scope, so neither can be charged for the other's calls.
 */
export class Accounting {
  private readonly als = new AsyncLocalStorage<Scope>();

  /** Run `fn` as work of `account`. Everything awaited inside is charged to it. */
  run<T>(account: NodeAccount, fn: () => Promise<T>): Promise<T> {
    return this.als.run({ account, phase: null }, fn);
  }

  /**
   * Run `fn` under a ceiling of `fraction` of the current node's allocation. The ceiling is
   * cumulative per label: a retry's work loop shares the 60% the first attempt started on.
   */
  withPhaseCap<T>(label: string, fraction: number, fn: () => Promise<T>): Promise<T> {
    const scope = this.scope();
    const limit = Math.floor(scope.account.allocation * fraction);
    return this.als.run({ account: scope.account, phase: { label, limit } }, fn);
  }

  current(): NodeAccount {
    return this.scope().account;
  }

  private scope(): Scope {
    const scope = this.als.getStore();
    if (!scope) throw new Error('no node scope: model calls must run inside Accounting.run()');
    return scope;
  }

  /** Throws {@link BudgetExhaustedError} when this node, an ancestor, or the active phase is spent. */
  assertRoom(): void {
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
  }

  /** Books a call's usage on the current node and every ancestor (and the active phase). */
  charge(usage: Usage, costUsd: number): void {
    const { account, phase } = this.scope();
    const tokens = usage.inputTokens + usage.outputTokens;
    account.ownUsage = addUsage(account.ownUsage, usage);
    account.ownCostUsd += costUsd;
    for (let a: NodeAccount | null = account; a; a = a.parent) {
      a.spent += tokens;
      a.costUsd += costUsd;
      a.usage = addUsage(a.usage, usage);
    }
    if (phase) account.phaseSpent.set(phase.label, (account.phaseSpent.get(phase.label) ?? 0) + tokens);
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
