import { z } from 'zod';
import type { Manifest, ModelPair } from '../manifest/manifest.js';
import type { ProviderConfig } from '../providers/provider-config.js';
import type { ModelPairName } from '../providers/role-pairs.js';
import { ASSUMED_CALLS_PER_SESSION, type PairLoad, type ProviderKey } from './wall-time.js';

/**
 * The inputs of the wall-time forecast (wall-time.ts): what each pair's sessions ask of its
 * provider, from the provider entries' declared limits and the plan's assumptions (`plan`), or
 * from a recorded run's measured figures (`plan --from`). Pure.
 */

const Count = z.number().nonnegative();

/** What one pair's recorded sessions did (harness/plan/run-call-figures.ts reads it from a run). */
export const PairCalls = z.object({
  sessions: Count,
  /** Model calls (turns), over all the sessions. */
  calls: Count,
  /** Prompt + completion tokens, over all the sessions. */
  tokens: Count,
  /** Seconds from each session's start to its finish, summed. */
  sessionSeconds: Count,
  /** Calls whose transcript line carries a latency, and their seconds summed. */
  latency: z.object({ calls: Count, seconds: Count }),
});
export type PairCalls = z.infer<typeof PairCalls>;
export const RunCallFigures = z.object({ executor: PairCalls, reviewer: PairCalls });
export type RunCallFigures = z.infer<typeof RunCallFigures>;

const PAIRS: readonly ModelPairName[] = ['executor', 'reviewer'];

/** The provider key serving a pair, with its declared limits and latency. */
function keyOf(pair: ModelPair, config: ProviderConfig | undefined): { key: ProviderKey; latencyS?: number } {
  if (pair.provider === 'sim') return { key: { id: 'sim', name: 'sim (in process)' } };
  const entry = config?.models[pair.model];
  const endpoint = entry ? config?.providers[entry.provider] : undefined;
  if (!entry || !endpoint) return { key: { id: `unconfigured/${pair.model}`, name: `models.${pair.model} (no provider configuration)` } };
  const { rpm, tpm } = endpoint.rate_limit ?? {};
  return {
    key: { id: `${endpoint.base_url}\n${endpoint.api_key_env}`, name: entry.provider, ...(rpm ? { rpm } : {}), ...(tpm ? { tpm } : {}) },
    ...(endpoint.latency_s ? { latencyS: endpoint.latency_s } : {}),
  };
}

/** Two entries with one base URL and key variable are one key: its names joined, the tighter limits kept. */
function mergeKeys(keys: ProviderKey[]): ProviderKey[] {
  return keys.map((key) => {
    const same = keys.filter((k) => k.id === key.id);
    const min = (f: 'rpm' | 'tpm') => {
      const values = same.flatMap((k) => (k[f] ? [k[f]] : []));
      return values.length ? { [f]: Math.min(...values) } : {};
    };
    return { id: key.id, name: [...new Set(same.map((k) => k.name))].join(' + '), ...min('rpm'), ...min('tpm') };
  });
}

/** The plan's loads: the projection's sessions per pair, the declared limits and latency, the assumed calls and tokens. */
export function declaredLoads(manifest: Manifest, config: ProviderConfig | undefined, sessionsByPair: Record<ModelPairName, number>): PairLoad[] {
  const served = PAIRS.map((pair) => keyOf(manifest[pair], config));
  const keys = mergeKeys(served.map((s) => s.key));
  return PAIRS.map((pair, i) => ({
    pair,
    sessions: sessionsByPair[pair],
    callsPerSession: { value: ASSUMED_CALLS_PER_SESSION, source: 'assumed' },
    tokensPerCall: { value: manifest.unit.token_ceiling / ASSUMED_CALLS_PER_SESSION, source: 'assumed' },
    ...(served[i]!.latencyS ? { latencyS: { value: served[i]!.latencyS!, source: 'declared' } } : {}),
    provider: keys[i]!,
  }));
}

/**
 * `plan --from`: `sessions` still to record, split between the pairs as the run's sessions were,
 * each pair at its measured calls per session, tokens per call, latency and session time (a pair
 * the run never called keeps the declared figures). The limits are always the declared ones.
 */
export function measuredLoads(manifest: Manifest, config: ProviderConfig | undefined, sessions: number, run: RunCallFigures): PairLoad[] {
  const recorded = run.executor.sessions + run.reviewer.sessions;
  const declared = declaredLoads(manifest, config, { executor: 0, reviewer: 0 });
  return declared.map((load) => {
    const m = run[load.pair];
    if (m.sessions === 0 || m.calls === 0) return { ...load, sessions: recorded === 0 ? 0 : (sessions * m.sessions) / recorded };
    return {
      ...load,
      sessions: (sessions * m.sessions) / recorded,
      callsPerSession: { value: m.calls / m.sessions, source: 'measured' },
      tokensPerCall: { value: m.tokens / m.calls, source: 'measured' },
      ...(m.latency.calls > 0 ? { latencyS: { value: m.latency.seconds / m.latency.calls, source: 'measured' } } : {}),
      sessionS: { value: m.sessionSeconds / m.sessions, source: 'measured' },
    };
  });
}
