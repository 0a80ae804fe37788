import type { Clock, ModelClient, RateControl } from '../../engine/index.js';
import type { ConcurrencyBounds } from '../manifest/concurrency.js';
import type { Requirement } from '../grading/spec-requirements.js';
import type { PinnedModel } from '../journal/journal-header.js';
import type { Manifest } from '../manifest/manifest.js';
import { configuredKeys, providerClients, SIM_ENDPOINT } from '../providers/engine-roster.js';
import type { LoadedProviderConfig } from '../providers/provider-config.js';
import { engineRoster, isSimulatedRoster, sweepRoster } from '../providers/sweep-roster.js';
import type { PairModels } from './record-sweep.js';

/**
 * The models of a sweep: its pinned roster (the two pairs, each answering only its own roles),
 * the live clients of the providers that serve them, and, for a pair served by the built-in
 * SIMULATED population in process, the population of each (cap, repetition).
 */
export interface SweepModels {
  /** What the journal pins and what the router routes by. */
  readonly roster: PinnedModel[];
  /** True when any model of the roster is a simulated one, however served (the one definition of SIMULATED). */
  readonly simulated: boolean;
  /** Every configured key, for every redaction (none for a sweep with no provider configuration). */
  readonly keys: string[];
  /** The provider configuration the roster was resolved from, when there is one. */
  readonly config: import('../providers/provider-config.js').ProviderConfig | undefined;
  /**
   * The rate controllers of the live clients, one per (base URL, key), when the sweep runs on
   * adaptive bounds; empty otherwise (a fixed concurrency, or only the in-process population).
   * The live display and the journal read their `status()`.
   */
  readonly rateControls: readonly RateControl[];
  /** The roster and clients of one pair. */
  forPair(cap: number, repetition: number): Promise<PairModels>;
  /** One one-token completion per model served over HTTP: the warm-up, and the last preflight (its call header names cell `preflight`, which the simulated server answers at once). */
  warmUp(): Promise<void>;
}

/**
 * The built-in SIMULATED population, as the command layer hands it to the record loop (see
 * harness/commands/record.ts): the loop never imports sim/, so the simulated population is
 * one injected dependency, not a branch of the loop.
 */
export interface SimulatedPopulation {
  /** The sim corpus folder of a task (named by its spec folder), whose digest every journal header pins. */
  corpusDir(task: string): string;
  /** The in-process client of the sim endpoint for one pair (cap, repetition) of the sweep, on the task of `specDir`. */
  clientFor(o: { manifest: Manifest; specDir: string; cap: number; repetition: number; requirements: readonly Pick<Requirement, 'id' | 'title' | 'criterion'>[] }): Promise<ModelClient>;
}

export interface SweepModelsOptions {
  manifest: Manifest;
  /** Serves the pairs whose provider is `sim`. Default none: a roster with a `sim` pair is refused at its first pair. */
  population?: SimulatedPopulation;
  /** Default none: every pair must be `sim`. */
  providers?: LoadedProviderConfig;
  requirements: readonly Pick<Requirement, 'id' | 'title' | 'criterion'>[];
  /** The spec folder the sweep runs on (the manifest's `spec`, resolved): the simulated population's task. */
  specDir: string;
  /** Sleeps between attempts and times each provider's patience. Default: the system clock. */
  clock?: Clock;
  /** Adaptive bounds: a rate controller per provider key paces the live clients. Default none (unpaced, as a fixed concurrency runs). */
  bounds?: ConcurrencyBounds;
}

export function sweepModels(o: SweepModelsOptions): SweepModels {
  const { manifest } = o;
  const roster = sweepRoster(manifest, o.providers?.config);
  const built = o.providers ? providerClients(o.providers, process.env, { ...(o.clock ? { clock: o.clock } : {}), ...(o.bounds ? { bounds: o.bounds } : {}) }) : { clients: {}, rateControls: [] };
  const live: Record<string, ModelClient> = built.clients;
  const engine = engineRoster(roster);
  const simPairs = roster.some((m) => m.provider === 'sim');
  return {
    roster,
    simulated: isSimulatedRoster(roster),
    keys: o.providers ? configuredKeys(o.providers) : [],
    config: o.providers?.config,
    rateControls: built.rateControls,
    async forPair(cap, repetition) {
      if (!simPairs) return { roster: engine, clients: live };
      if (!o.population) throw new Error('sweepModels: the roster has a sim pair, but no simulated population was passed (the command layer passes harness/commands/record.ts SIM_POPULATION)');
      const client = await o.population.clientFor({ manifest, specDir: o.specDir, cap, repetition, requirements: o.requirements });
      return { roster: engine, clients: { ...live, [SIM_ENDPOINT]: client } };
    },
    async warmUp() {
      for (const m of roster) {
        if (m.provider === 'sim') continue;
        await live[m.provider]!.complete({ model: m.model, messages: [{ role: 'user', content: 'Reply with the single word: ok' }], maxTokens: 1, role: m.roles[0]!, sessionId: `preflight/${m.name}`, nodeId: 'preflight', attempt: 1, cellId: 'preflight' });
      }
    },
  };
}
