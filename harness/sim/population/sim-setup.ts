import type { ModelClient, ModelSpec } from '../../../engine/index.js';
import type { Requirement } from '../../grading/spec-requirements.js';
import type { Manifest } from '../../manifest/manifest.js';
import { DEFAULT_SIM_FAMILIES } from '../../providers/sweep-roster.js';
import { SIM_ENDPOINT, simRoster, type SimPairName } from '../../providers/engine-roster.js';
import { loadTaskDefinition } from '../../task/task-definition.js';
import { readCorpus, type SimCorpus } from '../corpus-files.js';
import type { SimParams } from '../sim-params.js';
import { SIMULATED_TAG, SimPopulation } from './sim-population.js';
import { SimWorld, type Pairing } from './sim-world.js';

/** The two simulated pairs when a manifest does not name them. */
export const DEFAULT_SIM_PAIRS: { executor: SimPairName; reviewer: SimPairName } = {
  executor: { model: 'sim-executor', family: DEFAULT_SIM_FAMILIES.executor },
  reviewer: { model: 'sim-reviewer', family: DEFAULT_SIM_FAMILIES.reviewer },
};

/**
 * The simulated population's names for a manifest's two pairs: its own ids and families (the
 * default family where it declares none), whatever provider it names. In process and over HTTP
 * alike, so both answer as the same models.
 */
export function simPairsOf(manifest: Pick<Manifest, 'executor' | 'reviewer'>): { executor: SimPairName; reviewer: SimPairName } {
  const named = (pair: 'executor' | 'reviewer') => ({ model: manifest[pair].model, family: manifest[pair].family ?? DEFAULT_SIM_FAMILIES[pair] });
  return { executor: named('executor'), reviewer: named('reviewer') };
}

export interface SimSetupOptions {
  /** The planted parameters; `seed` below overrides `params.seed`. */
  params: SimParams;
  seed?: number;
  /** The engine's depth cap (maxDepth); the sim's tree model uses the same number and the same rule. */
  maxDepth: number;
  /** 1-based. Default 1. */
  repetition?: number;
  mergeAttempts: number;
  /** Default `shared`. */
  pairing?: Pairing;
  /** The manifest's max_children, which the engine enforces; the sim's tree model follows it. Default: no bound. */
  maxChildren?: number | undefined;
  requirements: readonly Pick<Requirement, 'id' | 'title' | 'criterion'>[];
  /** The spec folder of the task (spec/<task>/): its task.yaml names the deliverable, its name the corpus. */
  specDir: string;
  pairs?: { executor: SimPairName; reviewer: SimPairName };
  /** Default: the task's corpus, harness/sim/corpus/<task>/. */
  corpus?: SimCorpus;
}

export interface SimSetup {
  world: SimWorld;
  population: SimPopulation;
  roster: ModelSpec[];
  clients: Record<string, ModelClient>;
}

/** What the engine needs to run one cell on the built-in SIMULATED population: its roster and its client. */
export async function simSetup(o: SimSetupOptions): Promise<SimSetup> {
  const seed = o.seed ?? o.params.seed;
  const world = new SimWorld({
    params: { ...o.params, seed },
    cell: { seed, cap: o.maxDepth, repetition: o.repetition ?? 1 },
    corpus: o.corpus ?? (await readCorpus(await loadTaskDefinition(o.specDir))),
    requirements: o.requirements,
    mergeAttempts: o.mergeAttempts,
    pairing: o.pairing ?? 'shared',
    maxChildren: o.maxChildren,
  });
  const population = new SimPopulation(world);
  const pairs = o.pairs ?? DEFAULT_SIM_PAIRS;
  return { world, population, roster: simRoster(pairs.executor, pairs.reviewer, SIMULATED_TAG), clients: { [SIM_ENDPOINT]: population } };
}
