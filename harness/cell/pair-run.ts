import path from 'node:path';
import { assemble, build, type Arm, type BuildOptions, type BuiltTree, type EngineEvent, type NodeResult, type SolveRun } from '../../engine/index.js';
import { gradeTree, type GradeOptions } from '../grading/grader.js';
import type { GradeResult } from '../grading/grading-report.js';
import type { Pairing } from '../manifest/manifest.js';
import type { CellMeasurement } from '../journal/cell-measurement.js';
import { measureCell, sessionsOfCharges } from './cell-measure.js';

export type { Pairing };

type Charge = Extract<EngineEvent, { type: 'charge' }>;

/** Grades one arm's root tree (its workspace) with the held-out oracle. */
export type TreeGrader = (workspace: string, arm: Arm) => Promise<GradeResult>;

export interface PairRunOptions {
  /** Which pair this is: the depth cap (passed to the engine as `maxDepth`) and the 1-based repetition. */
  cell: { cap: number; repetition: number };
  /**
   * Everything one build needs, i.e. the engine's SolveOptions without `arm` and `maxDepth`:
   * roster and clients (wrap the clients, e.g. in TranscribingModelClient, to keep
   * transcripts: every request carries its sessionId), `events` (every event, the build's
   * with no `arm` and each arm's with it; `charge` events name the sessionId a call was charged
   * to, the unit `max_sessions` counts), `limiter` (the one SessionLimiter shared with whatever
   * else the caller runs), `runId`, `secrets`, ceilings. Under independent pairing `workRoot` gets
   * one folder per arm. For the SIMULATED population, build the clients per pair with
   * `simSetup({ maxDepth: cell.cap, repetition: cell.repetition, pairing, ... })`.
   */
  engine: Omit<BuildOptions, 'forArm' | 'maxDepth'>;
  /** The arms to run, in order. Default both, gated first. */
  arms?: readonly Arm[];
  /** Default `shared`. */
  pairing?: Pairing;
  /** Grades a root tree; see {@link oracleGrader}. A root both arms share (it executed whole) is graded once. */
  grade: TreeGrader;
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
  /** This arm's charges, the shared build's included (under shared pairing they appear in both arms). */
  charges: Charge[];
}

export interface PairRun {
  pairing: Pairing;
  /** One build (shared) or one per arm (independent), in arm order. */
  builds: BuiltTree[];
  /** Each arm run, in the order asked. */
  arms: ArmOutcome[];
}

/**
 * Runs ONE (cap, repetition) pair of a sweep end to end and measures it.
 *
 * - shared pairing: the planning and every leaf are built once (`build`), then each arm
 *   assembles that same build (`assemble`, both at once: they share nothing after the
 *   build), so the arms differ only in their merges and the leaves are paid once;
 * - independent pairing: each arm plans, builds and assembles its own tree (one cell per arm,
 *   one after the other), as earlier harnesses did.
 *
 * Each arm's root tree is then graded by `grade`, and its CellMeasurement built from the
 * result and the charges seen on `engine.events`. A stop inside the tree is a designed outcome
 * and is measured; only failures true of every call (quota, configuration, Docker) throw.
 */
export async function runPair(o: PairRunOptions): Promise<PairRun> {
  const arms = o.arms ?? (['gated', 'ungated'] as const);
  const pairing = o.pairing ?? 'shared';
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
    runs.push(...(await Promise.all(arms.map((arm) => assemble(built, arm)))));
  } else {
    for (const arm of arms) {
      const built = await build({ ...engine, workRoot: path.join(engine.workRoot, arm), forArm: arm });
      builds.push(built);
      runs.push(await assemble(built, arm));
    }
  }
  const grades = new Map<string, Promise<GradeResult>>();
  const gradeOnce = (workspace: string, arm: Arm) => {
    if (!grades.has(workspace)) grades.set(workspace, o.grade(workspace, arm));
    return grades.get(workspace)!;
  };
  const outcomes: ArmOutcome[] = [];
  for (const [i, arm] of arms.entries()) {
    const run = runs[i]!;
    const grade = await gradeOnce(run.root.workspace, arm);
    const own = charges.filter((c) => c.arm === undefined || c.arm === arm);
    const measurement = measureCell({ cap: o.cell.cap, repetition: o.cell.repetition, arm, pairing, root: run.root, grade, roster: o.engine.roster, sessions: sessionsOfCharges(own, o.engine.roster) });
    outcomes.push({ arm, run, root: run.root, grade, measurement, charges: own });
  }
  return { pairing, builds, arms: outcomes };
}

/**
 * The grader a sweep cell uses: the spec's held-out oracle in a fresh container per grading
 * (see gradeTree). `limits` may loosen the per-case and whole-grading limits on a busy machine.
 */
export function oracleGrader(o: { specDir: string; runId: string; limits?: Pick<GradeOptions, 'caseTimeoutMs' | 'workers'> }): TreeGrader {
  const specDir = path.resolve(o.specDir);
  return (workspace) => gradeTree({ tree: workspace, spec: path.basename(specDir), specDir, runId: o.runId, ...o.limits });
}
