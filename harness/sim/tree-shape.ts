import type { DrawSource } from './draw.js';
import { branchingTable, replanRateOf, type SimModel, type SimParams } from './sim-params.js';

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
  | { kind: 'split'; chunks: string[][]; wide?: WidePlan };

/**
 * A first plan wider than the manifest's max_children, which the engine refused: its chunks
 * (what the planner first answered) and whether, asked again, the planner replanned within the
 * bound (else it answered the wide plan again and the engine cut it).
 */
export interface WidePlan {
  chunks: string[][];
  replanned: boolean;
}

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
 * Chunk sizes a split keeps under the bound `maxChildren`: the drawn split when it is within it;
 * else an even replan into `maxChildren` chunks (`replanned`), or the engine's cut of the wide
 * split (engine/tree/width-rule.ts: the first maxChildren - 1 kept, the trailing ones merged).
 */
export function boundedSizes(n: number, k: number, maxChildren: number | undefined, replanned: boolean): number[] {
  const sizes = chunkSizes(n, k);
  if (maxChildren === undefined || sizes.length <= maxChildren) return sizes;
  if (replanned) return chunkSizes(n, maxChildren);
  return [...sizes.slice(0, maxChildren - 1), sizes.slice(maxChildren - 1).reduce((a, b) => a + b, 0)];
}

/**
 * The chunk sizes a node of n requirements that splits ends with, and their probabilities
 * (summing to 1): the branching distribution, then the bound's replan or cut. The closed form
 * (truth.ts) sums over these, as the planner draws them.
 */
export function splitShapes(params: SimModel, n: number): { sizes: number[]; p: number }[] {
  const bound = params.max_children;
  const rate = replanRateOf(params);
  return branchingTable(params).flatMap(({ k, p }) => {
    if (bound === undefined || Math.min(k, n) <= bound) return [{ sizes: chunkSizes(n, k), p }];
    return [
      { sizes: boundedSizes(n, k, bound, true), p: p * rate },
      { sizes: boundedSizes(n, k, bound, false), p: p * (1 - rate) },
    ].filter((shape) => shape.p > 0);
  });
}

/** Cuts items into consecutive chunks of the given sizes. */
function chunksOf<T>(items: readonly T[], sizes: readonly number[]): T[][] {
  let at = 0;
  return sizes.map((size) => items.slice(at, (at += size)));
}

/**
 * The SIMULATED planner's decision at one node: execute (become a leaf) or split into chunks.
 * Draws (shared phase, no arm): `early-leaf` and `branching`, by the planner, attempt 1; and,
 * only when the drawn split is wider than the manifest's max_children, `bound-replan` at
 * attempt 2 (the planner asked again). The sampler and the sim ModelClient both call this, so
 * they build the same tree, the one the engine keeps.
 */
export function planNode(params: SimModel, draws: DrawSource, node: SimNodeInput, cap: number): SimPlan {
  if (!hasRoom(node.level, cap)) return { kind: 'execute', reason: 'no-room' };
  if (node.requirements.length < 2) return { kind: 'execute', reason: 'single-requirement' };
  if (draws({ node: node.path, role: 'planner', attempt: 1, decision: 'early-leaf' }) < params.early_leaf_rate) return { kind: 'execute', reason: 'early-leaf' };
  const k = pickBranching(params, draws({ node: node.path, role: 'planner', attempt: 1, decision: 'branching' }));
  const n = node.requirements.length;
  const bound = params.max_children;
  if (bound === undefined || Math.min(k, n) <= bound) return { kind: 'split', chunks: splitChunks(node.requirements, k) };
  const replanned = draws({ node: node.path, role: 'planner', attempt: 2, decision: 'bound-replan' }) < replanRateOf(params);
  return {
    kind: 'split',
    chunks: chunksOf(node.requirements, boundedSizes(n, k, bound, replanned)),
    wide: { chunks: splitChunks(node.requirements, k), replanned },
  };
}
