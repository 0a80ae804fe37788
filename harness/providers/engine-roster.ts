import { createRateController, DEFAULT_PATIENCE_MS, OpenAIModelClient, ProviderPatience, SecretCatalogue, UNPLACED, type Clock, type ModelClient, type ModelSpec, type RateControl } from '../../engine/index.js';
import type { ConcurrencyBounds } from '../manifest/concurrency.js';
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
  /**
   * Bounds of the adaptive rate controllers (the manifest's or --concurrency's MIN-START-MAX):
   * one controller per (base URL, key), shared by every provider entry that resolves to it, so
   * two entries naming one gateway with one key share its limit. Default: none, calls go out
   * unpaced (a fixed --concurrency bounds the sessions instead).
   */
  bounds?: ConcurrencyBounds;
}

/** The clients of a command and the rate controllers behind them (none without bounds). */
export interface ProviderClients {
  clients: Record<string, ModelClient>;
  /** One per (base URL, key), in the order the providers first name them. */
  rateControls: RateControl[];
}

/**
 * One OpenAI-compatible client per provider the roster uses, keyed by provider name, each with
 * its provider's call deadline, patience (one object per provider, shared by every call to it),
 * server-wait rule and call header, and a redactor that knows every configured key (a server
 * may echo any of them).
 */
export function clientsFromConfig(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>> = process.env, options: ClientsOptions = {}): Record<string, ModelClient> {
  return providerClients(providers, env, options).clients;
}

/** {@link clientsFromConfig}, with the rate controllers it built from `options.bounds`. */
export function providerClients(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>> = process.env, options: ClientsOptions = {}): ProviderClients {
  const secrets = new SecretCatalogue(configuredKeys(providers, env));
  const controls = options.bounds ? controllersByKey(providers, env, options.bounds, options.clock) : new Map<string, RateControl>();
  const clients = Object.fromEntries(
    usedProviders(providers).map((name) => {
      const control = controls.get(name);
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
          ...(options.clock ? { clock: options.clock } : {}),
          ...(control ? { rateControl: control } : {}),
        }),
      ];
    }),
  );
  return { clients, rateControls: [...new Set(controls.values())] };
}

/**
 * One rate controller per (base URL, key VALUE), by provider name: providers limit per key, so
 * two entries that resolve to the same gateway and key share one. The key is only compared in
 * memory, never shown: a controller is named by its providers.
 */
function controllersByKey(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>>, bounds: ConcurrencyBounds, clock: Clock | undefined): Map<string, RateControl> {
  const groups = new Map<string, string[]>();
  for (const name of usedProviders(providers)) {
    const identity = `${providers.config.providers[name]!.base_url.replace(/\/+$/, '')}\n${apiKeyFor(providers, name, env)}`;
    groups.set(identity, [...(groups.get(identity) ?? []), name]);
  }
  const byName = new Map<string, RateControl>();
  for (const names of groups.values()) {
    const control = createRateController({ provider: names.join('+'), ...bounds, ...(clock ? { clock } : {}) });
    for (const name of names) byName.set(name, control);
  }
  return byName;
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
