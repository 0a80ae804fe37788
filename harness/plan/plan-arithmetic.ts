import { ARMS, repetitionsAt, type Arm, type Manifest, type Pairing } from '../manifest/manifest.js';

/**
 * The arithmetic of a sweep's bill. Pure: data in, data out, no files, no clocks. The plan
 * command projects from a declared branching; a later forecast from recorded per-cell
 * costs feeds its own per-cell figures through the same ceiling rule (`applyCeiling`).
 */

/** One cell of the matrix: one tree recorded at one cap, in one arm, for one repetition. */
export interface Cell {
  cap: number;
  /** 1-based. */
  repetition: number;
  arm: Arm;
  /** Stable name, e.g. `cap3-rep2-gated`; journals and reports key on it. */
  id: string;
}

/**
 * The order cells are recorded in: caps ascending, then repetition, then arm (gated before
 * ungated). Cheap caps come first so a ceiling cuts the expensive end, and the arms of one
 * repetition sit side by side so a stop leaves at most one repetition with a single arm
 * measured. The sweep runner records in exactly this order.
 */
export function cellOrder(caps: readonly number[], arms: readonly Arm[], repetitions: Readonly<Record<number, number>>): Cell[] {
  const cells: Cell[] = [];
  const orderedArms = ARMS.filter((arm) => arms.includes(arm));
  for (const cap of [...new Set(caps)].sort((a, b) => a - b)) {
    const reps = repetitions[cap] ?? 0;
    for (let repetition = 1; repetition <= reps; repetition++) {
      for (const arm of orderedArms) cells.push({ cap, repetition, arm, id: `cap${cap}-rep${repetition}-${arm}` });
    }
  }
  return cells;
}

/** A full tree at cap `d` and branching `b`: b^d leaves under (b^d - 1)/(b - 1) planning nodes. */
export interface TreeShape {
  leaves: number;
  planningNodes: number;
}

export function treeShape(branching: number, cap: number): TreeShape {
  if (!(branching > 1)) throw new RangeError(`branching must be above 1, got ${branching}`);
  const leaves = branching ** cap;
  return { leaves, planningNodes: (leaves - 1) / (branching - 1) };
}

/**
 * The sessions the court opens (engine/tree, engine/court), one engine `sessionId` each, the
 * unit `max_sessions` and progress count:
 * - a leaf: its checker, its worker, the meta-verifier that settles the checks and the
 *   independent verifier that re-runs them (4);
 * - a planning node: its planner (once per tree) and, in each arm that assembles it, the checker
 *   of the merge's seam checks and the meta-verifier that settles them (both arms: it judges
 *   checks, not the merge), then per merge attempt a merger and its review (the independent judge
 *   when gated, the merger's self-review when ungated). The gated arm stops at an approval, so
 *   its attempts are a bound; the ungated arm spends them all.
 * Optional sessions are a stated ALLOWANCE, not a count: the drift judge a worker or merger
 * loop consults on a trigger (every 6 steps, or a write no check mentions), budgeted at
 * {@link COURT}.driftPerLoop per loop. A red verdict's repair round or a check rewrite is
 * outside the allowance; the ceiling stops a sweep that needs them beyond it.
 */
export const COURT = { leaf: 4, planner: 1, mergeChecker: 1, mergeMetaVerifier: 1, perAttempt: 2, driftPerLoop: 4 } as const;

/** Sessions in one cell, by kind. Both arms hold the same counts: they differ in who reviews. */
export interface CellSessions {
  /** The leaves' courts: 4 per leaf. */
  build: number;
  /** One planner per planning node. */
  planning: number;
  /** Per planning node: the merge's checker, the meta-verifier of its seam checks, and one merger per merge attempt. */
  merge: number;
  /** One per merge attempt: the independent judge (gated) or the merging agent's self-review (ungated). */
  review: number;
  /** Sessions the court always opens: the kinds above. */
  required: number;
  /** The stated drift-judge allowance: {@link COURT}.driftPerLoop per worker and per merger session. */
  allowance: number;
  /** required + allowance: what the bill and the ceiling count. */
  total: number;
}

function sessionsOf(shape: TreeShape, mergeAttempts: number, withBuild: boolean): CellSessions {
  const build = withBuild ? shape.leaves * COURT.leaf : 0;
  const planning = withBuild ? shape.planningNodes * COURT.planner : 0;
  const mergers = shape.planningNodes * mergeAttempts;
  const merge = shape.planningNodes * (COURT.mergeChecker + COURT.mergeMetaVerifier) + mergers;
  const review = mergers * (COURT.perAttempt - 1);
  const required = build + planning + merge + review;
  const allowance = ((withBuild ? shape.leaves : 0) + mergers) * COURT.driftPerLoop;
  return { build, planning, merge, review, required, allowance, total: required + allowance };
}

export function cellSessions(shape: TreeShape, mergeAttempts: number): CellSessions {
  return sessionsOf(shape, mergeAttempts, true);
}

/**
 * Sessions of one (cap, repetition) pair. Under shared pairing the planning and every leaf are
 * built once and each arm then runs its own merges; under independent pairing each arm plans
 * and builds its own tree.
 */
export interface PairSessions {
  pairing: Pairing;
  arms: number;
  /** Leaves and planning nodes of one tree, with the leaves' allowance: once per pair (shared) or once per arm (independent). */
  buildPerTree: number;
  /** The merges of one arm (checker, mergers, reviews) with the mergers' allowance. */
  mergesPerArm: number;
  /** Sessions the court always opens in the pair (the allowance left out). */
  required: number;
  total: number;
}

export function pairSessions(shape: TreeShape, mergeAttempts: number, arms: number, pairing: Pairing): PairSessions {
  const whole = sessionsOf(shape, mergeAttempts, true);
  const merges = sessionsOf(shape, mergeAttempts, false);
  const buildPerTree = whole.total - merges.total;
  const mergesPerArm = merges.total;
  const trees = pairing === 'shared' ? Math.min(arms, 1) : arms;
  const required = trees * (whole.required - merges.required) + arms * merges.required;
  return { pairing, arms, buildPerTree, mergesPerArm, required, total: trees * buildPerTree + arms * mergesPerArm };
}

/**
 * A cell's own sessions: its arm's merges, plus the build when it plans its own tree or is the
 * first arm of a shared pair to be recorded (it pays for the leaves both arms then share).
 */
function sessionsOfCell(shape: TreeShape, mergeAttempts: number, buildsTree: boolean): CellSessions {
  return sessionsOf(shape, mergeAttempts, buildsTree);
}

/** Price of one model in US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
}

/** How to price sessions; absent where any role's price is unknown. */
export interface Pricing {
  executor: Price;
  reviewer: Price;
  /** Input tokens per output token assumed when a session spends its token ceiling. */
  inputPerOutput: number;
}

export interface PlanInput {
  caps: readonly number[];
  arms: readonly Arm[];
  /** Repetitions by cap; every cap in `caps` needs an entry. */
  repetitions: Readonly<Record<number, number>>;
  branching: number;
  mergeAttempts: number;
  unit: { tokenCeiling: number; costCeilingUsd: number };
  maxSessions: number;
  pricing?: Pricing;
  /** Default `shared`. */
  pairing?: Pairing;
}

/** Dollars for one session of a model: its token ceiling at the assumed split, held by the cost ceiling. */
export function sessionPriceUsd(price: Price, tokenCeiling: number, costCeilingUsd: number, inputPerOutput: number): number {
  const perToken = (inputPerOutput * price.input + price.output) / (inputPerOutput + 1) / 1_000_000;
  return Math.min(tokenCeiling * perToken, costCeilingUsd);
}

function cellPriceUsd(sessions: CellSessions, arm: Arm, input: PlanInput): number | undefined {
  const { pricing, unit } = input;
  if (!pricing) return undefined;
  const at = (price: Price) => sessionPriceUsd(price, unit.tokenCeiling, unit.costCeilingUsd, pricing.inputPerOutput);
  // Only the gated arm calls the reviewer; the ungated arm's self-review is the executor.
  const reviewer = arm === 'gated' ? at(pricing.reviewer) : at(pricing.executor);
  return (sessions.total - sessions.review) * at(pricing.executor) + sessions.review * reviewer;
}

export interface CapProjection extends TreeShape {
  cap: number;
  repetitions: number;
  cells: number;
  /** One arm's whole tree (build, planning and its merges), as an arm planning alone spends it. */
  perCell: CellSessions;
  /** One (cap, repetition) pair of the arms recorded, under the pairing in force. */
  perPair: PairSessions;
  sessions: number;
  tokenBound: number;
  costBoundUsd: number;
  pricedUsd?: number;
}

export type CellFate = 'fits' | 'stops_inside' | 'not_started';

export interface CellProjection extends Cell {
  sessions: number;
  /** Sessions spent once this cell is done, counting every cell before it. */
  cumulative: number;
  /** `stops_inside`: the ceiling is reached during this cell, its sessions spent and it unmeasured. */
  fate: CellFate;
}

export interface CeilingVerdict {
  maxSessions: number;
  exceeded: boolean;
  /** Sessions beyond the ceiling (0 when it fits). */
  overBy: number;
  /** Cells that finish under the ceiling. */
  measured: number;
  /** Cells likely left unmeasured, in recording order. */
  unmeasured: CellProjection[];
}

/** Walks cells in recording order and marks where a session ceiling would stop the sweep. */
export function applyCeiling(cells: ReadonlyArray<Cell & { sessions: number }>, maxSessions: number): { cells: CellProjection[]; ceiling: CeilingVerdict } {
  let cumulative = 0;
  let stopped = false;
  const projected = cells.map((cell): CellProjection => {
    cumulative += cell.sessions;
    const fate: CellFate = stopped ? 'not_started' : cumulative <= maxSessions ? 'fits' : 'stops_inside';
    if (fate === 'stops_inside') stopped = true;
    return { ...cell, cumulative, fate };
  });
  const unmeasured = projected.filter((cell) => cell.fate !== 'fits');
  return {
    cells: projected,
    ceiling: { maxSessions, exceeded: cumulative > maxSessions, overBy: Math.max(0, cumulative - maxSessions), measured: projected.length - unmeasured.length, unmeasured },
  };
}

export interface PlanProjection {
  branching: number;
  mergeAttempts: number;
  pairing: Pairing;
  caps: CapProjection[];
  cells: CellProjection[];
  total: { cells: number; sessions: number; tokenBound: number; costBoundUsd: number; pricedUsd?: number };
  ceiling: CeilingVerdict;
}

/** The bill of a sweep in which every tree uses its whole cap at the declared branching. */
export function projectPlan(input: PlanInput): PlanProjection {
  const { unit } = input;
  const pairing = input.pairing ?? 'shared';
  const order = cellOrder(input.caps, input.arms, input.repetitions);
  const perCap = new Map<number, { shape: TreeShape; sessions: CellSessions }>();
  for (const cap of new Set(order.map((cell) => cell.cap))) {
    const shape = treeShape(input.branching, cap);
    perCap.set(cap, { shape, sessions: cellSessions(shape, input.mergeAttempts) });
  }
  // Under shared pairing the first arm of each pair to be recorded pays for the build.
  const ownSessions = order.map((cell, i) => {
    const first = i === 0 || order[i - 1]!.cap !== cell.cap || order[i - 1]!.repetition !== cell.repetition;
    return sessionsOfCell(perCap.get(cell.cap)!.shape, input.mergeAttempts, pairing === 'independent' || first);
  });
  const { cells, ceiling } = applyCeiling(
    order.map((cell, i) => ({ ...cell, sessions: ownSessions[i]!.total })),
    input.maxSessions,
  );
  const arms = ARMS.filter((arm) => input.arms.includes(arm)).length;
  const caps = [...perCap].map(([cap, { shape, sessions }]): CapProjection => {
    const capCells = order.map((cell, i) => ({ cell, own: ownSessions[i]! })).filter(({ cell }) => cell.cap === cap);
    const total = capCells.reduce((sum, { own }) => sum + own.total, 0);
    const prices = capCells.map(({ cell, own }) => cellPriceUsd(own, cell.arm, input));
    return {
      cap,
      ...shape,
      repetitions: input.repetitions[cap] ?? 0,
      cells: capCells.length,
      perCell: sessions,
      perPair: pairSessions(shape, input.mergeAttempts, arms, pairing),
      sessions: total,
      tokenBound: total * unit.tokenCeiling,
      costBoundUsd: total * unit.costCeilingUsd,
      ...(input.pricing ? { pricedUsd: prices.reduce<number>((sum, p) => sum + (p ?? 0), 0) } : {}),
    };
  });
  const sum = (pick: (c: CapProjection) => number) => caps.reduce((total, c) => total + pick(c), 0);
  return {
    branching: input.branching,
    mergeAttempts: input.mergeAttempts,
    pairing,
    caps,
    cells,
    total: {
      cells: cells.length,
      sessions: sum((c) => c.sessions),
      tokenBound: sum((c) => c.tokenBound),
      costBoundUsd: sum((c) => c.costBoundUsd),
      ...(input.pricing ? { pricedUsd: sum((c) => c.pricedUsd ?? 0) } : {}),
    },
    ceiling,
  };
}

/** The projection of a manifest's sweep: the caps given (default every cap), priced when `pricing` is. */
export function planInputFor(manifest: Manifest, caps: readonly number[] = manifest.depth_caps, pricing?: Pricing): PlanInput {
  return {
    caps,
    arms: manifest.arms,
    repetitions: Object.fromEntries(caps.map((cap) => [cap, repetitionsAt(manifest, cap)])),
    branching: manifest.projected_branching,
    mergeAttempts: manifest.merge_attempts,
    unit: { tokenCeiling: manifest.unit.token_ceiling, costCeilingUsd: manifest.unit.cost_ceiling_usd },
    maxSessions: manifest.max_sessions,
    ...(pricing ? { pricing } : {}),
    pairing: manifest.pairing,
  };
}

/** A figure is countable when it is finite and, rounded, a safe integer: it prints exactly, never as infinity or NaN. */
export const isCountable = (n: number): boolean => Number.isFinite(n) && Math.abs(Math.round(n)) <= Number.MAX_SAFE_INTEGER;

/** Which input an uncountable figure grows from, so a refusal can point at the field to lower. */
export type UncountableFigure = { figure: 'sessions' | 'tokenBound' | 'costBoundUsd' | 'pricedUsd'; value: number };

/**
 * The first figure of a projection that cannot be counted exactly, checked in the order the
 * figures derive from each other (tree size, then tokens, then dollars), or undefined.
 */
export function firstUncountable(projection: PlanProjection): UncountableFigure | undefined {
  const { total } = projection;
  const sessions = projection.caps.flatMap((cap) => [cap.leaves, cap.planningNodes, cap.perCell.total, cap.sessions]).concat(total.sessions, ...projection.cells.map((c) => c.cumulative));
  const checks: Array<[UncountableFigure['figure'], number[]]> = [
    ['sessions', sessions],
    ['tokenBound', [...projection.caps.map((cap) => cap.tokenBound), total.tokenBound]],
    ['costBoundUsd', [...projection.caps.map((cap) => cap.costBoundUsd), total.costBoundUsd]],
    ['pricedUsd', [...projection.caps.map((cap) => cap.pricedUsd ?? 0), total.pricedUsd ?? 0]],
  ];
  for (const [figure, values] of checks) {
    const bad = values.find((value) => !isCountable(value));
    if (bad !== undefined) return { figure, value: bad };
  }
  return undefined;
}
