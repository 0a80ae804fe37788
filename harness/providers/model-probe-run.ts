import OpenAI from 'openai';
import { isLoopbackUrl, SecretCatalogue } from '../../engine/index.js';
import { apiKeyFor, ProviderConfigInvalidError, type LoadedProviderConfig } from './provider-config.js';
import { failureText, httpReason, probeModel } from './model-probe-calls.js';
import { modelsExit, type ModelProbe, type ModelsReport, type ProbeResult, type ProviderProbe } from './model-probe-record.js';
import { familyDisagreement } from './model-probe-vendors.js';

/**
 * `harness models`: for each provider of a configuration, lists GET /models, checks every
 * configured id is listed, and probes each listed one (model-probe-calls.ts). Providers are
 * probed side by side, the models of one provider one after another. Writes nothing.
 */

/** Deadline of each probe call when the entry sets no call_deadline_s: a probe should answer in far less than a session's 120 s. */
export const DEFAULT_PROBE_DEADLINE_MS = 30_000;
/** Ids read from GET /models at most; a list longer than this is cut, and an id past it reads as not listed. */
export const MAX_LISTED_IDS = 20_000;

export interface ProbeOptions {
  /** Where the keys are read from. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Waits before the one retry of a 429. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** Every provider's key, read up front: one missing variable refuses the command before any call (exit 2). */
function keysOf(providers: LoadedProviderConfig, env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const keys = new Map<string, string>();
  const lines: string[] = [];
  for (const name of Object.keys(providers.config.providers)) {
    try {
      keys.set(name, apiKeyFor(providers, name, env));
    } catch (error) {
      if (!(error instanceof ProviderConfigInvalidError)) throw error;
      lines.push(...error.problems);
    }
  }
  if (lines.length > 0) throw new ProviderConfigInvalidError(lines);
  return keys;
}

type Listed = { ok: true; ids: Set<string> } | { ok: false; reachable: boolean; status: number | null; reason: string };

async function listIds(client: OpenAI, deadlineMs: number, secrets: SecretCatalogue): Promise<Listed> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  try {
    const ids = new Set<string>();
    for await (const model of client.models.list({ signal: controller.signal, timeout: deadlineMs })) {
      if (typeof model?.id === 'string') ids.add(model.id);
      if (ids.size >= MAX_LISTED_IDS) break;
    }
    return { ok: true, ids };
  } catch (thrown) {
    const redact = (text: string) => secrets.redact(text).replace(/\s+/g, ' ').slice(0, 200);
    if (controller.signal.aborted) return { ok: false, reachable: false, status: null, reason: `no answer within the ${deadlineMs} ms deadline` };
    if (thrown instanceof OpenAI.APIError && thrown.status !== undefined) return { ok: false, reachable: true, status: thrown.status, reason: redact(httpReason(thrown.status, thrown.message)) };
    return { ok: false, reachable: false, status: null, reason: redact(failureText(thrown)) };
  } finally {
    clearTimeout(timer);
  }
}

const skipped = (reason: string): ProbeResult => ({ status: 'skipped', reason });

async function probeProvider(providers: LoadedProviderConfig, name: string, key: string, secrets: SecretCatalogue, options: ProbeOptions): Promise<ProviderProbe> {
  const endpoint = providers.config.providers[name]!;
  const deadlineMs = endpoint.call_deadline_s === undefined ? DEFAULT_PROBE_DEADLINE_MS : endpoint.call_deadline_s * 1000;
  // The SDK's own retries are off: a probe reports what the provider did (model-probe-calls.ts retries one 429).
  const client = new OpenAI({ baseURL: endpoint.base_url, apiKey: key, maxRetries: 0 });
  const listed = await listIds(client, deadlineMs, secrets);
  const entries = Object.entries(providers.config.models).filter(([, entry]) => entry.provider === name);
  const models: ModelProbe[] = [];
  for (const [modelKey, entry] of entries) {
    const id = entry.model ?? modelKey;
    const family = entry.family ?? null;
    const base = { key: modelKey, id, family, family_flag: familyDisagreement(id, entry.family) ?? null };
    const isListed = listed.ok ? listed.ids.has(id) : null;
    if (!listed.ok && !listed.reachable) continue;
    if (isListed === false) {
      const why = skipped(`not listed by GET /models`);
      models.push({ ...base, listed: false, latency_ms: null, answer: why, tools: why, json: why, caching: why, cache: null, rate_limit_headers: {} });
      continue;
    }
    const found = await probeModel({
      client,
      id,
      deadlineMs,
      // Only to test doubles, by the rule the engine's session_header follows (default: loopback base URLs alone).
      callHeader: endpoint.session_header ?? isLoopbackUrl(endpoint.base_url),
      cacheBreakpoints: endpoint.cache_breakpoints ?? false,
      secrets,
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
    models.push({ ...base, listed: isListed, latency_ms: found.latencyMs, answer: found.answer, tools: found.tools, json: found.json, caching: found.caching, cache: found.cache, rate_limit_headers: found.rateLimitHeaders });
  }
  return {
    name,
    base_url: endpoint.base_url,
    list: listed.ok ? { status: 'yes', detail: `${listed.ids.size} id(s)` } : { status: 'error', reason: listed.reason },
    list_http_status: listed.ok ? 200 : listed.status,
    listed_count: listed.ok ? listed.ids.size : null,
    reachable: listed.ok || listed.reachable,
    unprobed: !listed.ok && !listed.reachable ? entries.length : 0,
    models,
  };
}

/** Probes every provider of the configuration. Throws ProviderConfigInvalidError (exit 2) before any call when a key variable is unset. */
export async function probeProviders(providers: LoadedProviderConfig, options: ProbeOptions = {}): Promise<ModelsReport> {
  const keys = keysOf(providers, options.env ?? process.env);
  const secrets = new SecretCatalogue([...keys.values()]);
  const probed = await Promise.all([...keys].map(([name, key]) => probeProvider(providers, name, key, secrets, options)));
  return { version: 1, providers: probed, exit: modelsExit(probed) };
}
