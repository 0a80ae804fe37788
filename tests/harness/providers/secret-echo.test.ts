import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadProviderConfig, runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from '../manifest/manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

/** Deterministic "random" characters, so the keys are realistic without being real. */
function randomChars(n: number, alphabet: string, seed: number): string {
  let state = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[state % alphabet.length];
  }
  return out;
}
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DIGITS = '0123456789';

/** A key built from random parts around its vendor's fixed words; the parts are what must never show. */
interface Key {
  format: string;
  text: string;
  secret: string[];
}
let seed = 1;
function key(format: string, build: (random: (n: number, alphabet?: string) => string) => string): Key {
  const secret: string[] = [];
  const text = build((n, alphabet = BASE62) => {
    const part = randomChars(n, alphabet, seed++);
    secret.push(part);
    return part;
  });
  return { format, text, secret };
}

/** One key per format people paste; none is a real credential. */
const KEYS: Key[] = [
  key('OpenAI sk-', (r) => `sk-${r(48)}`),
  key('OpenAI sk-proj-', (r) => `sk-proj-${r(64)}_${r(20)}`),
  key('Anthropic sk-ant-', (r) => `sk-ant-api03-${r(86)}-${r(6)}AA`),
  key('AWS access key id', (r) => `AKIA${r(16, UPPER)}`),
  key('AWS secret access key', (r) => `${r(18)}/${r(10)}+${r(10)}`),
  key('GitHub ghp_', (r) => `ghp_${r(36)}`),
  key('GitHub github_pat_', (r) => `github_pat_${r(22)}_${r(59)}`),
  key('Google AIza', (r) => `AIza${r(35)}`),
  key('Slack xoxb-', (r) => `xoxb-${r(12, DIGITS)}-${r(13, DIGITS)}-${r(24)}`),
  key('a JWT', (r) => `eyJhbGciOiJIUzI1NiJ9.eyJ${r(40)}.${r(43)}`),
  key('a bearer string', (r) => `Bearer ${r(40)}`),
  key('a long random base62', (r) => r(40)),
  key('a pasted export line', (r) => `export OPENAI_API_KEY=sk-${r(48)}`),
];

/** The first 6 consecutive characters of a key's random parts that appear in `text`, if any. */
function leaks(text: string, key: Key): string | undefined {
  for (const part of key.secret) {
    for (let i = 0; i + 6 <= part.length; i++) if (text.includes(part.slice(i, i + 6))) return part.slice(i, i + 6);
  }
  return undefined;
}

const CONFIG = {
  version: 1,
  providers: { gateway: { base_url: 'https://gateway.example/v1', api_key_env: 'GATEWAY_API_KEY' } },
  models: { 'executor-model': { provider: 'gateway', model: 'vendor-a/model-name', family: 'vendor-a' } },
};

let counter = 0;
async function configLine(config: unknown): Promise<string> {
  const error = await loadProviderConfig(await tmp.write(`p${counter++}.yaml`, yamlOf(config))).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  return error ? error.message.replace(/^.*p\d+\.yaml/, '<file>') : '(accepted)';
}

async function planLine(manifestText: string, env: Record<string, string> = {}): Promise<string> {
  const file = await tmp.write(`m${counter++}.yaml`, manifestText);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  try {
    const io = bufferIo();
    const code = await runCli(['plan', file], io);
    return `exit ${code}: ${io.stderr().replace(/^harness: .*m\d+\.yaml/, '<file>').trimEnd()}`;
  } finally {
    vi.unstubAllEnvs();
  }
}

describe('no part of a secret is printed (item 12)', () => {
  it.each(KEYS)('$format pasted into api_key_env is refused as a key, and not a character of it is shown', async (key) => {
    const line = await configLine(patched(CONFIG, { providers: { gateway: { api_key_env: key.text } } }));
    expect(line).toBe(
      '<file>:5: providers.gateway.api_key_env: looks like a literal API key (value not shown); never write a key in this file: export it as an environment variable and write the variable NAME here, e.g. api_key_env: OPENROUTER_API_KEY',
    );
  });

  it.each(KEYS)('$format pasted anywhere else is never echoed', async (key) => {
    const { text } = key;
    const lines = [
      await configLine(patched(CONFIG, { models: { 'executor-model': { model: text } } })),
      await configLine(patched(CONFIG, { models: { 'executor-model': { family: text } } })),
      await configLine(patched(CONFIG, { models: { [text]: { provider: 'nowhere' } } })),
      await configLine(patched(CONFIG, { [text]: 1 })),
      await planLine(yamlOf(patched(VALID_MANIFEST, { name: text }))),
      await planLine(yamlOf(patched(VALID_MANIFEST, { executor: { family: text } }))),
      await planLine(yamlOf(patched(VALID_MANIFEST, { [text]: 1 }))),
      await planLine(yamlOf(patched(VALID_MANIFEST, { spec: text }))),
      await planLine(yamlOf(VALID_MANIFEST).replace('name: fixture', `name: !${text.replace(/\s/g, '')} fixture`)),
      await planLine(yamlOf(VALID_MANIFEST), { RDH_PROVIDERS: text }),
      await planLine(`${yamlOf(VALID_MANIFEST)}${JSON.stringify(text)}:\n  a: 1\n  a: 2\n`),
    ];
    for (const line of lines) {
      expect(line).not.toBe('(accepted)');
      expect(leaks(line, key), line).toBeUndefined();
    }
  });

  it('never echoes api_key_env, even where the value does not look like a key', async () => {
    const values = ['my key is abc', 'pk 12345', 12345678901234567890, 'x'.repeat(300)];
    const lines = await Promise.all(values.map((value) => configLine(patched(CONFIG, { providers: { gateway: { api_key_env: value } } }))));
    expect(lines).toMatchInlineSnapshot(`
      [
        "<file>:5: providers.gateway.api_key_env: is not an environment variable name (letters, digits and "_", not starting with a digit, at most 128 characters; value not shown); write the NAME of the variable holding the key, never the key, e.g. api_key_env: OPENROUTER_API_KEY",
        "<file>:5: providers.gateway.api_key_env: is not an environment variable name (letters, digits and "_", not starting with a digit, at most 128 characters; value not shown); write the NAME of the variable holding the key, never the key, e.g. api_key_env: OPENROUTER_API_KEY",
        "<file>:5: providers.gateway.api_key_env: expected text, got a number (not shown: this field names a credential); e.g. api_key_env: OPENROUTER_API_KEY",
        "<file>:5: providers.gateway.api_key_env: is not an environment variable name (letters, digits and "_", not starting with a digit, at most 128 characters; value not shown); write the NAME of the variable holding the key, never the key, e.g. api_key_env: OPENROUTER_API_KEY",
      ]
    `);
  });

  it('accepts names that are not keys: variable names, model ids, families', async () => {
    const config = {
      version: 1,
      providers: {
        a: { base_url: 'https://a.example/v1', api_key_env: 'OPENROUTER_API_KEY' },
        b: { base_url: 'http://localhost:8000/v1', api_key_env: 'ANTHROPIC_API_KEY' },
        c: { base_url: 'http://127.0.0.1:11434/v1', api_key_env: 'LOCAL_LLM_KEY_2' },
      },
      models: {
        'claude-3-5-sonnet-20241022': { provider: 'b', family: 'Anthropic' },
        'meta-llama/Llama-3.1-70B-Instruct': { provider: 'a', family: 'meta' },
        'Qwen/Qwen2.5-Coder-32B-Instruct': { provider: 'a', model: 'qwen/qwen-2.5-coder-32b-instruct', family: 'alibaba' },
        'gpt-4o-mini-2024-07-18': { provider: 'a', family: 'OpenAI' },
        'executor-model': { provider: 'c', model: 'vendor-a/model-name', family: 'vendor-a' },
      },
    };
    expect(await configLine(config)).toBe('(accepted)');
  });

  it('names the variable when RDH_PROVIDERS points nowhere, and never echoes a key it holds', async () => {
    const manifest = yamlOf(patched(VALID_MANIFEST, {}));
    const lines = [await planLine(manifest, { RDH_PROVIDERS: 'nowhere.yaml' }), await planLine(manifest, { RDH_PROVIDERS: KEYS[0]!.text })];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: nowhere.yaml (from RDH_PROVIDERS): cannot read the provider configuration: no such file; correct RDH_PROVIDERS or unset it (copy manifests/providers.example.yaml to start)",
        "exit 2: harness: (a path that looks like an API key; not shown) (from RDH_PROVIDERS): cannot read the provider configuration: no such file; correct RDH_PROVIDERS or unset it (copy manifests/providers.example.yaml to start)",
      ]
    `);
  });
});
