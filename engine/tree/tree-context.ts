import type { EngineContext } from '../runtime/engine-context.js';
import type { AtomicityLimits } from './plan-rules.js';

/** What the tree adds to the stages' context: the brakes on splitting and how many siblings run at once. */
export interface TreeContext extends EngineContext {
  /** Planning levels allowed (see plan-rules `hasRoom`). */
  maxDepth: number;
  /** Siblings built at once. */
  concurrency: number;
  atomicity: AtomicityLimits;
}
