import type { DrawSource } from './draw.js';
import { branchingTable, type SimParams } from './sim-params.js';

/** A planning node as the SIMULATED planner sees it. */
export interface SimNodeInput {
  /** `root`, `root.0`, `root.0.2`. */
  path: string;
  /** 0 at the root. */
  level: number;
  /** The requirement ids the node owns, in order (the root owns all of them). */
  requirements: readonly string[];
}

/** Why a node executes instead of splitting. */
export type SimLeafReason = 'no-room' | 'single-requirement' | 'early-leaf';

export type SimPlan =
  | { kind: 'execute'; reason: SimLeafReason }
  | { kind: 'split'; chunks: string[][] };

/**
 * Whether the depth cap lets a node at `level` (root 0) split: the engine's rule
 * (`maySplitAtDepth`: level < cap), so a cap of N fully used puts leaves at level N, as in the
 * engine and in the plan's arithmetic (b^N leaves at cap N). Restated rather than imported so
 * this pure core (which the report's schemas reach) stays free of the engine's IO; a test
 * holds the two equal at every level and cap.
 */
export function hasRoom(level: number, cap: number): boolean {
  return level < cap;
}

/** The root's path, as the engine names its root node. */
export const ROOT_PATH = 'root';

/** The path of child `index` of the node at `path`. */
export function childPath(path: string, index: number): string {
  return `${path}.${index}`;
}

/**
 * Chunk sizes when n requirements are cut into k contiguous chunks, as equal as possible,
 * the first chunks taking the extra one (k clamped to n).
 */
export function chunkSizes(n: number, k: number): number[] {
  const parts = Math.min(k, n);
  const base = Math.floor(n / parts);
  const extra = n % parts;
  return Array.from({ length: parts }, (_, i) => base + (i < extra ? 1 : 0));
}

/** Cuts a requirement list into k contiguous chunks (see chunkSizes). */
export function splitChunks<T>(items: readonly T[], k: number): T[][] {
  const chunks: T[][] = [];
  let at = 0;
  for (const size of chunkSizes(items.length, k)) {
    chunks.push(items.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/** k from the branching distribution by inverse CDF of one uniform. */
export function pickBranching(params: Pick<SimParams, 'branching'>, u: number): number {
  const table = branchingTable(params);
  let acc = 0;
  for (const { k, p } of table) {
    acc += p;
    if (u < acc) return k;
  }
  // Rounding can leave the cumulative sum a hair under 1.
  return table[table.length - 1]!.k;
}

/**
 * The SIMULATED planner's decision at one node: execute (become a leaf) or split into chunks.
 * Draws (shared phase, no arm): `early-leaf` and `branching`, by the planner, attempt 1.
 * The sampler and the sim ModelClient both call this, so they build the same tree.
 */
export function planNode(params: SimParams, draws: DrawSource, node: SimNodeInput, cap: number): SimPlan {
  if (!hasRoom(node.level, cap)) return { kind: 'execute', reason: 'no-room' };
  if (node.requirements.length < 2) return { kind: 'execute', reason: 'single-requirement' };
  if (draws({ node: node.path, role: 'planner', attempt: 1, decision: 'early-leaf' }) < params.early_leaf_rate) return { kind: 'execute', reason: 'early-leaf' };
  const k = pickBranching(params, draws({ node: node.path, role: 'planner', attempt: 1, decision: 'branching' }));
  return { kind: 'split', chunks: splitChunks(node.requirements, k) };
}
