import { DEFAULT_PATIENCE_MS, OpenAIModelClient, ProviderPatience, SecretCatalogue, UNPLACED, type Clock, type ModelClient, type ModelSpec } from '../../engine/index.js';
import { apiKeyFor, type LoadedProviderConfig } from './provider-config.js';
import { EXECUTOR_ROLES, JUDGE_ROLES } from './role-pairs.js';

/**
 * The engine's roster from a provider configuration: every configured model, with its real
 * family (or `unplaced:<id>` when the file does not say, which can never count as
 * independent), tier and prices.
 */
export function rosterFromConfig(providers: LoadedProviderConfig): ModelSpec[] {
  return Object.entries(providers.config.models).map(([id, entry]) => ({
    name: id,
    model: entry.model ?? id,
    endpoint: entry.provider,
    family: entry.family ?? `${UNPLACED}${id}`,
    tier: entry.tier ?? 'medium',
    ...(entry.roles ? { roles: entry.roles } : {}),
    ...(entry.price_usd_per_million
      ? {
          prices: {
            input: entry.price_usd_per_million.input,
            output: entry.price_usd_per_million.output,
            cachedInput: entry.price_usd_per_million.cached_input ?? entry.price_usd_per_million.input,
          },
        }
      : {}),
  }));
}

/** The providers the roster uses, by name. */
function usedProviders(providers: LoadedProviderConfig): string[] {
  return [...new Set(Object.values(providers.config.models).map((m) => m.provider))];
}

/** The keys the configuration names, as set in the environment: what every redaction must know. */
export function configuredKeys(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return usedProviders(providers).map((name) => apiKeyFor(providers, name, env));
}

/** How the clients of a command treat server-requested waits. */
export interface ClientsOptions {
  /**
   * `patience` (a sweep, whose models are fixed): a Retry-After is slept through when it fits in
   * what is left of the provider's patience_s. `max_server_wait` (`harness solve`, whose router
   * may fall back): one longer than the provider's max_server_wait_s ends the call at once.
   * Default `patience`.
   */
  serverWaits?: 'patience' | 'max_server_wait';
  /** Sleeps between attempts and times each provider's patience. Default: the system clock. */
  clock?: Clock;
}

/**
 * One OpenAI-compatible client per provider the roster uses, keyed by provider name, each with
 * its provider's call deadline, patience (one object per provider, shared by every call to it),
 * server-wait rule and call header, and a redactor that knows every configured key (a server
 * may echo any of them).
 */
export function clientsFromConfig(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>> = process.env, options: ClientsOptions = {}): Record<string, ModelClient> {
  const secrets = new SecretCatalogue(configuredKeys(providers, env));
  return Object.fromEntries(
    usedProviders(providers).map((name) => {
      const endpoint = providers.config.providers[name]!;
      const serverWaits = options.serverWaits === 'max_server_wait' ? { maxMs: (endpoint.max_server_wait_s ?? DEFAULT_MAX_SERVER_WAIT_S) * 1000 } : 'patience';
      return [
        name,
        new OpenAIModelClient({
          baseURL: endpoint.base_url,
          apiKey: apiKeyFor(providers, name, env),
          provider: name,
          secrets,
          patience: new ProviderPatience(endpoint.patience_s !== undefined ? endpoint.patience_s * 1000 : DEFAULT_PATIENCE_MS),
          serverWaits,
          ...(endpoint.session_header !== undefined ? { sessionHeader: endpoint.session_header } : {}),
          ...(endpoint.call_deadline_s !== undefined ? { callDeadlineMs: endpoint.call_deadline_s * 1000 } : {}),
          ...(endpoint.cache_breakpoints ? { cacheBreakpoints: true } : {}),
          ...(options.clock ? { clock: options.clock } : {}),
        }),
      ];
    }),
  );
}

/** max_server_wait_s when the provider file does not say. */
const DEFAULT_MAX_SERVER_WAIT_S = 60;

/** A pair as the simulated population answers it: the manifest's id and declared family. */
export interface SimPairName {
  model: string;
  family: string;
}

/** The endpoint name the simulated population serves under. */
export const SIM_ENDPOINT = 'sim';

/**
 * The roster of the built-in SIMULATED population: the executor plans, builds, checks and merges
 * (and so may self-review its merges); the reviewer verifies leaves and judges gated merges.
 * Each answers as its own model id, tagged SIMULATED, with its declared family, so independence
 * is judged on who answered exactly as with real models. Priced at $0.
 */
export function simRoster(executor: SimPairName, reviewer: SimPairName, tag: string): ModelSpec[] {
  const free = { input: 0, output: 0, cachedInput: 0 };
  return [
    { name: executor.model, model: `${executor.model} ${tag}`, endpoint: SIM_ENDPOINT, family: executor.family, tier: 'medium', roles: [...EXECUTOR_ROLES], prices: free },
    { name: reviewer.model, model: `${reviewer.model} ${tag}`, endpoint: SIM_ENDPOINT, family: reviewer.family, tier: 'medium', roles: [...JUDGE_ROLES], prices: free },
  ];
}
