import { z } from 'zod';
import { ARMS, type Arm, type Manifest } from '../manifest/manifest.js';
import { BOUNDED_PLANNER_SESSIONS, COURT } from './plan-arithmetic.js';
import type { CellMeasurement, Spend } from '../journal/cell-measurement.js';

/**
 * A bill that learns: the cost of cells not yet recorded, forecast from what recorded cells
 * cost. Pure: recorded cells in, figures out. An earlier system's cap-1 cell cost 192% of its
 * declared projection; this replaces the declared guesses with measured ones where the
 * recorded cells can say, and says which figure came from where.
 *
 * The model, per level of a tree (root = 0):
 * - **Which levels may split** at a cap: measured, as the offset of the deepest level where a
 *   recorded node still had room to split, relative to its cap (a node that split, or a leaf
 *   that executed by choice). With no such node, the shallowest level where the cap stopped a
 *   node bounds it from below. Either way the rule is the same at every cap (it is the
 *   engine's brake, a pure function of level and cap).
 * - **The tree's shape**: per level, the share of nodes with room that split, and the mean
 *   children of those that did; a level deeper than any recorded one takes the deepest
 *   measured level's figures. With no recorded split at all, the manifest's declared branching
 *   (every node with room splits into b).
 * - **Sessions per node**: a leaf's sessions (everything at a leaf), an assembling node's
 *   planning sessions, and its merge and review sessions per arm (the gated arm stops at an
 *   approval, so it may spend fewer), each the total over recorded nodes of that kind divided
 *   by their number. Tokens and dollars are per session of each kind. A kind nobody recorded
 *   takes the declared count (1 planning, merge_attempts x [merge + review]) at the recorded
 *   per-session spend.
 *
 * Expected sessions of a cell = Σ_levels (leaves × leaf sessions + assembling nodes × (planning
 * + merge sessions of its arm)). Under shared pairing the leaves and planning are paid once per
 * pair, so a cap's forecast counts them once per repetition.
 */

const Figure = z.number().nonnegative();
const Tokens = z.object({ input: Figure, cached: Figure, output: Figure });

/** What one kind of node costs: sessions per node, and spend per session. */
const NodeCost = z.object({
  /** `measured`: from recorded nodes of this kind; `declared`: the plan's count at the recorded per-session spend. */
  source: z.enum(['measured', 'declared']),
  /** Recorded nodes behind the figure (0 when declared). */
  nodes: z.int().nonnegative(),
  sessionsPerNode: Figure,
  tokensPerSession: Tokens,
  /** Dollars per session; null when a recorded session's price is unknown. */
  usdPerSession: Figure.nullable(),
});
export type NodeCost = z.infer<typeof NodeCost>;

const ShapeLevel = z.object({
  level: z.int().nonnegative(),
  /** Recorded nodes at this level that had room to split, and how many of them split. */
  withRoom: z.int().nonnegative(),
  splits: z.int().nonnegative(),
  splitRate: Figure,
  meanChildren: Figure,
});

export const CostModel = z.object({
  /** Cells (trees under shared pairing: one per pair) the model learned from, and their caps. */
  basis: z.object({ cells: z.int().nonnegative(), trees: z.int().nonnegative(), caps: z.array(z.int().positive()) }),
  pairing: z.enum(['shared', 'independent']),
  /** A node at level l may split at cap c when l <= c + roomOffset. */
  room: z.object({ offset: z.int(), source: z.enum(['measured', 'bounded', 'engine']) }),
  shape: z.discriminatedUnion('source', [
    z.object({ source: z.literal('measured'), levels: z.array(ShapeLevel).min(1) }),
    z.object({ source: z.literal('declared'), branching: z.number().gt(1) }),
  ]),
  leaf: NodeCost,
  planning: NodeCost,
  merge: z.object({ gated: NodeCost, ungated: NodeCost }),
});
export type CostModel = z.infer<typeof CostModel>;

export interface LearnOptions {
  /** The manifest's projected_branching: the shape when no recorded node split. */
  declaredBranching: number;
  /** The manifest's merge_attempts: a kind of node nobody recorded takes the court's declared sessions (plan-arithmetic's COURT, drift allowance included). */
  mergeAttempts: number;
  /**
   * The manifest's max_children, when it sets one: the engine cuts every plan to it, so no level
   * is forecast wider (a run recorded under a wider bound, or none, says nothing past it), the
   * declared shape is the bound's, and a planning node nobody recorded opens its plan and re-ask.
   */
  maxChildren?: number;
}

/** What a manifest tells the forecast: its declared shape, its merge attempts and its bound. */
export function learnOptionsOf(manifest: Manifest): LearnOptions {
  return { declaredBranching: manifest.projected_branching, mergeAttempts: manifest.merge_attempts, ...(manifest.max_children !== undefined ? { maxChildren: manifest.max_children } : {}) };
}

interface Totals {
  nodes: number;
  spend: Spend[];
}

function sumSpend(spends: readonly Spend[]) {
  let sessions = 0;
  let unpriced = 0;
  let usd = 0;
  const tokens = { input: 0, cached: 0, output: 0 };
  for (const s of spends) {
    sessions += s.sessions;
    unpriced += s.unpricedSessions;
    usd += s.costUsd ?? 0;
    tokens.input += s.tokens.input;
    tokens.cached += s.tokens.cached;
    tokens.output += s.tokens.output;
  }
  return { sessions, unpriced, usd, tokens };
}

function perSession(spends: readonly Spend[]): Pick<NodeCost, 'tokensPerSession' | 'usdPerSession'> | undefined {
  const t = sumSpend(spends);
  if (t.sessions === 0) return undefined;
  return {
    tokensPerSession: { input: t.tokens.input / t.sessions, cached: t.tokens.cached / t.sessions, output: t.tokens.output / t.sessions },
    usdPerSession: t.unpriced > 0 ? null : t.usd / t.sessions,
  };
}

function nodeCost(totals: Totals, fallback: { sessionsPerNode: number; spend: readonly Spend[] }): NodeCost {
  const per = perSession(totals.spend);
  if (totals.nodes > 0 && per) return { source: 'measured', nodes: totals.nodes, sessionsPerNode: sumSpend(totals.spend).sessions / totals.nodes, ...per };
  const pooled = perSession(fallback.spend) ?? { tokensPerSession: { input: 0, cached: 0, output: 0 }, usdPerSession: null };
  return { source: 'declared', nodes: 0, sessionsPerNode: fallback.sessionsPerNode, ...pooled };
}

/** One tree per pair under shared pairing (both arms grade the same tree), every cell otherwise. */
function trees(cells: readonly CellMeasurement[]): CellMeasurement[] {
  const byPair = new Map<string, CellMeasurement>();
  for (const cell of cells) {
    const key = cell.pairing === 'shared' ? `${cell.cap}/${cell.repetition}` : `${cell.cap}/${cell.repetition}/${cell.arm}`;
    if (!byPair.has(key)) byPair.set(key, cell);
  }
  return [...byPair.values()];
}

function learnRoom(shapes: readonly CellMeasurement[]): CostModel['room'] {
  let withRoom: number | undefined;
  let stopped: number | undefined;
  for (const cell of shapes) {
    const nodes = [...cell.merges.map((m) => ({ level: m.level, room: true })), ...cell.leaves];
    for (const node of nodes) {
      const offset = node.level - cell.cap;
      if (node.room) withRoom = Math.max(withRoom ?? offset, offset);
      else stopped = Math.min(stopped ?? offset, offset);
    }
  }
  if (withRoom !== undefined) return { offset: withRoom, source: 'measured' };
  if (stopped !== undefined) return { offset: stopped - 1, source: 'bounded' };
  // The engine's brake: a node at depth d < cap may split.
  return { offset: -1, source: 'engine' };
}

function learnShape(shapes: readonly CellMeasurement[], declaredBranching: number, maxChildren = Infinity): CostModel['shape'] {
  const levels = new Map<number, { withRoom: number; splits: number; children: number }>();
  const at = (level: number) => levels.get(level) ?? levels.set(level, { withRoom: 0, splits: 0, children: 0 }).get(level)!;
  for (const cell of shapes) {
    for (const merge of cell.merges) {
      const l = at(merge.level);
      l.withRoom++;
      l.splits++;
      l.children += merge.children;
    }
    for (const leaf of cell.leaves) if (leaf.room) at(leaf.level).withRoom++;
  }
  const measured = [...levels.entries()]
    .filter(([, l]) => l.splits > 0)
    .sort(([a], [b]) => a - b)
    .map(([level, l]) => ({ level, withRoom: l.withRoom, splits: l.splits, splitRate: l.splits / l.withRoom, meanChildren: Math.min(maxChildren, l.children / l.splits) }));
  return measured.length > 0 ? { source: 'measured', levels: measured } : { source: 'declared', branching: Math.min(maxChildren, declaredBranching) };
}

/** Learns the cost model from recorded (measured) cells. */
export function learnCostModel(cells: readonly CellMeasurement[], options: LearnOptions): CostModel {
  if (cells.length === 0) throw new RangeError('a cost model needs at least one recorded cell');
  const shapes = trees(cells);
  const pairing = cells[0]?.pairing ?? 'shared';
  const leaves: Totals = { nodes: 0, spend: [] };
  const planning: Totals = { nodes: 0, spend: [] };
  for (const cell of shapes) {
    leaves.nodes += cell.leaves.length;
    leaves.spend.push(cell.spend.leaf);
    planning.nodes += cell.merges.length;
    planning.spend.push(cell.spend.planning);
  }
  const merges = Object.fromEntries(ARMS.map((arm) => [arm, { nodes: 0, spend: [] as Spend[] }])) as Record<Arm, Totals>;
  for (const cell of cells) {
    merges[cell.arm].nodes += cell.merges.length;
    merges[cell.arm].spend.push(cell.spend.merge);
  }
  const everything = cells.flatMap((c) => [c.spend.leaf, c.spend.planning, c.spend.merge]);
  return CostModel.parse({
    basis: { cells: cells.length, trees: shapes.length, caps: [...new Set(cells.map((c) => c.cap))].sort((a, b) => a - b) },
    pairing,
    room: learnRoom(shapes),
    shape: learnShape(shapes, options.declaredBranching, options.maxChildren),
    leaf: nodeCost(leaves, { sessionsPerNode: COURT.leaf + COURT.driftPerLoop, spend: everything }),
    planning: nodeCost(planning, { sessionsPerNode: options.maxChildren === undefined ? COURT.planner : BOUNDED_PLANNER_SESSIONS, spend: everything }),
    merge: Object.fromEntries(ARMS.map((arm) => [arm, nodeCost(merges[arm], { sessionsPerNode: COURT.mergeChecker + COURT.mergeMetaVerifier + options.mergeAttempts * (COURT.perAttempt + COURT.driftPerLoop), spend: everything })])),
  });
}

/** Expected leaves and assembling nodes of a tree at `cap` under the model's shape and room rule. */
export function expectedTree(model: CostModel, cap: number): { leaves: number; assembling: number } {
  let nodes = 1;
  let leaves = 0;
  let assembling = 0;
  for (let level = 0; nodes > 0; level++) {
    const room = level <= cap + model.room.offset;
    if (!room) {
      leaves += nodes;
      break;
    }
    const { splitRate, meanChildren } =
      model.shape.source === 'declared' ? { splitRate: 1, meanChildren: model.shape.branching } : (model.shape.levels.find((l) => l.level === level) ?? model.shape.levels.at(-1)!);
    const splitting = nodes * splitRate;
    leaves += nodes - splitting;
    assembling += splitting;
    nodes = splitting * meanChildren;
  }
  return { leaves, assembling };
}

const FigureTokens = z.object({ input: Figure, cached: Figure, output: Figure });

export const Forecast = z.object({
  sessions: Figure,
  tokens: FigureTokens,
  /** Null when a recorded session's price is unknown. */
  costUsd: Figure.nullable(),
});
export type Forecast = z.infer<typeof Forecast>;

function add(parts: ReadonlyArray<{ count: number; cost: NodeCost }>): Forecast {
  let sessions = 0;
  let usd = 0;
  let unpriced = false;
  const tokens = { input: 0, cached: 0, output: 0 };
  for (const { count, cost } of parts) {
    const s = count * cost.sessionsPerNode;
    if (s === 0) continue;
    sessions += s;
    tokens.input += s * cost.tokensPerSession.input;
    tokens.cached += s * cost.tokensPerSession.cached;
    tokens.output += s * cost.tokensPerSession.output;
    if (cost.usdPerSession === null) unpriced = true;
    else usd += s * cost.usdPerSession;
  }
  return Forecast.parse({ sessions, tokens, costUsd: unpriced ? null : usd });
}

/**
 * The expected spend of recording `cells` (cap, arm, repetition) under the model: the shared
 * phase (leaves and planning) once per pair under shared pairing, and not at all for a pair
 * in `sharedPaid`; the merges once per cell.
 */
export function forecastCells(model: CostModel, cells: ReadonlyArray<{ cap: number; arm: Arm; repetition: number }>, options: { sharedPaid?: Iterable<string> } = {}): Forecast {
  const parts: Array<{ count: number; cost: NodeCost }> = [];
  // Pairs (`cap/repetition`) whose shared phase is already recorded: a resume reuses it.
  const sharedPaid = new Set<string>(options.sharedPaid ?? []);
  for (const cell of cells) {
    const tree = expectedTree(model, cell.cap);
    const pair = `${cell.cap}/${cell.repetition}`;
    if (model.pairing === 'independent' || !sharedPaid.has(pair)) {
      sharedPaid.add(pair);
      parts.push({ count: tree.leaves, cost: model.leaf }, { count: tree.assembling, cost: model.planning });
    }
    parts.push({ count: tree.assembling, cost: model.merge[cell.arm] });
  }
  return add(parts);
}
