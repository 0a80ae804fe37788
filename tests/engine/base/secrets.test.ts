import { describe, expect, it } from 'vitest';
import { SECRET_GROUPS, SECRET_KINDS, SECRET_SHAPES, SecretCatalogue, type SecretKind } from '../../../engine/index.js';
import { SAMPLES, VARIANTS, pieces } from '../../site/secret-samples.js';

// Built by concatenation so this file holds no literal credential-shaped string.
const rnd = (n: number, alphabet = 'aB3xQ9mZ7kL2pR5tW8vN4cH6jF1gD0sY') => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const SK = 'sk' + '-';
const KNOWN = 'gw' + rnd(30);

/** For each kind: a near miss that must not be taken for one (the prefix named in prose, a name that starts like one, a value too short). */
const NEAR_MISSES: Record<SecretKind, string> = {
  known_value: `upstream said: invalid key gw${rnd(6)}-other`,
  private_key: '-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----',
  anthropic_key: 'the sk-ant- prefix marks an Anthropic key',
  openrouter_key: 'OpenRouter keys start sk-or-v1- and the model is openrouter/auto',
  openai_key: 'pass a key such as sk-... from the dashboard; task-runner-2 is a name',
  groq_key: 'gsk_ is the prefix of a Groq key; gsk_short',
  huggingface_token: 'from huggingface_hub import hf_hub_download; hf_transfer_enabled_for_large_files',
  replicate_token: 'r8_ tokens are shown once; r8_model_version',
  xai_key: 'the model xai-grok-2-latest answered',
  perplexity_key: 'ask pplx-70b-online or pplx-7b-chat',
  fireworks_key: 'fw_version, fw_update_required and fw_BootloaderVersionString are firmware fields',
  nvidia_key: 'NVIDIA keys start nvapi- and are shown once',
  langsmith_key: 'set LANGSMITH_API_KEY to a key that starts lsv2_pt_',
  elevenlabs_key: 'sk_ prefixes an ElevenLabs key; sk_test is not one',
  google_api_key: 'AIza is the prefix of a Google API key',
  google_oauth: 'ya29. marks an access token; GOCSPX- a client secret',
  github_token: 'branch ghp_fix and the github_pat_ prefix',
  gitlab_token: 'glpat- tokens expire; the glrt-runner label',
  atlassian_token: 'ATBB and ATATT3 prefix Atlassian tokens; ATBBSHORT',
  npm_token: 'npm_config_registry=https://registry.npmjs.org npm_lifecycle_event=test',
  pypi_token: 'the token starts pypi-AgEIcHlwaS5vcmc and goes on',
  rubygems_key: 'rubygems_version 3.4 and rubygems_api_key_file',
  docker_hub_token: 'dckr_pat_ tokens replace passwords',
  nuget_key: 'oy2 keys come from nuget.org; the word oy2a',
  stripe_key: 'sk_live_ and rk_test_ prefixes; pk_live_51HqQZpLrL4f8oYf7Kx9pQ2r is publishable',
  stripe_webhook_secret: 'whsec_ signs webhooks',
  square_token: 'Square tokens start EAAA or sq0atp-; EAAAAAAAAAAAAAAA',
  braintree_token: 'access_token$production$ then a merchant id',
  shopify_token: 'shpat_ tokens for custom apps; shpat_1234',
  aws_access_key_id: 'AKIA is how long-term key ids begin; AKIAshort',
  aws_secret_key: 'aws_secret_access_key = (set it in ~/.aws/credentials)',
  azure_storage_key: 'AccountKey=<your key>;EndpointSuffix=core.windows.net',
  azure_client_secret: 'a secret like abc8Q~ is shown once; ~/.azure holds Q~ nothing',
  digitalocean_token: 'dop_v1_ prefixes a personal token',
  databricks_token: 'dapi tokens; the dapi2 module; dapi0123',
  terraform_token: 'a token looks like NAME.atlasv1.SECRET',
  pulumi_token: 'pul- tokens for the Pulumi service; pul-request-1',
  sendgrid_key: 'SG.keys look like SG.x.y',
  slack_token: 'xoxb- tokens are for bots',
  slack_webhook: 'post to https://hooks.slack.com/services/ with your webhook',
  jwt: 'eyJhbGciOi is base64 for {"alg"',
  bearer_token: 'The Bearer responsibility lies with the caller',
  generic_secret: 'password = hunter2 and token_ceiling: 1000000; KEYWORDS:\n    tokens.append(Token(word))',
};

/** For each kind: a text holding one. Every class but known_value takes the first sample of its kind that make_site's tests plant. */
const POSITIVE = (kind: SecretKind): string => (kind === 'known_value' ? `upstream said: invalid key ${KNOWN}` : SAMPLES.find((s) => s.kind === kind)!.text);

describe('the secret catalogue', () => {
  const catalogue = new SecretCatalogue([KNOWN]);

  it('has a sample and a near miss for every kind it knows, and files every kind under one vendor group', () => {
    expect(Object.keys(NEAR_MISSES).sort()).toEqual([...SECRET_KINDS].sort());
    for (const kind of SECRET_KINDS) if (kind !== 'known_value') expect(SAMPLES.some((s) => s.kind === kind), kind).toBe(true);
    expect(Object.values(SECRET_GROUPS).flat().sort()).toEqual([...SECRET_KINDS].sort());
  });

  for (const kind of SECRET_KINDS) {
    it(`finds and redacts a ${kind}, and leaves its near miss alone`, () => {
      const positive = POSITIVE(kind);
      const negative = NEAR_MISSES[kind];
      const hits = catalogue.find(positive);
      expect(hits.map((h) => h.kind)).toEqual([kind]);
      const redacted = catalogue.redact(positive);
      expect(redacted).toContain(`[REDACTED ${kind}]`);
      // No 10 characters of the secret survive redaction.
      const secret = kind === 'known_value' ? KNOWN : SAMPLES.find((s) => s.kind === kind)!.secret;
      for (const piece of pieces(secret)) expect(redacted).not.toContain(piece);
      expect(catalogue.find(negative)).toEqual([]);
      expect(catalogue.redact(negative)).toBe(negative);
    });
  }

  it('finds every kind in text JSON-encoded once or twice, as a transcript line quotes a tool output (the quotes arrive escaped)', () => {
    for (const kind of SECRET_KINDS) {
      const once = JSON.stringify({ content: POSITIVE(kind) });
      const twice = JSON.stringify({ arguments: JSON.stringify({ command: POSITIVE(kind) }) });
      expect(catalogue.find(once).map((h) => h.kind), `${kind} once`).toEqual([kind]);
      expect(catalogue.find(twice).map((h) => h.kind), `${kind} twice`).toEqual([kind]);
      // Still no value: a redacted line keeps none of it.
      expect(catalogue.redact(twice)).toContain(`[REDACTED ${kind}]`);
      expect(catalogue.find(JSON.stringify({ content: NEAR_MISSES[kind] }))).toEqual([]);
    }
  });

  it('knows every sample and every variant of each class, by its class', () => {
    for (const sample of [...SAMPLES, ...VARIANTS]) expect(catalogue.find(sample.text).map((h) => h.kind), sample.name).toEqual([sample.kind]);
  });

  it('reports where, never what: kind, index, line and column only', () => {
    const text = `line one\nexport OPENAI_API_KEY=${SK}${rnd(40)}\n`;
    expect(SECRET_SHAPES.find(text)).toEqual([{ kind: 'openai_key', index: 31, line: 2, column: 23 }]);
  });

  it('catches a server echo of a known key, whole, truncated or masked', () => {
    const key = `${SK}proj-${rnd(40)}`;
    const c = new SecretCatalogue([key]);
    for (const echo of [key, `${key.slice(0, 20)}…${key.slice(-4)}`, `${key.slice(0, 16)}****${key.slice(-4)}`, `${key.slice(0, 16)}...`]) {
      const out = c.redact(`Incorrect API key provided: ${echo} (see your dashboard)`);
      expect(out).toBe('Incorrect API key provided: [REDACTED known_value] (see your dashboard)');
    }
  });

  it('catches a masked key echo even when the key is not known', () => {
    expect(SECRET_SHAPES.redact(`Incorrect API key provided: ${SK}abc12***************wxyz.`)).toBe('Incorrect API key provided: [REDACTED openai_key].');
  });

  it('leaves digests, container ids and figures readable', () => {
    const text = [
      'manifest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'container 4f1b2b0b822cd15d6c15b0f00a089f86d081884c7d659a2feaa0c55ad015a3bf',
      'image_digest: sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      'cache_key: sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      'token_ceiling: 1000000, max_tokens=4096, tokens in 1,234,567',
      'session root.1/worker/2 used 12,345 tokens',
    ].join('\n');
    expect(SECRET_SHAPES.find(text)).toEqual([]);
  });

  it('redacts every string of an event, deeply, and scrubs an error to message, stack and cause', () => {
    const key = `${SK}${rnd(40)}`;
    const c = new SecretCatalogue([key]);
    expect(c.redactDeep({ type: 'x', reasons: [`bad ${key}`], nested: { n: 3, s: key } })).toEqual({
      type: 'x',
      reasons: ['bad [REDACTED known_value]'],
      nested: { n: 3, s: '[REDACTED known_value]' },
    });
    const inner = Object.assign(new Error(`401 ${key}`), { headers: { authorization: `Bearer ${key}` } });
    const scrubbed = c.scrubError(new Error(`call failed: ${key}`, { cause: inner }));
    const all = JSON.stringify({ m: scrubbed.message, s: scrubbed.stack, c: (scrubbed.cause as Error).message, cs: (scrubbed.cause as Error).stack, keys: Object.keys(scrubbed.cause as object) });
    expect(all).not.toContain(key.slice(3, 15));
    expect((scrubbed.cause as Error).message).toBe('401 [REDACTED known_value]');
    expect('headers' in (scrubbed.cause as object)).toBe(false);
  });
});
