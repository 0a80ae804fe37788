import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXIT,
  ProviderConfigInvalidError,
  apiKeyFor,
  checkProviderConfig,
  exitCodeFor,
  loadManifest,
  loadProviderConfig,
  priceOf,
  providerConfigPath,
  requireProviderConfig,
  runCli,
} from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from '../manifest/manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

const CONFIG = {
  version: 1,
  providers: {
    gateway: { base_url: 'https://gateway.example/v1', api_key_env: 'GATEWAY_API_KEY' },
    local: { base_url: 'http://localhost:8000/v1', api_key_env: 'LOCAL_LLM_KEY' },
  },
  models: {
    'executor-model': { provider: 'gateway', model: 'vendor-a/big', family: 'vendor-a', price_usd_per_million: { input: 3, output: 15 } },
    'reviewer-model': { provider: 'gateway', model: 'vendor-b/big', family: 'vendor-b' },
  },
};

let counter = 0;
const writeConfig = (config: unknown) => tmp.write(`providers-${counter++}.yaml`, yamlOf(config));
const writeManifest = (patch: Record<string, unknown> = {}) => tmp.write(`manifest-${counter++}.yaml`, yamlOf(patched(VALID_MANIFEST, patch)));
const withModels = (models: Record<string, unknown>) => ({ ...CONFIG, models: patched(CONFIG.models, models) });

/** Loads both files and runs the relation check; returns the problem lines, or [] when accepted. */
async function verdict(config: unknown, manifestPatch: Record<string, unknown> = {}): Promise<string[]> {
  try {
    const providers = await loadProviderConfig(await writeConfig(config));
    checkProviderConfig(await loadManifest(await writeManifest(manifestPatch)), providers);
    return [];
  } catch (error) {
    if (!(error instanceof ProviderConfigInvalidError)) throw error;
    return error.problems.map((line) => line.replaceAll(tmp.dir, '<tmp>').replace(/(providers|manifest)-\d+/g, '$1'));
  }
}

describe('provider configuration: the family relation', () => {
  it('accepts real families that keep the claim (two pairs, two families)', async () => {
    expect(await verdict(CONFIG)).toEqual([]);
  });

  it('refuses a cross_family claim when the real families are one, although the manifest names two', async () => {
    const lines = await verdict(withModels({ 'reviewer-model': { family: 'vendor-a' } }));
    expect(lines).toMatchInlineSnapshot(`
      [
        "<tmp>/providers.yaml:20: models.reviewer-model.family: executor and reviewer both run as family "vendor-a" (models.executor-model, models.reviewer-model), but <tmp>/manifest.yaml claims independence: cross_family; serve the reviewer from a model of another family, or claim same_family in the manifest",
      ]
    `);
  });

  it('treats a configuration without families as not saying, not as disagreeing', async () => {
    const config = withModels({ 'executor-model': { family: undefined }, 'reviewer-model': { family: undefined } });
    expect(await verdict(config)).toEqual([]);
    expect(await verdict(withModels({ 'reviewer-model': { family: undefined } }))).toEqual([]);
  });

  it('never compares names across the files: placeholder families may differ from real ones', async () => {
    // The manifest says family-a / family-b; the configuration says vendor-a / vendor-b. Only the relation matters.
    expect(await verdict(CONFIG, { executor: { family: 'anything' }, reviewer: { family: 'else' } })).toEqual([]);
  });

  it('refuses a same_family claim when the real families differ, and accepts one when they match', async () => {
    const sameFamily = { independence: 'same_family', reviewer: { family: 'family-a' } };
    expect(await verdict(CONFIG, sameFamily)).toMatchInlineSnapshot(`
      [
        "<tmp>/providers.yaml:20: models.reviewer-model.family: executor runs as family "vendor-a" and reviewer as "vendor-b", but <tmp>/manifest.yaml claims independence: same_family; claim cross_family in the manifest, or serve both pairs from one family",
      ]
    `);
    expect(await verdict(withModels({ 'reviewer-model': { family: 'vendor-a' } }), sameFamily)).toEqual([]);
  });

  it('refuses two placeholders aliased onto one real model', async () => {
    expect(await verdict(withModels({ 'reviewer-model': { model: 'vendor-a/big', family: undefined } }))).toMatchInlineSnapshot(`
      [
        "<tmp>/providers.yaml:17: models.reviewer-model: serves the same model as models.executor-model (gateway vendor-a/big); the reviewer would judge its own work, so point one of them at another model",
      ]
    `);
  });

  it('refuses a manifest model the configuration does not serve', async () => {
    expect(await verdict(withModels({ 'reviewer-model': undefined }))).toMatchInlineSnapshot(`
      [
        "<tmp>/providers.yaml:9: models: no entry for "reviewer-model" (reviewer.model in <tmp>/manifest.yaml); add models.reviewer-model with its provider, real model id and family",
      ]
    `);
  });

  it('judges a simulated pair by its declared family, beside a real one', async () => {
    const mixed = { executor: { provider: 'sim', model: 'sim-executor', family: 'vendor-b' } };
    expect(await verdict(CONFIG, mixed)).toMatchInlineSnapshot(`
      [
        "<tmp>/providers.yaml:20: models.reviewer-model.family: executor and reviewer both run as family "vendor-b" (sim sim-executor, models.reviewer-model), but <tmp>/manifest.yaml claims independence: cross_family; serve the reviewer from a model of another family, or claim same_family in the manifest",
      ]
    `);
  });

  it('is refused through the CLI with exit 2', async () => {
    const io = bufferIo();
    const code = await runCli(['plan', await writeManifest(), '--providers', await writeConfig(withModels({ 'reviewer-model': { family: 'vendor-a' } }))], io);
    expect(code).toBe(EXIT.usage);
    expect(io.stderr().split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('provider configuration: the file itself', () => {
  const BAD: Array<[string, unknown]> = [
    ['a literal key instead of a variable name', patched(CONFIG, { providers: { gateway: { api_key_env: 'sk-or-v1-0123456789abcdef0123456789abcdef' } } })],
    ['a long hex key', patched(CONFIG, { providers: { gateway: { api_key_env: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b' } } })],
    ['no variable name', patched(CONFIG, { providers: { gateway: { api_key_env: undefined } } })],
    ['a variable name with a space', patched(CONFIG, { providers: { gateway: { api_key_env: 'GATEWAY KEY' } } })],
    ['the key in a field of its own', patched(CONFIG, { providers: { gateway: { api_key: 'whatever' } } })],
    ['credentials in the URL', patched(CONFIG, { providers: { gateway: { base_url: 'https://user:secret@gateway.example/v1' } } })],
    ['a key in the URL query', patched(CONFIG, { providers: { gateway: { base_url: 'https://gateway.example/v1?api_key=abc' } } })],
    ['not a URL', patched(CONFIG, { providers: { gateway: { base_url: 'gateway.example' } } })],
    ['a key pasted as a model id', withModels({ 'executor-model': { model: 'sk-ant-api03-abcdef' } })],
    ['sim redefined', patched(CONFIG, { providers: { sim: { base_url: 'http://localhost/v1', api_key_env: 'X' } } })],
    ['a model served by no provider', withModels({ 'executor-model': { provider: 'gatewya' } })],
    ['a negative price', withModels({ 'executor-model': { price_usd_per_million: { input: -1, output: 15 } } })],
    ['a misspelt field', withModels({ 'executor-model': { familly: 'vendor-a' } })],
    ['version missing', patched(CONFIG, { version: undefined })],
  ];

  it(`refuses ${BAD.length} bad configurations, one line each, never echoing a key`, async () => {
    const results: string[] = [];
    for (const [name, config] of BAD) {
      const error = await loadProviderConfig(await writeConfig(config)).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(ProviderConfigInvalidError);
      expect(exitCodeFor(error)).toBe(EXIT.usage);
      const lines = (error as ProviderConfigInvalidError).problems;
      expect(lines, name).toHaveLength(1);
      expect(lines[0]).not.toMatch(/sk-|9f86d0|secret@|abcdef/);
      results.push(`${name}: ${lines[0]!.replace(/^.*providers-\d+\.yaml/, '<file>')}`);
    }
    expect(results).toMatchInlineSnapshot(`
      [
        "a literal key instead of a variable name: <file>:5: providers.gateway.api_key_env: looks like a literal API key (value not shown); never write a key in this file: export it as an environment variable and write the variable NAME here, e.g. api_key_env: OPENROUTER_API_KEY",
        "a long hex key: <file>:5: providers.gateway.api_key_env: looks like a literal API key (value not shown); never write a key in this file: export it as an environment variable and write the variable NAME here, e.g. api_key_env: OPENROUTER_API_KEY",
        "no variable name: <file>:3: providers.gateway.api_key_env: missing; add it, e.g. api_key_env: OPENROUTER_API_KEY",
        "a variable name with a space: <file>:5: providers.gateway.api_key_env: is not an environment variable name (letters, digits and "_", not starting with a digit, at most 128 characters; value not shown); write the NAME of the variable holding the key, never the key, e.g. api_key_env: OPENROUTER_API_KEY",
        "the key in a field of its own: <file>:6: providers.gateway.api_key: unknown field, and it looks like a credential; never write a key in a file: export it as an environment variable and name the variable in the provider configuration (api_key_env)",
        "credentials in the URL: <file>:4: providers.gateway.base_url: carries credentials; remove them from the URL, put the key in an environment variable and name it in api_key_env",
        "a key in the URL query: <file>:4: providers.gateway.base_url: carries credentials; remove them from the URL, put the key in an environment variable and name it in api_key_env",
        "not a URL: <file>:4: providers.gateway.base_url: must be an http:// or https:// URL; e.g. base_url: "https://api.example.com/v1"",
        "a key pasted as a model id: <file>:12: models.executor-model.model: looks like a literal API key (value not shown); keys belong in environment variables named by api_key_env",
        "sim redefined: <file>:9: providers.sim: sim is the built-in simulated provider and needs no configuration; remove this entry",
        "a model served by no provider: <file>:11: models.executor-model.provider: "gatewya" is not under providers; add providers.gatewya, or use one of: gateway, local",
        "a negative price: <file>:15: models.executor-model.price_usd_per_million.input: must be at least 0, got -1; e.g. input: 3",
        "a misspelt field: <file>:17: models.executor-model.familly: unknown field; did you mean "family"? Rename or remove it",
        "version missing: <file>:1: version: missing; add it, e.g. version: 1",
      ]
    `);
  });

  it('loads the shipped example, which serves the recursion-depth manifest', async () => {
    const providers = await loadProviderConfig('manifests/providers.example.yaml');
    expect(() => checkProviderConfig(loadedRecursionDepth, providers)).not.toThrow();
    expect(priceOf(loadedRecursionDepth.manifest.executor, providers.config)).toEqual({ input: 3, output: 15 });
  });

  let loadedRecursionDepth: Awaited<ReturnType<typeof loadManifest>>;
  beforeAll(async () => {
    loadedRecursionDepth = await loadManifest('manifests/recursion-depth.yaml');
  });
});

describe('provider configuration: where it is found, and the key', () => {
  it('prefers --providers, then RDH_PROVIDERS, then none', () => {
    expect(providerConfigPath('flag.yaml', { RDH_PROVIDERS: 'env.yaml' })).toBe('flag.yaml');
    expect(providerConfigPath(undefined, { RDH_PROVIDERS: 'env.yaml' })).toBe('env.yaml');
    expect(providerConfigPath(undefined, { RDH_PROVIDERS: '' })).toBeUndefined();
    expect(providerConfigPath(undefined, {})).toBeUndefined();
  });

  it('is needed only when a pair is not simulated, and then names the fix', async () => {
    const smoke = await loadManifest('manifests/smoke.yaml');
    expect(requireProviderConfig(smoke, undefined)).toBeUndefined();
    const real = await loadManifest('manifests/recursion-depth.yaml');
    expect(requireProviderConfig(real, 'p.yaml')).toBe('p.yaml');
    expect(() => requireProviderConfig(real, undefined)).toThrowErrorMatchingInlineSnapshot(`[ProviderConfigInvalidError: manifests/recursion-depth.yaml: executor.provider is openai-compatible, which needs a provider configuration saying where "executor-model" is served; pass --providers FILE or set RDH_PROVIDERS (copy manifests/providers.example.yaml to start)]`);
  });

  it('reads the key from the named variable, and names the variable (never a value) when it is unset', async () => {
    const providers = await loadProviderConfig(await writeConfig(CONFIG));
    expect(apiKeyFor(providers, 'gateway', { GATEWAY_API_KEY: 'k-123' })).toBe('k-123');
    const error = (() => {
      try {
        apiKeyFor(providers, 'gateway', {});
      } catch (e) {
        return e as ProviderConfigInvalidError;
      }
    })();
    expect(error?.code).toBe('provider_config_invalid');
    expect(error?.message.replace(/^.*providers-\d+\.yaml/, '<file>')).toMatchInlineSnapshot(`"<file>:5: providers.gateway.api_key_env: environment variable GATEWAY_API_KEY is not set; export it (export GATEWAY_API_KEY=...) before running, or name another variable here"`);
  });

  it('prices a simulated pair at zero and an unpriced model as unknown', async () => {
    const providers = await loadProviderConfig(await writeConfig(CONFIG));
    expect(priceOf({ provider: 'sim', model: 'x', rung: 1 }, undefined)).toEqual({ input: 0, output: 0 });
    expect(priceOf({ provider: 'openai-compatible', model: 'reviewer-model', rung: 1 }, providers.config)).toBeUndefined();
    expect(priceOf({ provider: 'openai-compatible', model: 'executor-model', rung: 1 }, undefined)).toBeUndefined();
  });
});
