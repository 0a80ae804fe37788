import PQueue from 'p-queue';

/**
 * The SessionLimiter port: how many agent sessions may be in flight at once. A sweep injects ONE
 * limiter shared by every cell and every level of every tree, so the bound is a property of the
 * sweep (the machine's Docker, the account's rate limit), not of each split: per-split queues
 * multiplied (4 x 4 sessions at once at depth 2).
 *
 * The engine takes a slot for each unit of one node's work that runs its sessions one after
 * another, and holds it for the unit's whole life, sandbox commands included: one node's
 * planning; one leaf's life (its container, checkers, falsification, work, meta-verifier and
 * verifier); one node's merge loop in one arm (its container, merger, seam checks, reviews). So
 * sessions in flight, and the containers they work in, never exceed the limit. A parent waiting
 * for its children holds no slot (it takes one only to plan, and again to merge once they are
 * done), so no limit, 1 included, can deadlock. A drift judge is a consultation inside the
 * session that asks for it, which waits for its answer: it runs on that session's slot.
 */
export interface SessionLimiter {
  /** Runs `work` once a slot is free, holding the slot until it settles. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** A limiter of `concurrency` slots, first come first served. */
export function sessionLimiter(concurrency: number): SessionLimiter {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`sessions in flight must be a positive whole number, got ${concurrency}`);
  const queue = new PQueue({ concurrency });
  return { run: (work) => queue.add(work) };
}
