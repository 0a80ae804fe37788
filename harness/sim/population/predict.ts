import { ARMS, type Arm } from '../../../engine/index.js';
import { sampleArm, samplePair, sampleShared, type SimPairSample } from '../sampler.js';
import type { SimWorld } from './sim-world.js';

/**
 * What the pure sampler predicts for the cell a SimWorld drives: the same draws, keys and
 * decision functions, without Docker. Under shared pairing it is `samplePair`; under independent
 * pairing each arm's tree is drawn with that arm in its shared-phase keys, as the sim client
 * draws it. Per arm: the requirements passing in the graded root tree, and the survival counts.
 */
export function predictCell(world: SimWorld): Record<Arm, SimPairSample['arms'][Arm]> {
  const requirements = world.requirements.map((r) => r.id);
  if (world.pairing === 'shared') {
    return samplePair({ ...world.params, seed: world.cell.seed }, { cap: world.cell.cap, repetition: world.cell.repetition, mergeAttempts: world.mergeAttempts, defects: world.defects, requirements }).arms;
  }
  return Object.fromEntries(
    ARMS.map((arm) => {
      const draws = world.draws(arm);
      const shared = sampleShared(world.params, draws, world.defects, world.cell.cap, requirements);
      return [arm, sampleArm(world.params, draws, world.defects, shared, arm, world.mergeAttempts, requirements)];
    }),
  ) as Record<Arm, SimPairSample['arms'][Arm]>;
}
