import { UNPLACED, type ModelSpec } from '../../engine/index.js';
import type { JournalPins, PinnedModel } from '../journal/journal-header.js';
import type { Manifest, ModelPair } from '../manifest/manifest.js';
import type { ProviderConfig } from './provider-config.js';
import { EXECUTOR_ROLES, JUDGE_ROLES, type ModelPairName } from './role-pairs.js';

/**
 * The roster of a sweep: exactly the manifest's two pairs, each answering its own roles and no
 * other (role-pairs.ts), with no fallbacks. A provider file may list more models, and may give
 * the two no `roles` at all; neither can make the executor's work reach the reviewer's model
 * (which would then have contributed, and could no longer judge) or the reverse. When a pair's
 * model is down its node waits within the provider's patience, then stops, naming that model.
 */

/** What every model id of the simulated population carries (harness/sim/population restates it for the population). */
export const SIMULATED_TAG = '(SIMULATED)';

/** The simulated pairs' families when a manifest names none. */
export const DEFAULT_SIM_FAMILIES: Readonly<Record<ModelPairName, string>> = { executor: 'sim-alpha', reviewer: 'sim-beta' };

/** True when a model id is one of the simulated population's, however it is served (in process or over HTTP). */
export function isSimulatedModelId(id: string): boolean {
  return id.includes(SIMULATED_TAG);
}

/**
 * The one definition of a SIMULATED run: any model of its roster is a simulated one, whatever
 * transport served it. It alone decides the caveat in the summary, the report and the site.
 */
export function isSimulatedRoster(roster: readonly Pick<PinnedModel, 'provider' | 'model'>[]): boolean {
  return roster.some((m) => m.provider === 'sim' || isSimulatedModelId(m.model));
}

/** The same rule for a journal: its pinned roster, or (before the roster was pinned) its two pinned pairs. */
export function isSimulatedRun(pins: Pick<JournalPins, 'roster' | 'executor' | 'reviewer'>): boolean {
  if (pins.roster) return isSimulatedRoster(pins.roster);
  return [pins.executor, pins.reviewer].some((p) => p.provider === 'sim' || isSimulatedModelId(p.realModel));
}

/**
 * The same rule before a sweep has a roster (`harness plan`): a pair served by the built-in
 * population, or whose model id, as the provider configuration resolves it, is a simulated one.
 */
export function isSimulatedSweep(manifest: Pick<Manifest, 'executor' | 'reviewer'>, config: ProviderConfig | undefined): boolean {
  return [manifest.executor, manifest.reviewer].some((p) => p.provider === 'sim' || isSimulatedModelId(config?.models[p.model]?.model ?? p.model));
}

function pinnedModel(pair: ModelPairName, declared: ModelPair, config: ProviderConfig | undefined): PinnedModel {
  const roles = [...(pair === 'executor' ? EXECUTOR_ROLES : JUDGE_ROLES)];
  if (declared.provider === 'sim') {
    const free = { input: 0, output: 0, cachedInput: 0 };
    return { pair, name: declared.model, model: `${declared.model} ${SIMULATED_TAG}`, provider: 'sim', family: declared.family ?? DEFAULT_SIM_FAMILIES[pair], tier: 'medium', rung: declared.rung, roles, prices: free, fallbacks: [] };
  }
  const entry = config?.models[declared.model];
  if (!entry) throw new Error(`no provider configuration entry serves model ${declared.model}; check the configuration before building the roster`);
  const price = entry.price_usd_per_million;
  return {
    pair, name: declared.model, model: entry.model ?? declared.model, provider: entry.provider, family: entry.family ?? null, tier: entry.tier ?? 'medium', rung: declared.rung, roles,
    prices: price ? { input: price.input, output: price.output, cachedInput: price.cached_input ?? price.input } : null,
    fallbacks: [],
  };
}

/** The sweep's roster: the executor pair's model, then the reviewer pair's (refused when the configuration does not serve one). */
export function sweepRoster(manifest: Pick<Manifest, 'executor' | 'reviewer'>, config: ProviderConfig | undefined): PinnedModel[] {
  return [pinnedModel('executor', manifest.executor, config), pinnedModel('reviewer', manifest.reviewer, config)];
}

/** The engine's roster from a pinned one: each model restricted to its pair's roles, a family nobody declared unplaced. */
export function engineRoster(pinned: readonly PinnedModel[]): ModelSpec[] {
  return pinned.map((m) => ({
    name: m.name,
    model: m.model,
    endpoint: m.provider,
    family: m.family ?? `${UNPLACED}${m.name}`,
    tier: m.tier,
    roles: [...m.roles],
    ...(m.prices ? { prices: { ...m.prices } } : {}),
  }));
}
