import type { Clock, ModelClient } from '../../engine/index.js';
import type { Requirement } from '../grading/spec-requirements.js';
import type { PinnedModel } from '../journal/journal-header.js';
import type { Manifest } from '../manifest/manifest.js';
import { clientsFromConfig, configuredKeys, SIM_ENDPOINT } from '../providers/engine-roster.js';
import type { LoadedProviderConfig } from '../providers/provider-config.js';
import { engineRoster, isSimulatedRoster, sweepRoster } from '../providers/sweep-roster.js';
import { simPairsOf, simSetup } from '../sim/population/sim-setup.js';
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
  /** The roster and clients of one pair. */
  forPair(cap: number, repetition: number): Promise<PairModels>;
  /** One one-token completion per model served over HTTP: the warm-up, and the last preflight (its call header names cell `preflight`, which the simulated server answers at once). */
  warmUp(): Promise<void>;
}

export interface SweepModelsOptions {
  manifest: Manifest;
  /** Default none: every pair must be `sim`. */
  providers?: LoadedProviderConfig;
  requirements: readonly Pick<Requirement, 'id' | 'title' | 'criterion'>[];
  /** Sleeps between attempts and times each provider's patience. Default: the system clock. */
  clock?: Clock;
}

export function sweepModels(o: SweepModelsOptions): SweepModels {
  const { manifest } = o;
  const roster = sweepRoster(manifest, o.providers?.config);
  const live: Record<string, ModelClient> = o.providers ? clientsFromConfig(o.providers, process.env, o.clock ? { clock: o.clock } : {}) : {};
  const engine = engineRoster(roster);
  const simPairs = roster.some((m) => m.provider === 'sim');
  return {
    roster,
    simulated: isSimulatedRoster(roster),
    keys: o.providers ? configuredKeys(o.providers) : [],
    config: o.providers?.config,
    async forPair(cap, repetition) {
      if (!simPairs) return { roster: engine, clients: live };
      const setup = await simSetup({
        params: manifest.simulated, maxDepth: cap, repetition, mergeAttempts: manifest.merge_attempts, pairing: manifest.pairing,
        requirements: o.requirements, pairs: simPairsOf(manifest),
      });
      return { roster: engine, clients: { ...live, [SIM_ENDPOINT]: setup.clients[SIM_ENDPOINT]! } };
    },
    async warmUp() {
      for (const m of roster) {
        if (m.provider === 'sim') continue;
        await live[m.provider]!.complete({ model: m.model, messages: [{ role: 'user', content: 'Reply with the single word: ok' }], maxTokens: 1, role: m.roles[0]!, sessionId: `preflight/${m.name}`, nodeId: 'preflight', attempt: 1, cellId: 'preflight' });
      }
    },
  };
}
