import { OpenAIModelClient, type ModelClient, type ModelSpec } from '../../engine/index.js';
import { apiKeyFor, type LoadedProviderConfig } from './provider-config.js';

/**
 * The engine's roster from a provider configuration: every configured model, with its real
 * family (or `unknown:<id>` when the file does not say, which can never count as independent),
 * tier and prices.
 */
export function rosterFromConfig(providers: LoadedProviderConfig): ModelSpec[] {
  return Object.entries(providers.config.models).map(([id, entry]) => ({
    name: id,
    model: entry.model ?? id,
    endpoint: entry.provider,
    family: entry.family ?? `unknown:${id}`,
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

/** One OpenAI-compatible client per provider the roster uses, keyed by provider name. */
export function clientsFromConfig(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>> = process.env): Record<string, ModelClient> {
  const used = new Set(Object.values(providers.config.models).map((m) => m.provider));
  return Object.fromEntries(
    [...used].map((name) => [name, new OpenAIModelClient({ baseURL: providers.config.providers[name]!.base_url, apiKey: apiKeyFor(providers, name, env) })]),
  );
}
