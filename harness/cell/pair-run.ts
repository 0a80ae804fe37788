import path from 'node:path';
import { assemble, build, type Arm, type BuildOptions, type BuiltTree, type SolveRun } from '../../engine/index.js';
import type { Pairing } from '../sim/population/sim-world.js';

export interface PairRunOptions {
  /** Everything one build needs; `workRoot` is split per arm under independent pairing. */
  engine: Omit<BuildOptions, 'forArm'>;
  /** The arms to run, in order. */
  arms: readonly Arm[];
  /** `shared`: one build, both arms assemble it. `independent`: a build per arm. Default `shared`. */
  pairing?: Pairing;
}

export interface PairRun {
  /** One build (shared) or one per arm (independent), in arm order. */
  builds: BuiltTree[];
  runs: Partial<Record<Arm, SolveRun>>;
}

/**
 * One (cap, repetition) pair: under shared pairing the planning and every leaf are built once
 * and each arm then assembles them, so the arms differ only in their merges and the leaves are
 * paid once; under independent pairing each arm plans and builds its own tree. The arms of a
 * shared build assemble at once (they share nothing after the build).
 */
export async function runPair(o: PairRunOptions): Promise<PairRun> {
  const runs: Partial<Record<Arm, SolveRun>> = {};
  if ((o.pairing ?? 'shared') === 'shared') {
    const built = await build(o.engine);
    const done = await Promise.all(o.arms.map((arm) => assemble(built, arm)));
    o.arms.forEach((arm, i) => (runs[arm] = done[i]));
    return { builds: [built], runs };
  }
  const builds: BuiltTree[] = [];
  for (const arm of o.arms) {
    const built = await build({ ...o.engine, workRoot: path.join(o.engine.workRoot, arm), forArm: arm });
    builds.push(built);
    runs[arm] = await assemble(built, arm);
  }
  return { builds, runs };
}
