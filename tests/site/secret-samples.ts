import type { runFiles } from '../../harness/index.js';

/**
 * One planted secret per class of the catalogue (all but `known_value`, which needs a configured
 * key), each with the kind the catalogue names it by, plus VARIANTS: every other alternative a
 * class's pattern has (another prefix, another token type of the vendor). Built by
 * concatenation, so this file holds no literal credential; every value is pseudo-random and
 * belongs to no account.
 */

/** A deterministic pseudo-random string over `alphabet` (a linear congruential generator, seeded). */
function gen(n: number, alphabet: string, seed: number): string {
  let x = (seed * 2654435761) >>> 0 || 1;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += alphabet[(x >>> 8) % alphabet.length];
  }
  return out;
}

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LETTERS = `${UPPER}abcdefghijkmnopqrstuvwxyz`;
const ALNUM = `${LETTERS}0123456789`;
const HEX = '0123456789abcdef';
const LOWER_ALNUM = 'abcdefghijkmnopqrstuvwxyz0123456789';
const URLSAFE = `${ALNUM}_-`;
const B64 = `${ALNUM}+/`;
let seed = 1;
/** A fresh value of `n` characters over `alphabet` (each call its own seed). */
const rnd = (n: number, alphabet = ALNUM) => gen(n, alphabet, seed++);
const SK = 'sk' + '-';

export interface Sample {
  name: string;
  kind: runFiles.SecretKind;
  /** The text planted (the secret in its usual surroundings). */
  text: string;
  /** The shortest text that is still this kind: the secret alone, or its name and sign when the shape needs them. It is what a test puts right after an escape. */
  tight: string;
  /** The secret itself: the output must never hold it, nor any 10 characters of it. */
  secret: string;
}

function sample(name: string, kind: runFiles.SecretKind, secret: string, around: (s: string) => string = (s) => `the value ${s} was used`, tight: (s: string) => string = (s) => s): Sample {
  return { name, kind, secret, text: around(secret), tight: tight(secret) };
}

export const SAMPLES: readonly Sample[] = [
  sample('OpenAI key (sk-)', 'openai_key', `${SK}${rnd(48)}`, (s) => `the key ${s} was refused`),
  sample('OpenAI project key (sk-proj-)', 'openai_key', `${SK}proj-${rnd(56, URLSAFE)}`, (s) => `OPENAI_API_KEY=${s}`),
  sample('Anthropic key', 'anthropic_key', `${SK}ant-api03-${rnd(60, URLSAFE)}`, (s) => `x-api-key: ${s}`),
  sample('AWS access key id', 'aws_access_key_id', `${'AK' + 'IA'}${rnd(16, `${UPPER}234567`)}`, (s) => `aws_access_key_id ${s}`),
  sample('AWS secret key', 'aws_secret_key', rnd(40, B64), (s) => `aws_secret_access_key = ${s}`, (s) => `aws_secret_access_key=${s}`),
  sample('GitHub token', 'github_token', `${'gh' + 'p_'}${rnd(36)}`, (s) => `git clone https://x:${s}@example.invalid/r.git`),
  sample('GitHub fine-grained token', 'github_token', `${'github' + '_pat_'}${rnd(22)}_${rnd(59)}`, (s) => `GH_TOKEN=${s}`),
  sample('Google API key', 'google_api_key', `${'AI' + 'za'}${rnd(35, URLSAFE)}`, (s) => `?key=${s}&alt=json`),
  sample('Slack token', 'slack_token', `${'xo' + 'xb'}-${rnd(12, '0123456789')}-${rnd(24)}`, (s) => `slack token ${s}`),
  sample('JWT', 'jwt', `eyJ${rnd(20, URLSAFE)}.eyJ${rnd(30, URLSAFE)}.${rnd(43, URLSAFE)}`, (s) => `session cookie ${s}`),
  sample('PEM private key', 'private_key', `-----BEGIN ${'RSA '}PRIVATE KEY-----\nMIIEow${rnd(60, B64)}\n${rnd(64, B64)}\n-----END RSA PRIVATE KEY-----`, (s) => `found:\n${s}\nend`),
  sample('Authorization: Bearer', 'bearer_token', rnd(40), (s) => `Authorization: Bearer ${s}`, (s) => `Authorization: Bearer ${s}`),
  sample('generic key/secret/token/password assignment', 'generic_secret', rnd(32), (s) => `db_password = "${s}"`, (s) => `db_password="${s}"`),
  // Hosted models.
  sample('OpenRouter key', 'openrouter_key', `${SK}or-v1-${rnd(64, HEX)}`, (s) => `OPENROUTER_API_KEY=${s}`),
  sample('Groq key', 'groq_key', `${'gs' + 'k_'}${rnd(52)}`, (s) => `client = Groq(api_key="${s}")`),
  sample('Hugging Face token', 'huggingface_token', `${'hf' + '_'}${rnd(34, LETTERS)}`, (s) => `huggingface-cli login --token ${s}`),
  sample('Replicate token', 'replicate_token', `${'r8' + '_'}${rnd(37)}`, (s) => `export REPLICATE_API_TOKEN=${s}`),
  sample('xAI key', 'xai_key', `${'xa' + 'i-'}${rnd(80)}`),
  sample('Perplexity key', 'perplexity_key', `${'pp' + 'lx-'}${rnd(48)}`),
  sample('Fireworks key', 'fireworks_key', `${'fw' + '_'}${rnd(24)}`),
  sample('NVIDIA key', 'nvidia_key', `${'nv' + 'api-'}${rnd(64, URLSAFE)}`),
  sample('LangSmith key', 'langsmith_key', `${'lsv2' + '_pt_'}${rnd(32, HEX)}_${rnd(10, HEX)}`),
  sample('ElevenLabs key', 'elevenlabs_key', `${'sk' + '_'}${rnd(48, HEX)}`, (s) => `xi-api-key: ${s}`),
  sample('Google OAuth access token', 'google_oauth', `${'ya' + '29.'}${rnd(120, URLSAFE)}`, (s) => `gcloud printed ${s}`),
  // Code hosting.
  sample('GitLab token', 'gitlab_token', `${'gl' + 'pat-'}${rnd(20, URLSAFE)}`, (s) => `PRIVATE-TOKEN: ${s}`),
  sample('Bitbucket app password', 'atlassian_token', `${'AT' + 'BB'}${rnd(32)}`),
  // Package registries.
  sample('npm token', 'npm_token', `${'np' + 'm_'}${rnd(36)}`, (s) => `//registry.npmjs.org/:_authToken=${s}`),
  sample('PyPI token', 'pypi_token', `${'py' + 'pi-'}AgEIcHlwaS5vcmc${rnd(70, URLSAFE)}`, (s) => `twine upload -p ${s} dist/*`),
  sample('RubyGems key', 'rubygems_key', `${'ruby' + 'gems_'}${rnd(48, HEX)}`),
  sample('Docker Hub token', 'docker_hub_token', `${'dc' + 'kr_pat_'}${rnd(27, URLSAFE)}`, (s) => `docker login -u ci -p ${s}`),
  sample('NuGet key', 'nuget_key', `${'oy' + '2'}${rnd(43, LOWER_ALNUM)}`, (s) => `nuget push x.nupkg -ApiKey ${s}`),
  // Payment.
  sample('Stripe secret key', 'stripe_key', `${'sk' + '_live_'}${rnd(99)}`),
  sample('Stripe webhook secret', 'stripe_webhook_secret', `${'wh' + 'sec_'}${rnd(32)}`),
  sample('Square access token', 'square_token', `${'EA' + 'AA'}${rnd(60, URLSAFE)}`),
  sample('Braintree access token', 'braintree_token', `${'access' + '_token$production$'}${rnd(16, LOWER_ALNUM)}$${rnd(32, HEX)}`),
  sample('Shopify access token', 'shopify_token', `${'sh' + 'pat_'}${rnd(32, HEX)}`, (s) => `X-Shopify-Access-Token: ${s}`),
  // Cloud and workplace.
  sample('Azure storage key', 'azure_storage_key', `${rnd(86, B64)}==`, (s) => `DefaultEndpointsProtocol=https;AccountName=fixture;AccountKey=${s};EndpointSuffix=core.windows.net`, (s) => `AccountKey=${s}`),
  sample('Azure client secret', 'azure_client_secret', `${rnd(3)}8${'Q' + '~'}${rnd(34, `${ALNUM}_~.-`)}`, (s) => `AZURE_CLIENT_SECRET=${s}`),
  sample('DigitalOcean token', 'digitalocean_token', `${'do' + 'p_v1_'}${rnd(64, HEX)}`),
  sample('Databricks token', 'databricks_token', `${'da' + 'pi'}${rnd(32, HEX)}`, (s) => `DATABRICKS_TOKEN=${s}`),
  sample('Terraform Cloud token', 'terraform_token', `${rnd(14)}.${'atlas' + 'v1'}.${rnd(67, URLSAFE)}`),
  sample('Pulumi token', 'pulumi_token', `${'pu' + 'l-'}${rnd(40, HEX)}`),
  sample('SendGrid key', 'sendgrid_key', `${'SG' + '.'}${rnd(22, URLSAFE)}.${rnd(43, URLSAFE)}`),
  sample('Slack webhook URL', 'slack_webhook', `T0${rnd(9, `${UPPER}0123456789`)}/B0${rnd(9, `${UPPER}0123456789`)}/${rnd(24)}`, (s) => `curl -X POST https://hooks.slack.com/services/${s}`, (s) => `hooks.slack.com/services/${s}`),
];

/** Every other alternative of a class's pattern, so a needle or prefix missing from the catalogue fails a test. */
export const VARIANTS: readonly Sample[] = [
  sample('OpenAI service-account key', 'openai_key', `${SK}svcacct-${rnd(40, URLSAFE)}`),
  sample('OpenAI admin key', 'openai_key', `${SK}admin-${rnd(40, URLSAFE)}`),
  sample('Anthropic admin key', 'anthropic_key', `${SK}ant-admin01-${rnd(40, URLSAFE)}`),
  sample('AWS temporary key id', 'aws_access_key_id', `${'AS' + 'IA'}${rnd(16, `${UPPER}234567`)}`),
  ...['o', 'u', 's', 'r'].map((t) => sample(`GitHub gh${t}_ token`, 'github_token', `${'gh' + t}_${rnd(36)}`)),
  sample('Slack user token', 'slack_token', `${'xo' + 'xp'}-${rnd(10, '0123456789')}-${rnd(10, '0123456789')}-${rnd(32, HEX)}`),
  sample('Slack refresh token', 'slack_token', `${'xo' + 'xe'}.xoxp-1-${rnd(40)}`),
  sample('OpenSSH private key', 'private_key', `-----BEGIN ${'OPENSSH '}PRIVATE KEY-----\nb3BlbnNzaC1rZXkt${rnd(40, B64)}\n-----END OPENSSH PRIVATE KEY-----`),
  sample('EC private key, cut off', 'private_key', `-----BEGIN ${'EC '}PRIVATE KEY-----\nMHcCAQEE${rnd(40, B64)}`),
  sample('Authorization header in JSON', 'bearer_token', rnd(24), (s) => `"Authorization": "Bearer ${s}"`),
  sample('api_token in JSON', 'generic_secret', rnd(28), (s) => `{"api_token": "${s}"}`),
  sample('SECRET_KEY in Python', 'generic_secret', rnd(40), (s) => `SECRET_KEY='${s}'`),
  sample('Hugging Face organisation token', 'huggingface_token', `${'api' + '_org_'}${rnd(34, LETTERS)}`),
  sample('Google OAuth client secret', 'google_oauth', `${'GOC' + 'SPX-'}${rnd(28, URLSAFE)}`),
  ...['gldt', 'glptt', 'glrt', 'glcbt', 'glimt', 'glft', 'glsoat', 'gloas', 'glagent'].map((p) => sample(`GitLab ${p}- token`, 'gitlab_token', `${p}-${rnd(24, URLSAFE)}`)),
  sample('Atlassian API token', 'atlassian_token', `${'AT' + 'ATT3'}${rnd(180, `${URLSAFE}=`)}`),
  sample('Bitbucket access token', 'atlassian_token', `${'AT' + 'CTT3'}${rnd(180, `${URLSAFE}=`)}`),
  sample('Docker Hub organisation token', 'docker_hub_token', `${'dc' + 'kr_oat_'}${rnd(32, URLSAFE)}`),
  ...['sk_test_', 'rk_live_', 'rk_test_'].map((p) => sample(`Stripe ${p} key`, 'stripe_key', `${p.slice(0, 1)}${p.slice(1)}${rnd(24)}`)),
  sample('Square sandbox token (sq0atp-)', 'square_token', `${'sq0' + 'atp-'}${rnd(22, URLSAFE)}`),
  sample('Square application secret (sq0csp-)', 'square_token', `${'sq0' + 'csp-'}${rnd(43, URLSAFE)}`),
  ...['shpca_', 'shppa_', 'shpss_'].map((p) => sample(`Shopify ${p} token`, 'shopify_token', `${p.slice(0, 2)}${p.slice(2)}${rnd(32, HEX)}`)),
  ...['doo_v1_', 'dor_v1_'].map((p) => sample(`DigitalOcean ${p} token`, 'digitalocean_token', `${p.slice(0, 2)}${p.slice(2)}${rnd(64, HEX)}`)),
  sample('Slack workflow webhook', 'slack_webhook', `${rnd(30)}`, (s) => `POST https://hooks.slack.com/workflows/${s}`, (s) => `hooks.slack.com/workflows/${s}`),
  sample('LangSmith service key', 'langsmith_key', `${'lsv2' + '_sk_'}${rnd(32, HEX)}_${rnd(10, HEX)}`),
];

/** Pieces of a secret an output must not hold: the whole, and every 10-character window of its distinctive part. */
export function pieces(secret: string): string[] {
  const body = secret.replace(/^-----BEGIN [A-Z ]+-----\n?/, '');
  const out = [secret];
  for (let i = 0; i + 10 <= body.length; i += 5) out.push(body.slice(i, i + 10));
  return out;
}
