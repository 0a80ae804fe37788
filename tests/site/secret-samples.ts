import type { runFiles } from '../../harness/index.js';

/**
 * One planted secret per format the site must refuse to publish, each with the kind the
 * catalogue names it by. Built by concatenation, so this file holds no literal credential;
 * every value is random-looking and belongs to no account.
 */
const rnd = (n: number, alphabet = 'aB3xQ9mZ7kL2pR5tW8vN4cH6jF1gD0sY', seed = 3) => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + seed) % alphabet.length]).join('');
const SK = 'sk' + '-';

export interface Sample {
  name: string;
  kind: runFiles.SecretKind;
  /** The text planted (the secret in its usual surroundings). */
  text: string;
  /** The secret itself: the output must never hold it, nor any 10 characters of it. */
  secret: string;
}

const sample = (name: string, kind: runFiles.SecretKind, secret: string, around: (s: string) => string = (s) => s): Sample => ({ name, kind, secret, text: around(secret) });

export const SAMPLES: readonly Sample[] = [
  sample('OpenAI key (sk-)', 'openai_key', `${SK}${rnd(48, undefined, 5)}`, (s) => `the key ${s} was refused`),
  sample('OpenAI project key (sk-proj-)', 'openai_key', `${SK}proj-${rnd(56, undefined, 11)}`, (s) => `OPENAI_API_KEY=${s}`),
  sample('Anthropic key', 'anthropic_key', `${SK}ant-api03-${rnd(60, undefined, 2)}`, (s) => `x-api-key: ${s}`),
  sample('AWS access key id', 'aws_access_key_id', `${'AK' + 'IA'}${rnd(16, 'ABCDEFGHJKLMNPQRSTUVWXYZ234567', 4)}`, (s) => `aws_access_key_id ${s}`),
  sample('AWS secret key', 'aws_secret_key', rnd(40, 'aB3xQ9mZ7kL2pR5tW8vN4cH6jF1gD0sY/+', 6), (s) => `aws_secret_access_key = ${s}`),
  sample('GitHub token', 'github_token', `${'gh' + 'p_'}${rnd(36, undefined, 8)}`, (s) => `git clone https://x:${s}@example.invalid/r.git`),
  sample('GitHub fine-grained token', 'github_token', `${'github' + '_pat_'}${rnd(60, undefined, 9)}`, (s) => `GH_TOKEN=${s}`),
  sample('Google API key', 'google_api_key', `${'AI' + 'za'}${rnd(35, undefined, 10)}`, (s) => `?key=${s}&alt=json`),
  sample('Slack token', 'slack_token', `${'xo' + 'xb'}-${rnd(12, '0123456789', 1)}-${rnd(24, undefined, 12)}`, (s) => `slack token ${s}`),
  sample('JWT', 'jwt', `eyJ${rnd(20, undefined, 13)}.eyJ${rnd(30, undefined, 14)}.${rnd(43, undefined, 15)}`, (s) => `session cookie ${s}`),
  sample('PEM private key', 'private_key', `-----BEGIN ${'RSA '}PRIVATE KEY-----\nMIIEow${rnd(60, undefined, 16)}\n${rnd(64, undefined, 17)}\n-----END RSA PRIVATE KEY-----`, (s) => `found:\n${s}\nend`),
  sample('Authorization: Bearer', 'bearer_token', rnd(40, undefined, 18), (s) => `Authorization: Bearer ${s}`),
  sample('generic key/secret/token/password assignment', 'generic_secret', rnd(32, undefined, 19), (s) => `db_password = "${s}"`),
];

/** Pieces of a secret an output must not hold: the whole, and every 10-character window of its distinctive part. */
export function pieces(secret: string): string[] {
  const body = secret.replace(/^-----BEGIN [A-Z ]+-----\n?/, '');
  const out = [secret];
  for (let i = 0; i + 10 <= body.length; i += 5) out.push(body.slice(i, i + 10));
  return out;
}
