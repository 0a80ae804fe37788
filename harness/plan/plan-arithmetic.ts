import { z } from 'zod';
import type { Role } from '../../engine/index.js';
import { ARMS, gradeLeavesOf, gradeMergesOf, repetitionsAt, type Arm, type Manifest, type Pairing } from '../manifest/manifest.js';
import { ModelPairName, pairOfRole } from '../providers/role-pairs.js';

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
 * loop consults on a trigger (every 6 steps, or a write no check mentions), at most
 * {@link COURT}.driftPerLoop per loop (the engine's DRIFT_ALLOWANCE: it stops asking past it; a
 * literal here because the run-file schemas import this module and must not load the engine,
 * and tests/harness/plan/plan-arithmetic.test.ts holds the two equal).
 * A red verdict's repair round, a check rewrite or a falsification re-ask is
 * outside the allowance; the ceiling stops a sweep that needs them beyond it.
 */
export const COURT = { leaf: 4, planner: 1, mergeChecker: 1, mergeMetaVerifier: 1, perAttempt: 2, driftPerLoop: 4 } as const;

/**
 * Planner sessions a planning node may open under `max_children`: its plan, and the one re-ask
 * a plan wider than the bound earns (engine/tree/plan-stage.ts, `boundWidth`), a session of its own.
 */
export const BOUNDED_PLANNER_SESSIONS = COURT.planner + 1;

/** Each kind of session the court opens ({@link COURT}): a leaf's four, a planning node's planner, a merge's, and the drift-judge allowance. */
export const SessionKind = z.enum(['leafChecker', 'leafWorker', 'leafMetaVerifier', 'leafVerifier', 'planner', 'mergeChecker', 'mergeMetaVerifier', 'merger', 'review', 'driftJudge']);
export type SessionKind = z.infer<typeof SessionKind>;

/**
 * The role the model router sends each kind of session as (engine/tree, engine/court);
 * `pairOfRole` says which pair's model that is, so the bill prices every session at the model
 * that answers it. The merge's review is the one kind whose role depends on the arm: the
 * independent judge when gated, the merger's self-review when ungated.
 */
export const SESSION_ROLES: Readonly<Record<SessionKind, Role | Readonly<Record<Arm, Role>>>> = {
  // A leaf: the checker writing the checks its work must pass, the worker, the meta-verifier
  // settling those checks (engine/court/meta-verify) and the independent verifier re-running
  // them (engine/court/verify-work). Both judges are role `verifier`.
  leafChecker: 'checker',
  leafWorker: 'worker',
  leafMetaVerifier: 'verifier',
  leafVerifier: 'verifier',
  planner: 'planner',
  // A merge's seam checks: their checker and their meta-verifier, in each arm that assembles;
  // the meta-verifier judges checks, not the merge, so both arms call it.
  mergeChecker: 'checker',
  mergeMetaVerifier: 'verifier',
  merger: 'merger',
  review: { gated: 'reviewer', ungated: 'self_reviewer' },
  driftJudge: 'drift_judge',
};

/** The role a session of `kind` is opened as in `arm`. */
export function roleOfSession(kind: SessionKind, arm: Arm): Role {
  const role = SESSION_ROLES[kind];
  return typeof role === 'string' ? role : role[arm];
}

/** Sessions of one cell (or of one arm's merges alone), by kind. */
export type SessionsByKind = Readonly<Record<SessionKind, number>>;

/** The one count of what the court opens: every other figure of the bill sums these. */
function sessionsByKind(shape: TreeShape, mergeAttempts: number, withBuild: boolean, bounded = false): SessionsByKind {
  const leaves = withBuild ? shape.leaves : 0;
  const planners = bounded ? BOUNDED_PLANNER_SESSIONS : COURT.planner;
  const mergers = shape.planningNodes * mergeAttempts;
  return {
    leafChecker: leaves,
    leafWorker: leaves,
    leafMetaVerifier: leaves,
    leafVerifier: leaves,
    planner: withBuild ? shape.planningNodes * planners : 0,
    mergeChecker: shape.planningNodes * COURT.mergeChecker,
    mergeMetaVerifier: shape.planningNodes * COURT.mergeMetaVerifier,
    merger: mergers,
    review: mergers * (COURT.perAttempt - 1),
    driftJudge: (leaves + mergers) * COURT.driftPerLoop,
  };
}

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

function totalsOf(k: SessionsByKind): CellSessions {
  // Summed in this order so a fractional branching gives the same floats as 4 x leaves.
  const build = k.leafChecker + k.leafWorker + k.leafMetaVerifier + k.leafVerifier;
  const merge = k.mergeChecker + k.mergeMetaVerifier + k.merger;
  const required = build + k.planner + merge + k.review;
  return { build, planning: k.planner, merge, review: k.review, required, allowance: k.driftJudge, total: required + k.driftJudge };
}

function sessionsOf(shape: TreeShape, mergeAttempts: number, withBuild: boolean, bounded = false): CellSessions {
  return totalsOf(sessionsByKind(shape, mergeAttempts, withBuild, bounded));
}

/** Sessions of one cell; `bounded`: the shape is max_children's, each planner counted with its re-ask. */
export function cellSessions(shape: TreeShape, mergeAttempts: number, bounded = false): CellSessions {
  return sessionsOf(shape, mergeAttempts, true, bounded);
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

export function pairSessions(shape: TreeShape, mergeAttempts: number, arms: number, pairing: Pairing, bounded = false): PairSessions {
  const whole = sessionsOf(shape, mergeAttempts, true, bounded);
  const merges = sessionsOf(shape, mergeAttempts, false);
  const buildPerTree = whole.total - merges.total;
  const mergesPerArm = merges.total;
  const trees = pairing === 'shared' ? Math.min(arms, 1) : arms;
  const required = trees * (whole.required - merges.required) + arms * merges.required;
  return { pairing, arms, buildPerTree, mergesPerArm, required, total: trees * buildPerTree + arms * mergesPerArm };
}

/** How a list of cells is billed: the declared tree and the pairing in force. No defaults: a bill says what it assumes. */
export interface BillBasis {
  /** The declared branching every tree uses its whole cap at (a manifest's projected_branching). */
  branching: number;
  /** Merge attempts per assembling node, equal in both arms (a manifest's merge_attempts). */
  mergeAttempts: number;
  /** Whether the arms of a (cap, repetition) share one planned tree and its leaves. */
  pairing: Pairing;
  /**
   * True when `branching` is the manifest's max_children, a bound the engine enforces, not a
   * scenario: every planning node is then counted with the re-ask a wider plan earns. Default false.
   */
  bounded?: boolean;
}

/**
 * How `harness plan` bills a manifest's cells, for every figure that calls itself the plan's
 * (a report's declared column, `plan --from`'s declared sessions): max_children's bound when
 * the manifest sets one, else the projected_branching scenario.
 */
export function billBasisOf(manifest: Manifest): BillBasis {
  const bound = manifest.max_children;
  return { branching: bound ?? manifest.projected_branching, mergeAttempts: manifest.merge_attempts, pairing: manifest.pairing, bounded: bound !== undefined };
}

/** One cell's own share of a bill, by kind and in total. */
export interface OwnSessions {
  /** True when this cell pays for a tree's planning and leaves. */
  buildsTree: boolean;
  /** Its sessions by kind: each kind's role, and so its pair, is in {@link SESSION_ROLES}. */
  byKind: SessionsByKind;
  /** The same sessions summed as the bill prints them. */
  sessions: CellSessions;
}

/**
 * Each cell's own sessions, in the order given: its arm's merges, plus the build when it plans
 * its own tree (independent pairing) or is the first cell of its (cap, repetition) pair in the
 * list (shared pairing: it pays for the leaves both arms then share). Summed, it is what
 * `harness plan` bills for exactly these cells, and what a report's declared figure compares
 * with: one tree's build per pair under shared pairing, one per cell under independent.
 */
export function ownSessions(cells: ReadonlyArray<Pick<Cell, 'cap' | 'repetition'>>, basis: BillBasis): OwnSessions[] {
  const paid = new Set<string>();
  return cells.map((cell) => {
    const pair = `${cell.cap}/${cell.repetition}`;
    const buildsTree = basis.pairing === 'independent' || !paid.has(pair);
    paid.add(pair);
    const byKind = sessionsByKind(treeShape(basis.branching, cell.cap), basis.mergeAttempts, buildsTree, basis.bounded ?? false);
    return { buildsTree, byKind, sessions: totalsOf(byKind) };
  });
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
  /**
   * The manifest's max_children, when it sets one: `branching` is then that bound and every figure
   * a bound on what the engine can build (see {@link BillBasis}.bounded). Absent: a scenario.
   */
  maxChildren?: number;
  mergeAttempts: number;
  unit: { tokenCeiling: number; costCeilingUsd: number };
  maxSessions: number;
  pricing?: Pricing;
  /** Default `shared`. */
  pairing?: Pairing;
  /**
   * Why grade_merges is on (`manifest`: the manifest sets it; `simulated`: the default of a
   * SIMULATED sweep); absent when it resolves off, and then the bill counts no merge gradings.
   */
  gradeMerges?: GradeMergesSource;
  /** Why grade_leaves is on, as gradeMerges; absent when it resolves off, and then the bill counts no leaf gradings. */
  gradeLeaves?: GradeMergesSource;
}

export type GradeMergesSource = 'manifest' | 'simulated';

/**
 * Seconds of one oracle grading of a tree, for the time grade_merges adds. The plan had no
 * grading time before; this is the mean of the four root gradings recorded in
 * runs/example-sim (each cell's grade.json, `elapsedMs`: 23,171, 14,871, 15,584 and 15,597 ms;
 * the first task's 326 cases, fork mode), rounded to 17 s; another task's cases take another time. A subtree's tree carries no more than the
 * root's, so it is an upper-side figure per grading, and a serial one: concurrency divides it.
 */
export const GRADING_SECONDS = 17;

/** The merge gradings of one cap: one oracle grading per assembling node and arm, the root's being the root grade every cell makes anyway. */
export interface CapMergeGradings {
  cap: number;
  /** Assembling (planning) nodes of one tree at projected_branching. */
  assemblingNodes: number;
  /** Every assembled node graded in every arm of one pair: assembling nodes x arms. */
  gradingsPerPair: number;
  /** Of those, the gradings grade_merges adds: all but the root grades (arms per pair). */
  extraPerPair: number;
  repetitions: number;
  /** extraPerPair x repetitions. */
  extra: number;
  /** extra x GRADING_SECONDS. */
  seconds: number;
}

export interface MergeGradings {
  source: GradeMergesSource;
  secondsPerGrading: number;
  caps: CapMergeGradings[];
  total: { gradings: number; extra: number; seconds: number };
}

/**
 * The gradings grade_merges adds to a sweep whose trees use their whole cap at `branching`:
 * per pair, each arm grades every node it assembles (under either pairing each arm assembles
 * its own merges), less the root grade each cell makes anyway. No model calls: oracle time only.
 */
export function mergeGradings(input: Pick<PlanInput, 'caps' | 'arms' | 'repetitions' | 'branching'>, source: GradeMergesSource): MergeGradings {
  const arms = ARMS.filter((arm) => input.arms.includes(arm)).length;
  const caps = [...new Set(input.caps)]
    .sort((a, b) => a - b)
    .map((cap): CapMergeGradings => {
      const assemblingNodes = treeShape(input.branching, cap).planningNodes;
      const gradingsPerPair = assemblingNodes * arms;
      const extraPerPair = Math.max(0, assemblingNodes - 1) * arms;
      const repetitions = input.repetitions[cap] ?? 0;
      const extra = extraPerPair * repetitions;
      return { cap, assemblingNodes, gradingsPerPair, extraPerPair, repetitions, extra, seconds: extra * GRADING_SECONDS };
    });
  const sum = (pick: (c: CapMergeGradings) => number) => caps.reduce((total, c) => total + pick(c), 0);
  return { source, secondsPerGrading: GRADING_SECONDS, caps, total: { gradings: sum((c) => c.gradingsPerPair * c.repetitions), extra: sum((c) => c.extra), seconds: sum((c) => c.seconds) } };
}

/** The leaf gradings of one cap: one oracle grading per leaf and tree (one tree per pair under shared pairing, one per arm otherwise). */
export interface CapLeafGradings {
  cap: number;
  /** Leaves of one tree at projected_branching. */
  leaves: number;
  /** Trees a pair builds: 1 under shared pairing (both arms hold its leaves), the arms otherwise. */
  treesPerPair: number;
  repetitions: number;
  /** leaves x treesPerPair x repetitions. */
  gradings: number;
  /** gradings x GRADING_SECONDS. */
  seconds: number;
}

export interface LeafGradings {
  source: GradeMergesSource;
  secondsPerGrading: number;
  caps: CapLeafGradings[];
  total: { gradings: number; seconds: number };
}

/** The gradings grade_leaves adds to a sweep whose trees use their whole cap at `branching`: every leaf's own tree, once per tree built. No model calls. */
export function leafGradings(input: Pick<PlanInput, 'caps' | 'arms' | 'repetitions' | 'branching' | 'pairing'>, source: GradeMergesSource): LeafGradings {
  const treesPerPair = (input.pairing ?? 'shared') === 'shared' ? 1 : ARMS.filter((arm) => input.arms.includes(arm)).length;
  const caps = [...new Set(input.caps)]
    .sort((a, b) => a - b)
    .map((cap): CapLeafGradings => {
      const { leaves } = treeShape(input.branching, cap);
      const repetitions = input.repetitions[cap] ?? 0;
      const gradings = leaves * treesPerPair * repetitions;
      return { cap, leaves, treesPerPair, repetitions, gradings, seconds: gradings * GRADING_SECONDS };
    });
  return { source, secondsPerGrading: GRADING_SECONDS, caps, total: { gradings: caps.reduce((n, c) => n + c.gradings, 0), seconds: caps.reduce((n, c) => n + c.seconds, 0) } };
}

/** Dollars for one session of a model: its token ceiling at the assumed split, held by the cost ceiling. */
export function sessionPriceUsd(price: Price, tokenCeiling: number, costCeilingUsd: number, inputPerOutput: number): number {
  const perToken = (inputPerOutput * price.input + price.output) / (inputPerOutput + 1) / 1_000_000;
  return Math.min(tokenCeiling * perToken, costCeilingUsd);
}

/**
 * A cell's sessions by the pair whose model answers them, as the router sends each kind: the
 * reviewer answers the verifiers and meta-verifiers in both arms and the gated arm's merge
 * judge; the executor everything else, the ungated arm's self-review included.
 */
export function sessionsByPair(byKind: SessionsByKind, arm: Arm): Record<ModelPairName, number> {
  const byPair: Record<ModelPairName, number> = { executor: 0, reviewer: 0 };
  for (const kind of SessionKind.options) byPair[pairOfRole(roleOfSession(kind, arm))] += byKind[kind];
  return byPair;
}

/** A cell's price: each session at its token ceiling on the model of the pair that answers it. */
function cellPriceUsd(byPair: Readonly<Record<ModelPairName, number>>, input: PlanInput): number | undefined {
  const { pricing, unit } = input;
  if (!pricing) return undefined;
  const at = (pair: ModelPairName) => sessionPriceUsd(pricing[pair], unit.tokenCeiling, unit.costCeilingUsd, pricing.inputPerOutput);
  return ModelPairName.options.reduce((sum, pair) => sum + byPair[pair] * at(pair), 0);
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
  /** The same sessions by the pair whose model answers them (`sessionsByPair`): what `pricedUsd` prices each at. */
  sessionsByPair: Record<ModelPairName, number>;
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
  /** The manifest's max_children when it sets one: `branching` is that bound and the figures are bounds. Absent: a scenario. */
  maxChildren?: number;
  mergeAttempts: number;
  pairing: Pairing;
  caps: CapProjection[];
  cells: CellProjection[];
  total: { cells: number; sessions: number; sessionsByPair: Record<ModelPairName, number>; tokenBound: number; costBoundUsd: number; pricedUsd?: number };
  ceiling: CeilingVerdict;
  /** The oracle gradings grade_merges adds; absent when it resolves off. */
  mergeGradings?: MergeGradings;
  /** The oracle gradings grade_leaves adds; absent when it resolves off. */
  leafGradings?: LeafGradings;
}

/** The bill of a sweep in which every tree uses its whole cap at the declared branching. */
export function projectPlan(input: PlanInput): PlanProjection {
  const { unit } = input;
  const pairing = input.pairing ?? 'shared';
  const order = cellOrder(input.caps, input.arms, input.repetitions);
  // Recording order puts the gated arm first, so under shared pairing it pays for the build.
  const bounded = input.maxChildren !== undefined;
  const own = ownSessions(order, { branching: input.branching, mergeAttempts: input.mergeAttempts, pairing, bounded });
  const byPair = order.map((cell, i) => sessionsByPair(own[i]!.byKind, cell.arm));
  const { cells, ceiling } = applyCeiling(
    order.map((cell, i) => ({ ...cell, sessions: own[i]!.sessions.total })),
    input.maxSessions,
  );
  const arms = ARMS.filter((arm) => input.arms.includes(arm)).length;
  const caps = [...new Set(order.map((cell) => cell.cap))].map((cap): CapProjection => {
    const shape = treeShape(input.branching, cap);
    const mine = order.flatMap((cell, i) => (cell.cap === cap ? [i] : []));
    const total = mine.reduce((sum, i) => sum + own[i]!.sessions.total, 0);
    const pairs = mine.map((i) => byPair[i]!);
    return {
      cap,
      ...shape,
      repetitions: input.repetitions[cap] ?? 0,
      cells: mine.length,
      perCell: cellSessions(shape, input.mergeAttempts, bounded),
      perPair: pairSessions(shape, input.mergeAttempts, arms, pairing, bounded),
      sessions: total,
      sessionsByPair: byPairTotal(pairs),
      tokenBound: total * unit.tokenCeiling,
      costBoundUsd: total * unit.costCeilingUsd,
      ...(input.pricing ? { pricedUsd: pairs.reduce((sum, p) => sum + (cellPriceUsd(p, input) ?? 0), 0) } : {}),
    };
  });
  const sum = (pick: (c: CapProjection) => number) => caps.reduce((total, c) => total + pick(c), 0);
  return {
    branching: input.branching,
    ...(bounded ? { maxChildren: input.maxChildren } : {}),
    mergeAttempts: input.mergeAttempts,
    pairing,
    caps,
    cells,
    total: {
      cells: cells.length,
      sessions: sum((c) => c.sessions),
      sessionsByPair: byPairTotal(caps.map((c) => c.sessionsByPair)),
      tokenBound: sum((c) => c.tokenBound),
      costBoundUsd: sum((c) => c.costBoundUsd),
      ...(input.pricing ? { pricedUsd: sum((c) => c.pricedUsd ?? 0) } : {}),
    },
    ceiling,
    ...(input.gradeMerges ? { mergeGradings: mergeGradings(input, input.gradeMerges) } : {}),
    ...(input.gradeLeaves ? { leafGradings: leafGradings(input, input.gradeLeaves) } : {}),
  };
}

const byPairTotal = (parts: ReadonlyArray<Readonly<Record<ModelPairName, number>>>): Record<ModelPairName, number> => ({
  executor: parts.reduce((n, p) => n + p.executor, 0),
  reviewer: parts.reduce((n, p) => n + p.reviewer, 0),
});

/**
 * The projection of a manifest's sweep: the caps given (default every cap), priced when
 * `pricing` is, counting merge gradings when `simulated` says the sweep is SIMULATED and
 * grade_merges is left to its default, or the manifest turns it on.
 */
export function planInputFor(manifest: Manifest, caps: readonly number[] = manifest.depth_caps, pricing?: Pricing, simulated = false): PlanInput {
  const grade = gradeMergesOf(manifest, simulated);
  const leaves = gradeLeavesOf(manifest, simulated);
  return {
    caps,
    arms: manifest.arms,
    repetitions: Object.fromEntries(caps.map((cap) => [cap, repetitionsAt(manifest, cap)])),
    // A bound the engine enforces replaces the scenario: the bill becomes a bound.
    branching: manifest.max_children ?? manifest.projected_branching,
    ...(manifest.max_children !== undefined ? { maxChildren: manifest.max_children } : {}),
    mergeAttempts: manifest.merge_attempts,
    unit: { tokenCeiling: manifest.unit.token_ceiling, costCeilingUsd: manifest.unit.cost_ceiling_usd },
    maxSessions: manifest.max_sessions,
    ...(pricing ? { pricing } : {}),
    pairing: manifest.pairing,
    ...(grade ? { gradeMerges: manifest.grade_merges === undefined ? 'simulated' : 'manifest' } : {}),
    ...(leaves ? { gradeLeaves: manifest.grade_leaves === undefined ? 'simulated' : 'manifest' } : {}),
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
