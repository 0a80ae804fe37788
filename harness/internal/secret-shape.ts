/**
 * Whether a piece of text looks like a credential. A heuristic, so it only ever decides what is
 * NOT shown or NOT accepted; a field that is credential-adjacent by its name is never shown at
 * all, whatever this says (see schema-problems.ts).
 */

/**
 * Shapes of the API keys and tokens of common vendors: OpenAI, Anthropic and OpenRouter (`sk-`),
 * Stripe-style (`sk_live_`), Groq, xAI, Hugging Face, GitHub's token kinds and fine-grained
 * tokens, GitLab, Google API keys and OAuth access tokens, AWS access key ids, Slack tokens,
 * JWTs. A value in one of these shapes is a pasted key, never the NAME of a variable.
 */
const KEY_SHAPES: readonly RegExp[] = [
  /^sk-[A-Za-z0-9_-]{8,}/,
  /^[spr]k_(live|test)_/,
  /^sk_[A-Za-z0-9]{16,}/,
  /^gsk_[A-Za-z0-9]{8,}/,
  /^xai-[A-Za-z0-9]{8,}/,
  /^hf_[A-Za-z0-9]{8,}/,
  /^gh[pousr]_[A-Za-z0-9]{16,}/,
  /^github_pat_[A-Za-z0-9_]{8,}/,
  /^glpat-[A-Za-z0-9_-]{8,}/,
  /^AIza[A-Za-z0-9_-]{16,}/,
  /^ya29\.[A-Za-z0-9_-]{8,}/,
  /^(AKIA|ASIA)[A-Z0-9]{12,}/,
  /^xox[abposr]-[A-Za-z0-9-]{8,}/,
  /^xapp-[A-Za-z0-9-]{8,}/,
  /^eyJ[A-Za-z0-9_-]{8,}/,
];

/** `Bearer <token>`, `Basic <token>`, `Token <token>` as pasted from an Authorization header. */
const AUTH_SCHEME = /^(bearer|basic|token)\s+\S{8,}/i;

/**
 * A run of key characters with the mix random keys have. Names are made of short words joined
 * by `-`, `_`, `.` or `/` (`claude-3-5-sonnet-20241022`, `OPENROUTER_API_KEY`, `vendor/model`),
 * while keys are one long run: base62 or hex with digits, base64 with both cases, or upper-case
 * base32 with many digits.
 */
function looksRandom(token: string): boolean {
  if (token.length < 20) return false;
  const hasDigit = /[0-9]/.test(token);
  // A slash is also a path's separator, so a token with one needs every mark of a key to count.
  const pathLike = token.includes('/') && !(/[a-z]/.test(token) && /[A-Z]/.test(token) && hasDigit);
  if (/^[A-Za-z0-9+/]+=*$/.test(token) && !pathLike) {
    if (token.length >= 24 && hasDigit && /[A-Za-z]/.test(token)) return true;
    if (token.length >= 32 && /[a-z]/.test(token) && /[A-Z]/.test(token)) return true;
    if (/^[A-Z2-7]+=*$/.test(token) && token.replace(/[^0-9]/g, '').length >= 4) return true;
  }
  // A name's words are short; a 20-character run of letters and digits inside separators is not a word.
  return token.split(/[-_./]/).some((word) => word.length >= 20 && /^[A-Za-z0-9]+$/.test(word) && /[0-9]/.test(word) && /[A-Za-z]/.test(word));
}

/** Characters no key format uses; a value is cut into words at them (`!sk-...`, `KEY=sk-...`). */
const NOT_KEY_CHARS = /[^A-Za-z0-9+/=._~-]+/;

/**
 * True when `value`, or any word in it, looks like a credential rather than a name: a pasted
 * `export OPENAI_API_KEY=sk-...` line counts, not only a bare key.
 */
export function looksLikeSecret(value: string): boolean {
  const trimmed = value.trim();
  if (AUTH_SCHEME.test(trimmed)) return true;
  return [trimmed, ...trimmed.split(NOT_KEY_CHARS)].some((token) => KEY_SHAPES.some((shape) => shape.test(token)) || looksRandom(token));
}

/** What a message shows instead of a value that may be a key: never the key, nor any part of it. */
export const REDACTED = '(a value that looks like an API key; not shown)';

/** Text a library wrote (e.g. a YAML parser's message quoting the file), with every key-like word replaced. */
export function redactSecrets(text: string): string {
  return text.replace(/[A-Za-z0-9+/=._~-]+/g, (word) => (looksLikeSecret(word) ? '(not shown)' : word));
}
