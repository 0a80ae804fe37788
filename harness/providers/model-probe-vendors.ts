import { familyName } from '../manifest/manifest.js';

/**
 * The vendor a model id names, read from its prefix, for `harness models` to flag a declared
 * family that disagrees. It is a hint, never a source: the family stays declared by hand in the
 * provider configuration (an id can be a gateway's alias, a fine-tune or a distillation), and the
 * probe only says where the two differ.
 *
 * Rows are tried in order and the first match wins: a gateway's `org/` prefix first (the
 * organisation that published the weights, e.g. `deepseek/deepseek-r1-distill-llama-70b` is
 * DeepSeek's), then the bare model names vendors use.
 */
export interface VendorRule {
  /** What the rule matches, as the table in the README shows it. */
  readonly prefix: string;
  readonly pattern: RegExp;
  /** The family the prefix names. */
  readonly family: string;
  /** Other spellings of the same family a configuration may declare. */
  readonly aliases: readonly string[];
}

const rule = (prefix: string, pattern: RegExp, family: string, aliases: string[] = []): VendorRule => ({ prefix, pattern, family, aliases });

export const VENDOR_RULES: readonly VendorRule[] = [
  rule('openai/', /^openai\//, 'openai'),
  rule('anthropic/', /^anthropic\//, 'anthropic'),
  rule('google/', /^google\//, 'google', ['gemini', 'deepmind', 'google-deepmind']),
  rule('meta-llama/', /^meta(-llama)?\//, 'meta', ['llama', 'meta-llama']),
  rule('mistralai/', /^mistral(ai)?\//, 'mistral', ['mistralai']),
  rule('qwen/', /^qwen\//, 'qwen', ['alibaba']),
  rule('deepseek/', /^deepseek(-ai)?\//, 'deepseek', ['deepseek-ai']),
  rule('x-ai/', /^x-?ai\//, 'xai', ['x-ai']),
  rule('gpt-, o1, o3, o4, chatgpt', /(^|\/)(gpt-|o[134](-|$)|chatgpt)/, 'openai'),
  rule('claude', /(^|\/)claude/, 'anthropic'),
  rule('gemini, gemma', /(^|\/)(gemini|gemma)/, 'google', ['gemini', 'deepmind', 'google-deepmind']),
  rule('llama', /llama/, 'meta', ['llama', 'meta-llama']),
  rule('mistral, mixtral, codestral', /mistral|mixtral|codestral/, 'mistral', ['mistralai']),
  rule('qwen', /qwen/, 'qwen', ['alibaba']),
  rule('deepseek', /deepseek/, 'deepseek', ['deepseek-ai']),
  rule('grok', /(^|\/)grok/, 'xai', ['x-ai']),
];

/** The rule an id's prefix matches, or undefined when it names no known vendor (e.g. a SIMULATED id). */
export function vendorOf(id: string): VendorRule | undefined {
  const lower = id.normalize('NFKC').trim().toLowerCase();
  return VENDOR_RULES.find((r) => r.pattern.test(lower));
}

/**
 * Why `declared` disagrees with the vendor `id` names, or undefined when it agrees, is not
 * declared (not saying is never a disagreement), or the id names no known vendor.
 */
export function familyDisagreement(id: string, declared: string | undefined): string | undefined {
  const vendor = vendorOf(id);
  if (!vendor || declared === undefined) return undefined;
  const name = familyName(declared);
  if (name === vendor.family || vendor.aliases.includes(name)) return undefined;
  return `id "${id}" reads as family ${vendor.family} (prefix ${vendor.prefix}), but family "${declared}" is declared; kept as declared: correct it by hand if the id is right`;
}
