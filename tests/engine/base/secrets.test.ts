import { describe, expect, it } from 'vitest';
import { SECRET_KINDS, SECRET_SHAPES, SecretCatalogue, type SecretKind } from '../../../engine/index.js';

// Built by concatenation so this file holds no literal credential-shaped string.
const rnd = (n: number, alphabet = 'aB3xQ9mZ7kL2pR5tW8vN4cH6jF1gD0sY') => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const SK = 'sk' + '-';
const KNOWN = 'gw' + rnd(30);

/** For each kind: a text holding one, and a near miss that must not be taken for one. */
const CASES: Record<SecretKind, { positive: string; negative: string }> = {
  known_value: { positive: `upstream said: invalid key ${KNOWN}`, negative: `upstream said: invalid key gw${rnd(6)}-other` },
  private_key: {
    positive: `key:\n-----BEGIN ${'RSA '}PRIVATE KEY-----\nMIIEow${rnd(40)}\n-----END RSA PRIVATE KEY-----\nafter`,
    negative: '-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----',
  },
  anthropic_key: { positive: `ANTHROPIC=${SK}ant-api03-${rnd(40)}`, negative: 'the sk-ant- prefix marks an Anthropic key' },
  openai_key: { positive: `key ${SK}proj-${rnd(48)} was refused`, negative: 'pass a key such as sk-... from the dashboard; task-runner-2 is a name' },
  aws_access_key_id: { positive: `id ${'AK' + 'IA'}${rnd(16, 'ABCDEFGHJKLMNPQRSTUVWXYZ234567')} ok`, negative: 'AKIA is how long-term key ids begin; AKIAshort' },
  aws_secret_key: { positive: `aws_secret_access_key = ${rnd(40)}`, negative: 'aws_secret_access_key = (set it in ~/.aws/credentials)' },
  github_token: { positive: `token ${'gh' + 'p_'}${rnd(36)} end`, negative: 'branch ghp_fix and the github_pat_ prefix' },
  google_api_key: { positive: `key=${'AI' + 'za'}${rnd(35)}&q=1`, negative: 'AIza is the prefix of a Google API key' },
  slack_token: { positive: `slack ${'xo' + 'xb'}-${rnd(12, '0123456789')}-${rnd(24)}`, negative: 'xoxb- tokens are for bots' },
  jwt: { positive: `cookie eyJ${rnd(20)}.eyJ${rnd(30)}.${rnd(43)}`, negative: 'eyJhbGciOi is base64 for {"alg"' },
  bearer_token: { positive: `Authorization: Bearer ${rnd(32)}`, negative: 'The Bearer responsibility lies with the caller' },
  generic_secret: { positive: `db_password = "${rnd(24)}"`, negative: 'password = hunter2 and token_ceiling: 1000000' },
};

describe('the secret catalogue', () => {
  const catalogue = new SecretCatalogue([KNOWN]);

  it('has a case for every kind it knows', () => {
    expect(Object.keys(CASES).sort()).toEqual([...SECRET_KINDS].sort());
  });

  for (const kind of SECRET_KINDS) {
    it(`finds and redacts a ${kind}, and leaves its near miss alone`, () => {
      const { positive, negative } = CASES[kind];
      const hits = catalogue.find(positive);
      expect(hits.map((h) => h.kind)).toEqual([kind]);
      const redacted = catalogue.redact(positive);
      expect(redacted).toContain(`[REDACTED ${kind}]`);
      // No run of 8 characters of the secret survives redaction.
      const secretStart = hits[0]!.index;
      const secretPiece = positive.slice(secretStart, secretStart + 8);
      expect(redacted).not.toContain(secretPiece);
      expect(catalogue.find(negative)).toEqual([]);
      expect(catalogue.redact(negative)).toBe(negative);
    });
  }

  it('finds every kind in text JSON-encoded once or twice, as a transcript line quotes a tool output (the quotes arrive escaped)', () => {
    for (const kind of SECRET_KINDS) {
      const once = JSON.stringify({ content: CASES[kind].positive });
      const twice = JSON.stringify({ arguments: JSON.stringify({ command: CASES[kind].positive }) });
      expect(catalogue.find(once).map((h) => h.kind), `${kind} once`).toEqual([kind]);
      expect(catalogue.find(twice).map((h) => h.kind), `${kind} twice`).toEqual([kind]);
      // Still no value: a redacted line keeps none of it.
      expect(catalogue.redact(twice)).toContain(`[REDACTED ${kind}]`);
      expect(catalogue.find(JSON.stringify({ content: CASES[kind].negative }))).toEqual([]);
    }
  });

  it('knows each format the issue names in each of its variants', () => {
    const variants: Array<[SecretKind, string]> = [
      ['openai_key', `legacy ${SK}${rnd(48)}`],
      ['openai_key', `project ${SK}proj-${rnd(60)}`],
      ['openai_key', `service ${SK}svcacct-${rnd(40)}`],
      ['anthropic_key', `${SK}ant-admin01-${rnd(40)}`],
      ['aws_access_key_id', `temporary ${'AS' + 'IA'}${rnd(16, 'ABCDEFGHJKLMNPQRSTUVWXYZ234567')}`],
      ['github_token', `${'gh' + 'o_'}${rnd(36)}`],
      ['github_token', `${'gh' + 's_'}${rnd(36)}`],
      ['github_token', `${'github' + '_pat_'}${rnd(22)}_${rnd(59)}`],
      ['slack_token', `${'xo' + 'xp'}-${rnd(10, '0123456789')}-${rnd(10, '0123456789')}-${rnd(32)}`],
      ['private_key', `-----BEGIN ${'OPENSSH '}PRIVATE KEY-----\nb3BlbnNzaC1rZXkt${rnd(40)}\n-----END OPENSSH PRIVATE KEY-----`],
      ['private_key', `-----BEGIN ${'EC '}PRIVATE KEY-----\nMHcCAQEE${rnd(40)}`],
      ['bearer_token', `"Authorization": "Bearer ${rnd(24)}"`],
      ['generic_secret', `{"api_token": "${rnd(28)}"}`],
      ['generic_secret', `SECRET_KEY='${rnd(40)}'`],
    ];
    for (const [kind, text] of variants) expect(catalogue.find(text).map((h) => h.kind), text.slice(0, 24)).toEqual([kind]);
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
