import { AsyncResource } from 'node:async_hooks';
import type { SessionLimiter } from '../ports/session-limiter.js';
import type { TreeAllocation } from '../runtime/accounting.js';
import type { EngineContext } from '../runtime/engine-context.js';
import type { AtomicityLimits } from './plan-rules.js';

/** What the tree adds to the stages' context: the brakes on splitting and the one bound on sessions in flight. */
export interface TreeContext extends EngineContext {
  /** Planning levels allowed (see plan-rules `hasRoom`). */
  maxDepth: number;
  /** Most children one planning node may have, or null for no bound (see width-rule.ts). */
  maxChildren: number | null;
  /** The slots every unit of work takes (see {@link SessionLimiter}): planning, a leaf, a merge loop. */
  sessions: SessionLimiter;
  atomicity: AtomicityLimits;
  /** Declared per-node allocations, or null when the tree has one fixed budget that children share equally. */
  allocation: TreeAllocation | null;
}

/**
 * Runs one unit of work (a node's planning, a leaf's life, a merge loop) on a session slot. A
 * queued unit starts when another finishes, so it is bound to its caller's async context first:
 * otherwise it would run, and charge, in the node whose end freed the slot.
 */
export function inSlot<T>(ctx: TreeContext, work: () => Promise<T>): Promise<T> {
  return ctx.sessions.run(AsyncResource.bind(work));
}
