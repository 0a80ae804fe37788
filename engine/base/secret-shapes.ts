/**
 * What a secret looks like: one named class per vendor token format, with a pattern precise
 * enough not to fire on ordinary prose, code or the harness's own figures and digests.
 *
 * Each pattern keys on the vendor's fixed prefix (or signature) and length where the vendor has
 * one, and starts where a token can start (a word boundary, or a lookbehind where the token's
 * alphabet is wider). A shape is a floor, not a ceiling: the publish-time scan also decodes the
 * escapes a token can hide behind (site/scripts/secret-scan.ts) and searches for the configured
 * keys' exact values (the `known_value` class of the catalogue).
 */

/**
 * Every class, by its stable name. The order is the precedence when two shapes cover the same
 * characters (an OpenRouter key is also `sk-...`): the earlier, more specific class names it.
 */
export const SECRET_KINDS = [
  'known_value',
  'private_key',
  // Hosted models.
  'anthropic_key',
  'openrouter_key',
  'openai_key',
  'groq_key',
  'huggingface_token',
  'replicate_token',
  'xai_key',
  'perplexity_key',
  'fireworks_key',
  'nvidia_key',
  'langsmith_key',
  'elevenlabs_key',
  'google_api_key',
  'google_oauth',
  // Code hosting.
  'github_token',
  'gitlab_token',
  'atlassian_token',
  // Package registries.
  'npm_token',
  'pypi_token',
  'rubygems_key',
  'docker_hub_token',
  'nuget_key',
  // Payment.
  'stripe_key',
  'stripe_webhook_secret',
  'square_token',
  'braintree_token',
  'shopify_token',
  // Cloud and workplace.
  'aws_access_key_id',
  'aws_secret_key',
  'azure_storage_key',
  'azure_client_secret',
  'digitalocean_token',
  'databricks_token',
  'terraform_token',
  'pulumi_token',
  'sendgrid_key',
  'slack_token',
  'slack_webhook',
  // Generic shapes, last: any vendor class above names a token before these do.
  'jwt',
  'bearer_token',
  'generic_secret',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** The classes by vendor group, as the README lists them. Every class is in exactly one group. */
export const SECRET_GROUPS: Readonly<Record<string, readonly SecretKind[]>> = {
  'configured values': ['known_value'],
  'hosted models': ['anthropic_key', 'openrouter_key', 'openai_key', 'groq_key', 'huggingface_token', 'replicate_token', 'xai_key', 'perplexity_key', 'fireworks_key', 'nvidia_key', 'langsmith_key', 'elevenlabs_key', 'google_api_key', 'google_oauth'],
  'code hosting': ['github_token', 'gitlab_token', 'atlassian_token'],
  'package registries': ['npm_token', 'pypi_token', 'rubygems_key', 'docker_hub_token', 'nuget_key'],
  payment: ['stripe_key', 'stripe_webhook_secret', 'square_token', 'braintree_token', 'shopify_token'],
  'cloud and workplace': ['aws_access_key_id', 'aws_secret_key', 'azure_storage_key', 'azure_client_secret', 'digitalocean_token', 'databricks_token', 'terraform_token', 'pulumi_token', 'sendgrid_key', 'slack_token', 'slack_webhook'],
  generic: ['private_key', 'jwt', 'bearer_token', 'generic_secret'],
};

export interface Shape {
  kind: SecretKind;
  /** Global regex. When it has a capture group 1, only that part is the secret. */
  pattern: RegExp;
  /**
   * Literal text every match holds one of (compared without case): the regex runs only on a
   * text that holds one, which keeps a scan of many shapes over a large run fast. A needle
   * missing here silently disables that part of the shape, so each shape's tests cover every
   * alternative of its pattern.
   */
  needles: readonly string[];
  /** Extra test on the secret part, for shapes that would otherwise catch ordinary words. */
  accept?: (value: string) => boolean;
  /** The secret begins this many characters before the match (a part checked by a lookbehind, so the scan can key on a later literal). */
  before?: number;
}

/** Letters and digits mixed, long, and not a digest: what a generated credential looks like. */
export function highEntropy(value: string): boolean {
  if (value.length < 16) return false;
  if (/^sha\d+:/i.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((c) => c.test(value)).length;
  if (classes < 2) return false;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits >= 3;
}

/** Holds a digit and a letter: a generated token, not a word or an identifier in prose. */
const tokenLike = (value: string) => /[0-9]/.test(value) && /[A-Za-z]/.test(value);
/** Upper and lower case mixed: a random letter string, not a snake_case or all-caps name. */
const mixedCase = (value: string) => /[a-z]/.test(value) && /[A-Z]/.test(value);

export const SHAPES: readonly Shape[] = [
  // An unterminated block (a cut-off paste) is still a key: it runs to the end of the text.
  { kind: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$(?![\s\S]))/g, needles: ['PRIVATE KEY-----'] },

  // Hosted models.
  { kind: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g, needles: ['sk-ant-'] },
  { kind: 'openrouter_key', pattern: /\bsk-or-v1-[a-f0-9]{64}(?![A-Za-z0-9])/g, needles: ['sk-or-v1-'] },
  { kind: 'openai_key', pattern: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, needles: ['sk-'] },
  // A server's masked echo of a key ("sk-abc1****wxyz") is still part of one.
  { kind: 'openai_key', pattern: /\bsk-[A-Za-z0-9_-]{0,16}\*{3,}[A-Za-z0-9_-]{0,8}/g, needles: ['sk-'] },
  { kind: 'groq_key', pattern: /\bgsk_[A-Za-z0-9]{48,56}(?![A-Za-z0-9])/g, needles: ['gsk_'] },
  // Personal tokens (hf_) and the older organisation tokens (api_org_): letters, mixed case.
  { kind: 'huggingface_token', pattern: /\b(?:hf_|api_org_)([A-Za-z0-9]{34,40})(?![A-Za-z0-9])/g, needles: ['hf_', 'api_org_'], accept: mixedCase },
  { kind: 'replicate_token', pattern: /\br8_[A-Za-z0-9_-]{36,40}(?![A-Za-z0-9_-])/g, needles: ['r8_'], accept: tokenLike },
  { kind: 'xai_key', pattern: /\bxai-[A-Za-z0-9_]{60,}/g, needles: ['xai-'] },
  { kind: 'perplexity_key', pattern: /\bpplx-[A-Za-z0-9]{32,}/g, needles: ['pplx-'] },
  { kind: 'fireworks_key', pattern: /\bfw_[A-Za-z0-9]{20,}(?![A-Za-z0-9_])/g, needles: ['fw_'], accept: tokenLike },
  { kind: 'nvidia_key', pattern: /\bnvapi-[A-Za-z0-9_-]{40,}/g, needles: ['nvapi-'] },
  { kind: 'langsmith_key', pattern: /\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b/g, needles: ['lsv2_'] },
  { kind: 'elevenlabs_key', pattern: /\bsk_[a-f0-9]{48}(?![A-Za-z0-9])/g, needles: ['sk_'] },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, needles: ['AIza'] },
  // OAuth access tokens (ya29.) and OAuth client secrets (GOCSPX-).
  { kind: 'google_oauth', pattern: /\b(?:ya29\.[A-Za-z0-9_-]{30,}|GOCSPX-[A-Za-z0-9_-]{28})/g, needles: ['ya29.', 'GOCSPX-'] },

  // Code hosting.
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g, needles: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'] },
  // Personal, deploy, pipeline-trigger, runner, CI-job, incoming-mail, feed, OAuth and agent tokens.
  { kind: 'gitlab_token', pattern: /\b(?:glpat|gldt|glptt|glrt|glcbt|glimt|glft|glsoat|gloas|glagent)-[A-Za-z0-9_.-]{20,}/g, needles: ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glcbt-', 'glimt-', 'glft-', 'glsoat-', 'gloas-', 'glagent-'] },
  // Bitbucket app passwords (ATBB), Atlassian API tokens (ATATT3) and Bitbucket access tokens (ATCTT3).
  { kind: 'atlassian_token', pattern: /\b(?:ATBB[A-Za-z0-9_=.-]{28,}|AT[AC]TT3[A-Za-z0-9_=.-]{60,})/g, needles: ['ATBB', 'ATATT3', 'ATCTT3'] },

  // Package registries.
  { kind: 'npm_token', pattern: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g, needles: ['npm_'] },
  // A PyPI token is a macaroon: `pypi-` and base64 that always opens with `AgE`.
  { kind: 'pypi_token', pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g, needles: ['pypi-AgE'] },
  { kind: 'rubygems_key', pattern: /\brubygems_[a-f0-9]{48}(?![A-Za-z0-9])/g, needles: ['rubygems_'] },
  { kind: 'docker_hub_token', pattern: /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{24,}/g, needles: ['dckr_pat_', 'dckr_oat_'] },
  { kind: 'nuget_key', pattern: /\boy2[a-z0-9]{43}(?![A-Za-z0-9])/g, needles: ['oy2'], accept: tokenLike },

  // Payment. Stripe's publishable keys (pk_) are public by design; test keys are still keys.
  { kind: 'stripe_key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g, needles: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'] },
  { kind: 'stripe_webhook_secret', pattern: /\bwhsec_[A-Za-z0-9+/=]{24,}/g, needles: ['whsec_'] },
  { kind: 'square_token', pattern: /\b(?:sq0atp-[A-Za-z0-9_-]{22,}|sq0csp-[A-Za-z0-9_-]{40,}|EAAA[A-Za-z0-9_-]{60,})/g, needles: ['sq0atp-', 'sq0csp-', 'EAAA'], accept: tokenLike },
  { kind: 'braintree_token', pattern: /\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}/g, needles: ['access_token$'] },
  { kind: 'shopify_token', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])/g, needles: ['shpat_', 'shpca_', 'shppa_', 'shpss_'] },

  // Cloud and workplace.
  { kind: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, needles: ['AKIA', 'ASIA'] },
  // Quotes may come escaped (`\"`, `\\\"`): a transcript or event line holds text JSON-encoded once or twice.
  { kind: 'aws_secret_key', pattern: /aws_?secret_?(?:access_?)?key(?:\\{0,3}["'])?[ \t]*[:=][ \t]*(?:\\{0,3}["'])?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi, needles: ['secret'] },
  { kind: 'azure_storage_key', pattern: /AccountKey=([A-Za-z0-9+/]{86}==)/g, needles: ['AccountKey='] },
  // An Entra ID (Azure AD) client secret carries `Q~` at its fourth character.
  { kind: 'azure_client_secret', pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g, needles: ['Q~'], accept: tokenLike },
  { kind: 'digitalocean_token', pattern: /\bdo[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/g, needles: ['dop_v1_', 'doo_v1_', 'dor_v1_'] },
  { kind: 'databricks_token', pattern: /\bdapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])/g, needles: ['dapi'] },
  // Keyed on the literal `.atlasv1.` (the 14-character id before it is checked behind), so the scan does not try every word.
  { kind: 'terraform_token', pattern: /\.atlasv1\.(?<=(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.)[A-Za-z0-9_=-]{60,}/g, needles: ['.atlasv1.'], before: 14 },
  { kind: 'pulumi_token', pattern: /\bpul-[a-f0-9]{40}(?![A-Za-z0-9])/g, needles: ['pul-'] },
  { kind: 'sendgrid_key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g, needles: ['SG.'] },
  { kind: 'slack_token', pattern: /\b(?:xox[abeoprs]|xoxe\.xox[bp])-[A-Za-z0-9-]{10,}/g, needles: ['xox'] },
  // A webhook URL is itself the credential: whoever holds it can post.
  { kind: 'slack_webhook', pattern: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9_/-]{20,})/g, needles: ['hooks.slack.com/'] },

  // Generic shapes. An assignment's name, sign and value stand on one line: across a line
  // break, `KEYWORDS:` and the next line's code are not a key and its value.
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, needles: ['eyJ'] },
  { kind: 'bearer_token', pattern: /Authorization(?:\\{0,3}["'])?[ \t]*[:=][ \t]*(?:\\{0,3}["'])?Bearer[ \t]+([^\s"',;\\]{4,})/gi, needles: ['authorization'] },
  { kind: 'bearer_token', pattern: /\bBearer[ \t]+([A-Za-z0-9._~+/-]{16,}=*)/g, needles: ['Bearer'], accept: tokenLike },
  {
    kind: 'generic_secret',
    // Bounded name parts keep a long run of word characters from costing quadratic time; the
    // name's start is checked behind, so the scan is keyed on the word (key, secret, ...).
    pattern: /(?:key|secret|token|passw(?:or)?d|pwd|credential)(?<=(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}(?:key|secret|token|passw(?:or)?d|pwd|credential))[A-Za-z0-9_.-]{0,40}(?:\\{0,3}["'])?[ \t]*[:=][ \t]*(?:\\{0,3}["'])?([^\s"'`,;)}\]\\]{16,})/gi,
    needles: ['key', 'secret', 'token', 'passw', 'pwd', 'credential'],
    accept: highEntropy,
  },
];
