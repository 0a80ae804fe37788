import path from 'node:path';
import { assemble, build, flatten, type Arm, type BuildOptions, type BuiltTree, type EngineEvent, type NodeResult, type SolveRun } from '../../engine/index.js';
import { gradeTree, type GradeOptions } from '../grading/grader.js';
import type { GradeResult } from '../grading/grading-report.js';
import type { CellMeasurement } from '../journal/cell-measurement.js';
import type { Pairing } from '../manifest/manifest.js';
import { measureCell, sessionsOfCharges, type SessionSpend } from './cell-measure.js';
import { gradeNodes, leafNodes, mergedNodes, type NodeGrade, type NodeGrading } from './node-grading.js';

export type { Pairing };

type Charge = Extract<EngineEvent, { type: 'charge' }>;

/** Grades one arm's root tree (its workspace) with the held-out oracle. */
export type TreeGrader = (workspace: string, arm: Arm) => Promise<GradeResult>;

/**
 * What the callers of the one pair runner add around it: `harness record` journals, transcribes
 * and decides what a failure means; `harness replay` stops at a divergence; `harness solve` and
 * the tests take the defaults. Every hook is awaited in order, one arm after the other, so what
 * a hook writes lands in the order the pair ran.
 */
export interface PairHooks {
  /** After each build (planning and every leaf), before any arm assembles it, with the arms it serves. Default: nothing. */
  built?(built: BuiltTree, arms: readonly Arm[]): Promise<void>;
  /**
   * After an arm assembled, before it is graded. Return a reason to leave the arm unmeasured
   * (a provider stopped a node, a replay diverged, the cell finished before a kill). Default: grade it.
   */
  assembled?(arm: Arm, run: SolveRun): Promise<string | undefined>;
  /** A grading threw: throw to end the pair (the failure is true of every cell), return to leave the arm ungradable. Default: throw. */
  gradeFailed?(arm: Arm, error: unknown): Promise<void>;
  /** The sessions an arm's cell paid for (the shared build and its own merges). Default: from the engine's `charge` events. */
  sessions?(arm: Arm): readonly SessionSpend[];
  /** After an arm is measured. Default: nothing. */
  measured?(outcome: ArmOutcome): Promise<void>;
}

export interface PairRunOptions {
  /** Which pair this is: the depth cap (passed to the engine as `maxDepth`) and the 1-based repetition. */
  cell: { cap: number; repetition: number };
  /**
   * Everything one build needs, i.e. the engine's BuildOptions without `forArm` and `maxDepth`:
   * roster and clients (wrap the clients to keep transcripts: every request carries its
   * sessionId), `events` (every event, the build's with no `arm` and each arm's with it;
   * `charge` events name the session a call was charged to), `limiter` (the one
   * SessionLimiter shared with whatever else the caller runs), `runId`, `secrets`, ceilings.
   * Under independent pairing `workRoot` gets one folder per arm.
   */
  engine: Omit<BuildOptions, 'forArm' | 'maxDepth'>;
  /** The arms to run, in order. Default both, gated first. */
  arms?: readonly Arm[];
  /** Default `shared`. */
  pairing?: Pairing;
  /** Grades a root tree; see {@link oracleGrader}. A root both arms share (it executed whole) is graded once. */
  grade: TreeGrader;
  /** Default: none (see {@link PairHooks} for each default). */
  hooks?: PairHooks;
  /**
   * Grade every assembled node's tree too (`grade_merges`), with the same grader: a node whose
   * tree lacks any of `entryPoints` (paths relative to its workspace, the task.yaml's `deliverable.entry_points`)
   * is not gradable there. Default: only the root is graded.
   */
  gradeMerges?: NodeGrading;
  /**
   * Grade every leaf's own tree too (`grade_leaves`), with the same grader and the same rule for
   * a tree without the entry points: what a leaf built beyond what it claimed. Under shared
   * pairing a leaf is graded once for both arms. Default: leaves are not graded.
   */
  gradeLeaves?: NodeGrading;
}

/** One arm of a pair, measured. */
export interface ArmOutcome {
  arm: Arm;
  /** The arm's assembled tree (what the engine returned). */
  run: SolveRun;
  root: NodeResult;
  grade: GradeResult;
  /** The `cell_finished` payload of this arm's cell: leaves, merges, grade, escalations, spend. */
  measurement: CellMeasurement;
}

/** An arm that assembled but was not measured, and why. */
export type ArmUnmeasured = { arm: Arm; run: SolveRun; status: 'skipped'; reason: string } | { arm: Arm; run: SolveRun; status: 'ungradable'; error: unknown };

export interface PairRun {
  pairing: Pairing;
  /** One build (shared) or one per arm (independent), in arm order. */
  builds: BuiltTree[];
  /** The measured arms, in the order asked. */
  arms: ArmOutcome[];
  /** The arms a hook left unmeasured, or whose grading failed. */
  unmeasured: ArmUnmeasured[];
}

/**
 * Runs ONE (cap, repetition) pair of a sweep end to end and measures it: the one
 * build → assemble → grade → measure of the harness (record, replay and solve all run it).
 *
 * - shared pairing: the planning and every leaf are built once (`build`), then each arm
 *   assembles that same build (`assemble`, both at once: they share nothing after the build),
 *   so the arms differ only in their merges and the leaves are paid once. Settled, not raced:
 *   an arm still running after its partner failed would go on writing into a workspace the
 *   caller may be about to clear;
 * - independent pairing: each arm plans, builds and assembles its own tree, one after the other.
 *
 * Each arm's root tree is then graded and its CellMeasurement built. A stop inside the tree is
 * a designed outcome and is measured; failures true of every call (quota, configuration,
 * Docker) propagate from the engine, after every arm has settled.
 */
export async function runPair(o: PairRunOptions): Promise<PairRun> {
  const arms = o.arms ?? (['gated', 'ungated'] as const);
  const pairing = o.pairing ?? 'shared';
  const hooks = o.hooks ?? {};
  const charges: Charge[] = [];
  const sink = o.engine.events;
  const engine: BuildOptions = {
    ...o.engine,
    maxDepth: o.cell.cap,
    events: {
      emit: (event: EngineEvent) => {
        if (event.type === 'charge') charges.push(event);
        sink?.emit(event);
      },
    },
  };
  const builds: BuiltTree[] = [];
  const runs: SolveRun[] = [];
  if (pairing === 'shared') {
    const built = await build(engine);
    builds.push(built);
    await hooks.built?.(built, arms);
    runs.push(...(await settledAll(arms.map((arm) => assemble(built, arm)))));
  } else {
    for (const arm of arms) {
      const built = await build({ ...engine, workRoot: path.join(engine.workRoot, arm), forArm: arm });
      builds.push(built);
      await hooks.built?.(built, [arm]);
      runs.push(await assemble(built, arm));
    }
  }

  const grades = new Map<string, Promise<GradeResult>>();
  const gradeOnce = (workspace: string, arm: Arm) => {
    if (!grades.has(workspace)) grades.set(workspace, o.grade(workspace, arm));
    return grades.get(workspace)!;
  };
  const measured: ArmOutcome[] = [];
  const unmeasured: ArmUnmeasured[] = [];
  for (const [i, arm] of arms.entries()) {
    const run = runs[i]!;
    const skip = await hooks.assembled?.(arm, run);
    if (skip !== undefined) {
      unmeasured.push({ arm, run, status: 'skipped', reason: skip });
      continue;
    }
    let grade: GradeResult;
    let mergeGrades: Map<string, NodeGrade> | undefined;
    let leafGrades: Map<string, NodeGrade> | undefined;
    try {
      grade = await gradeOnce(run.root.workspace, arm);
      const nodes = flatten(run.root);
      const below = (pick: typeof mergedNodes, grading: NodeGrading) => gradeNodes(pick(run.root, nodes), grading.entryPoints, (workspace) => gradeOnce(workspace, arm));
      if (o.gradeMerges) mergeGrades = await below(mergedNodes, o.gradeMerges);
      if (o.gradeLeaves) leafGrades = await below(leafNodes, o.gradeLeaves);
    } catch (error) {
      if (!hooks.gradeFailed) throw error;
      await hooks.gradeFailed(arm, error);
      unmeasured.push({ arm, run, status: 'ungradable', error });
      continue;
    }
    const sessions = hooks.sessions?.(arm) ?? sessionsOfCharges(charges.filter((c) => c.arm === undefined || c.arm === arm), o.engine.roster);
    const measurement = measureCell({ cap: o.cell.cap, repetition: o.cell.repetition, arm, pairing, root: run.root, grade, roster: o.engine.roster, sessions, ...(mergeGrades ? { mergeGrades } : {}), ...(leafGrades ? { leafGrades } : {}) });
    const outcome = { arm, run, root: run.root, grade, measurement };
    await hooks.measured?.(outcome);
    measured.push(outcome);
  }
  return { pairing, builds, arms: measured, unmeasured };
}

/** Every promise settled, then the values in order, or the first rejection. */
async function settledAll<T>(promises: Array<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/**
 * The grader a sweep cell uses: the spec's held-out oracle in a fresh container per grading
 * (see gradeTree). `limits` may loosen the per-case and whole-grading limits on a busy machine;
 * `caseIds` grades on those cases of the oracle only (tests only: tests/support/witness-oracle.ts).
 */
export function oracleGrader(o: { specDir: string; runId: string; limits?: Pick<GradeOptions, 'caseTimeoutMs' | 'workers'>; caseIds?: readonly string[] }): TreeGrader {
  const specDir = path.resolve(o.specDir);
  return (workspace) => gradeTree({ tree: workspace, spec: path.basename(specDir), specDir, runId: o.runId, ...o.limits, ...(o.caseIds ? { caseIds: o.caseIds } : {}) });
}
