/**
 * Prefixes that API keys and tokens of common vendors start with. A configuration value that
 * starts with one is almost certainly a pasted key, never the NAME of a variable holding one.
 */
const KEY_PREFIXES = ['sk-', 'sk_', 'rk_', 'gsk_', 'xai-', 'hf_', 'ghp_', 'gho_', 'github_pat_', 'glpat-', 'AIza', 'AKIA', 'Bearer ', 'eyJ'];

/**
 * True when `value` looks like a credential rather than a name. Deliberately conservative on
 * the other side too: variable names are conventionally upper case, so a long run of letters
 * and digits that has lower-case letters and digits is treated as a key (hex and base62 keys
 * look like that; `OPENROUTER_API_KEY` does not).
 */
export function looksLikeSecret(value: string): boolean {
  if (KEY_PREFIXES.some((prefix) => value.startsWith(prefix))) return true;
  return value.length >= 24 && /^[A-Za-z0-9_-]+$/.test(value) && /[0-9]/.test(value) && /[a-z]/.test(value);
}

/** What an error message shows instead of a value that may be a key: never the key itself. */
export const REDACTED = '(a value that looks like an API key; not shown)';
