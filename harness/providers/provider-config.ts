import path from 'node:path';
import { z } from 'zod';
import { DockerHostSpec, Role, Tier } from '../../engine/index.js';
import { problemLine, readDataFile, shownPath } from '../internal/data-file.js';
import type { LoadedManifest } from '../manifest/manifest-loader.js';
import { looksLikeSecret } from '../internal/secret-shape.js';
import type { YamlSource } from '../internal/yaml-document.js';
import { Family, familyName, type ModelPair } from '../manifest/manifest.js';
import { TEXT_LIMITS, tooLong } from '../internal/text-limits.js';
import type { Price } from '../plan/plan-arithmetic.js';
import { ProblemListError } from '../internal/problem-list-error.js';

/**
 * Where the manifest's models are served. Kept apart from the manifest because it is a fact
 * about one lab's accounts, not about the experiment: the same manifest (with placeholder
 * model ids) is recorded against different providers by swapping this file. It never holds a
 * key, only the NAME of the environment variable that does.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const ProviderEndpoint = z
  .object({
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(TEXT_LIMITS.url, tooLong(TEXT_LIMITS.url))
      .superRefine((url, ctx) => {
        // Runs even after the URL check failed (zod continues past format issues), so parse defensively.
        const parsed = URL.canParse(url) ? new URL(url) : undefined;
        // A URL that is not http(s) is already refused, in one line; credentials would be a second.
        if (!parsed || !/^https?:$/.test(parsed.protocol)) return;
        if (parsed.username || parsed.password || [...parsed.searchParams.keys()].some((k) => /key|token|secret/i.test(k))) {
          ctx.addIssue({ code: 'custom', message: 'carries credentials; remove them from the URL, put the key in an environment variable and name it in api_key_env' });
        }
      })
      .describe(`Base URL of an OpenAI-compatible API (hosted provider, gateway, or a local vLLM / llama.cpp / Ollama server), up to and including /v1: http:// or https://, with no credentials in it. At most ${TEXT_LIMITS.url} characters. No default.`)
      .meta({ examples: ['https://api.example.com/v1'] }),
    api_key_env: z
      .string()
      .superRefine((name, ctx) => {
        // Never any part of the value: a key the heuristic misses must not be printed either.
        if (looksLikeSecret(name)) {
          ctx.addIssue({ code: 'custom', message: 'looks like a literal API key (value not shown); never write a key in this file: export it as an environment variable and write the variable NAME here, e.g. api_key_env: OPENROUTER_API_KEY' });
        } else if (name.length > TEXT_LIMITS.envName || !ENV_NAME.test(name)) {
          ctx.addIssue({
            code: 'custom',
            message: `is not an environment variable name (letters, digits and "_", not starting with a digit, at most ${TEXT_LIMITS.envName} characters; value not shown); write the NAME of the variable holding the key, never the key, e.g. api_key_env: OPENROUTER_API_KEY`,
          });
        }
      })
      .meta({ pattern: ENV_NAME.source, examples: ['OPENROUTER_API_KEY'] })
      .describe('NAME of the environment variable holding the API key, never the key itself, so this file can be shared and committed. For a local server that checks no key, name any variable and set it to any value. No default.'),
    call_deadline_s: z
      .number()
      .positive()
      .optional()
      .describe('Seconds one attempt of a call may take, from sending the request to the last byte of the reply; a server that stalls mid-reply is cut off here. Default 120.')
      .meta({ examples: [120] }),
    max_server_wait_s: z
      .number()
      .nonnegative()
      .optional()
      .describe('`harness solve` only (its roster may fall back to another model): the longest Retry-After the server may ask for that is slept through inside a call; a longer one cools the model down and falls back to another. A sweep (`harness record`) ignores it: there a wait is slept through when it fits in what is left of patience_s. Default 60.')
      .meta({ examples: [60] }),
    patience_s: z
      .number()
      .positive()
      .optional()
      .describe('Seconds this provider may keep failing (refused or dropped connections, passed deadlines, 5xx, 429) before a call to it gives up as unavailable or rate limited, counted from the first failure of the current outage and SHARED by every call to the provider: a call made ten minutes into an outage gets no fresh patience. An answer ends the outage. Retries in between back off from 0.5 s, doubling, to 30 s. Default 600.')
      .meta({ examples: [600] }),
    rate_limit: z
      .object({
        rpm: z.int().positive().optional().describe('Requests per minute the account may send this provider. Default: not declared.').meta({ examples: [500] }),
        tpm: z.int().positive().optional().describe('Tokens (prompt + completion) per minute. Default: not declared.').meta({ examples: [200000] }),
      })
      .strict()
      .optional()
      .describe('The rate limit the provider states for this key, as its dashboard shows it. `harness plan` forecasts wall time from it; the adaptive controller never trusts it over what the provider answers. Default: not declared (the forecast then uses measured figures, or says it cannot forecast).')
      .meta({ examples: [{ rpm: 500, tpm: 200000 }] }),
    latency_s: z
      .number()
      .positive()
      .optional()
      .describe('Typical seconds from sending a call to its whole reply, for the wall-time forecast of `harness plan` (`harness models` measures it). Default: not declared (measured figures from `plan --from`, else none).')
      .meta({ examples: [20] }),
    cache_breakpoints: z
      .boolean()
      .optional()
      .describe('Mark the end of what every request repeats (system prompt, spec, layout contract) with cache_control breakpoints, for models whose provider caches prompts only where told to (Anthropic models, directly or through a gateway). Providers that cache on their own (OpenAI and most OpenAI-compatible servers) need none. Default false.')
      .meta({ examples: [true] }),
    session_header: z
      .boolean()
      .optional()
      .describe('Send the x-rdh-call header (the cell, arm, node, role and attempt of each call) that the simulated provider served over HTTP reads. It tells a system under test the experiment\'s design, so keep it off for any endpoint that is not a test double. Default: true when base_url is loopback (localhost, 127.0.0.0/8, ::1), false otherwise.')
      .meta({ examples: [true] }),
  })
  .strict();
export type ProviderEndpoint = z.infer<typeof ProviderEndpoint>;

const Usd = (what: string) => z.number().nonnegative().describe(`US dollars per million ${what} tokens. 0 for a free or flat-rate server. No default.`);

export const ModelEntry = z
  .object({
    provider: z.string().min(1).max(TEXT_LIMITS.id, tooLong(TEXT_LIMITS.id)).describe('Which entry under `providers` serves this model. No default.').meta({ examples: ['gateway'] }),
    model: z
      .string()
      .min(1)
      .max(TEXT_LIMITS.id, tooLong(TEXT_LIMITS.id))
      .optional()
      .describe(`The real model id sent to the endpoint, at most ${TEXT_LIMITS.id} characters. Default: the key this entry is listed under (for manifests that name real ids).`)
      .meta({ examples: ['vendor-a/model-name'] }),
    family: Family(
      "The real model's family (the organisation that trained it). Compared with the manifest's independence claim by relation: under cross_family the two pairs' families must differ. Absent means not saying, never a disagreement. No default.",
      'vendor-a',
    ).optional(),
    tier: Tier.optional()
      .describe('Capability tier for `harness solve` role choice: planners prefer large, workers and verifiers medium, the drift judge small. Default medium.')
      .meta({ examples: ['medium'] }),
    roles: z
      .array(Role)
      .optional()
      .describe('Engine roles this model may serve (planner, worker, checker, verifier, drift_judge, merger, reviewer). Default: any, by tier.')
      .meta({ examples: [['verifier', 'reviewer']] }),
    price_usd_per_million: z
      .object({
        input: Usd('input').meta({ examples: [3] }),
        output: Usd('output').meta({ examples: [15] }),
        cached_input: Usd('cached input')
          .optional()
          .describe('US dollars per million cached input tokens. Default: the input price (the plan never assumes caching works until a probe shows it does).')
          .meta({ examples: [0.3] }),
      })
      .strict()
      .optional()
      .describe('Prices, for the priced estimate in `harness plan`. Default: unknown (no priced estimate; the token bound still holds).')
      .meta({ examples: [{ input: 3, output: 15, cached_input: 0.3 }] }),
  })
  .strict();
export type ModelEntry = z.infer<typeof ModelEntry>;

/** A provider configuration file (see manifests/providers.example.yaml). */
export const ProviderConfig = z
  .object({
    version: z.literal(1).describe('Format version. Always 1. No default.').meta({ examples: [1] }),
    providers: z
      .record(z.string().max(TEXT_LIMITS.id, tooLong(TEXT_LIMITS.id)).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'uses characters other than letters, digits, ".", "_" and "-"'), ProviderEndpoint)
      .describe('OpenAI-compatible endpoints by a name of your choosing. `sim` is built in and may not be redefined. No default.')
      .meta({ examples: [{ gateway: { base_url: 'https://api.example.com/v1', api_key_env: 'OPENROUTER_API_KEY' } }] }),
    models: z
      .record(z.string().min(1).max(TEXT_LIMITS.id, tooLong(TEXT_LIMITS.id)), ModelEntry)
      .describe("Models by the id a manifest uses (placeholder or real): who serves each, the real id, its family and prices. No default.")
      .meta({ examples: [{ 'executor-model': { provider: 'gateway', model: 'vendor-a/model-name', family: 'vendor-a' } }] }),
    docker_hosts: z
      .array(DockerHostSpec)
      .min(1)
      .optional()
      .describe('Docker daemons to spread sandboxes over, each with a url and a capacity; `--docker-host` flags replace this list. Default: the one daemon DOCKER_HOST names.')
      .meta({ examples: [[{ url: 'unix:///var/run/docker.sock', capacity: 4 }, { url: 'tcp://10.0.0.7:2376', capacity: 8, tls: { ca: 'certs/ca.pem', cert: 'certs/cert.pem', key: 'certs/key.pem' } }]] }),
  })
  .strict()
  .superRefine((config, ctx) => {
    if ('sim' in config.providers) ctx.addIssue({ code: 'custom', path: ['providers', 'sim'], message: 'sim is the built-in simulated provider and needs no configuration; remove this entry' });
    const names = Object.keys(config.providers);
    for (const [id, entry] of Object.entries(config.models)) {
      if (!names.includes(entry.provider)) {
        ctx.addIssue({ code: 'custom', path: ['models', id, 'provider'], message: `"${entry.provider}" is not under providers; add providers.${entry.provider}, or use one of: ${names.join(', ') || '(none defined)'}` });
      }
      if (entry.model !== undefined && looksLikeSecret(entry.model)) {
        ctx.addIssue({ code: 'custom', path: ['models', id, 'model'], message: 'looks like a literal API key (value not shown); keys belong in environment variables named by api_key_env' });
      }
    }
  })
  .meta({ title: 'recursion-depth harness provider configuration', description: 'Where the models a manifest names are served, their real families and prices. Holds environment variable names, never keys.' });
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** The provider configuration is unusable, or disagrees with the manifest. One line per problem. */
export class ProviderConfigInvalidError extends ProblemListError {
  readonly code = 'provider_config_invalid';
}

export interface LoadedProviderConfig {
  readonly config: ProviderConfig;
  readonly file: string;
  readonly shownAs: string;
  readonly source: YamlSource;
}

const STARTER = 'copy manifests/providers.example.yaml to start';

/** The environment variable that names a provider configuration when no flag does. */
export const PROVIDERS_ENV = 'RDH_PROVIDERS';

export interface ProviderConfigLocation {
  file: string;
  /** What named the file: the flag, or the environment variable (messages about the path then name it). */
  via: '--providers' | typeof PROVIDERS_ENV;
}

export async function loadProviderConfig(file: string, options: { via?: ProviderConfigLocation['via'] } = {}): Promise<LoadedProviderConfig> {
  const origin = options.via === PROVIDERS_ENV ? PROVIDERS_ENV : undefined;
  const result = await readDataFile(path.resolve(file), { shownAs: file, schema: ProviderConfig, what: 'provider configuration', starter: STARTER, ...(origin ? { origin } : {}) });
  if (!result.ok) throw new ProviderConfigInvalidError(result.lines);
  return { config: result.value, file: path.resolve(file), shownAs: shownPath(file), source: result.source };
}

/** Where the provider configuration is: the `--providers` flag, else `RDH_PROVIDERS`, else none. */
export function locateProviderConfig(flag: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): ProviderConfigLocation | undefined {
  if (flag) return { file: flag, via: '--providers' };
  const fromEnv = env[PROVIDERS_ENV];
  return fromEnv ? { file: fromEnv, via: PROVIDERS_ENV } : undefined;
}

/** The path alone, for callers that do not report where it came from. */
export function providerConfigPath(flag: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return locateProviderConfig(flag, env)?.file;
}

const ROLES = ['executor', 'reviewer'] as const;

/**
 * For commands that call models: refuses a manifest naming a non-simulated model when no
 * configuration was given. Commands that only read (plan) do without one.
 */
export function requireProviderConfig(loaded: LoadedManifest, configPath: string | undefined): string | undefined {
  if (configPath) return configPath;
  const role = ROLES.find((r) => loaded.manifest[r].provider !== 'sim');
  if (!role) return undefined;
  throw new ProviderConfigInvalidError([
    `${loaded.shownAs}: ${role}.provider is ${loaded.manifest[role].provider}, which needs a provider configuration saying where "${loaded.manifest[role].model}" is served; pass --providers FILE or set RDH_PROVIDERS (${STARTER})`,
  ]);
}

/** The real family a pair runs as: the manifest's own for `sim`, the configuration's otherwise. */
function realFamily(pair: ModelPair, config: ProviderConfig): { family: string | undefined; where: string } {
  const family = pair.provider === 'sim' ? pair.family : config.models[pair.model]?.family;
  // Parsing already normalised both; normalising again keeps the check right for objects built in code.
  return { family: family === undefined ? undefined : familyName(family), where: pair.provider === 'sim' ? `sim ${pair.model}` : `models.${pair.model}` };
}

/**
 * Checks the configuration against the manifest: every non-simulated pair is served, the two
 * pairs are not one real model, and the configuration's real families keep the manifest's
 * independence claim. Compared by RELATION, never by name: a placeholder family in the
 * manifest cannot equal a real vendor's name, but the claim that the two pairs differ must
 * survive the aliasing. A family the configuration leaves out is not saying, not disagreeing.
 */
export function checkProviderConfig(loaded: LoadedManifest, providers: LoadedProviderConfig): void {
  const { manifest } = loaded;
  const { config, shownAs, source } = providers;
  const lines: string[] = [];
  const at = (where: PropertyKey[], text: string) => lines.push(problemLine(shownAs, source, where, text));
  for (const role of ROLES) {
    const pair = manifest[role];
    if (pair.provider !== 'sim' && !config.models[pair.model]) {
      at(['models'], `no entry for "${pair.model}" (${role}.model in ${loaded.shownAs}); add models.${pair.model} with its provider, real model id and family`);
    }
  }
  if (lines.length > 0) throw new ProviderConfigInvalidError(lines);

  const served = (pair: ModelPair) => (pair.provider === 'sim' ? `sim ${pair.model}` : `${config.models[pair.model]!.provider} ${config.models[pair.model]!.model ?? pair.model}`);
  const { executor, reviewer } = manifest;
  if (executor.model !== reviewer.model && served(executor) === served(reviewer)) {
    at(['models', reviewer.model], `serves the same model as models.${executor.model} (${served(reviewer)}); the reviewer would judge its own work, so point one of them at another model`);
  }
  const ex = realFamily(executor, config);
  const rv = realFamily(reviewer, config);
  const familyPath = (pair: ModelPair) => ['models', pair.model, 'family'];
  // Point at the side the configuration owns; a simulated pair's family lives in the manifest.
  const pointAt = reviewer.provider !== 'sim' ? familyPath(reviewer) : familyPath(executor);
  if (ex.family !== undefined && rv.family !== undefined) {
    if (manifest.independence === 'cross_family' && ex.family === rv.family) {
      at(pointAt, `executor and reviewer both run as family "${rv.family}" (${ex.where}, ${rv.where}), but ${loaded.shownAs} claims independence: cross_family; serve the reviewer from a model of another family, or claim same_family in the manifest`);
    }
    if (manifest.independence === 'same_family' && ex.family !== rv.family) {
      at(pointAt, `executor runs as family "${ex.family}" and reviewer as "${rv.family}", but ${loaded.shownAs} claims independence: same_family; claim cross_family in the manifest, or serve both pairs from one family`);
    }
  }
  if (lines.length > 0) throw new ProviderConfigInvalidError(lines);
}

/** A pair's price, when known: free for `sim`, the configuration's otherwise. */
export function priceOf(pair: ModelPair, config: ProviderConfig | undefined): Price | undefined {
  if (pair.provider === 'sim') return { input: 0, output: 0 };
  const price = config?.models[pair.model]?.price_usd_per_million;
  return price ? { input: price.input, output: price.output } : undefined;
}

/**
 * The API key for a provider, read from the environment variable the configuration names.
 * Fails with the variable's name (never a value) and how to set it.
 */
export function apiKeyFor(providers: LoadedProviderConfig, provider: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const endpoint = providers.config.providers[provider];
  if (!endpoint) throw new ProviderConfigInvalidError([`${providers.shownAs}: no provider "${provider}" under providers; add it`]);
  const key = env[endpoint.api_key_env];
  if (!key) {
    throw new ProviderConfigInvalidError([
      problemLine(providers.shownAs, providers.source, ['providers', provider, 'api_key_env'], `environment variable ${endpoint.api_key_env} is not set; export it (export ${endpoint.api_key_env}=...) before running, or name another variable here`),
    ]);
  }
  return key;
}

