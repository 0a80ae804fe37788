/**
 * Which quota a rate-limit refusal says it hit, from its words. Providers that send no
 * rate-limit headers still name the quota in the 429's message: OpenAI "on tokens per min
 * (TPM)" or "on requests per min (RPM)", Anthropic "input tokens per minute" or "Number of
 * request tokens has exceeded", Azure "token rate limit" or "call rate limit", the SIMULATED
 * server `limits.tokens_per_minute`. The rate controller learns a pace in that unit
 * (rate-controller.ts). Words that name both quotas, or neither, give undefined: the controller
 * then learns a pace in requests, as it would with no words at all.
 */
const TOKENS = /\btokens?[ _-]*(?:per|\/|a)[ _-]*(?:min|minute|second|sec|day)\b|\btp[msd]\b|\btoken rate limit|\b(?:input|output|request|prompt|completion) tokens\b/i;
const REQUESTS = /\brequests?[ _-]*(?:per|\/|a)[ _-]*(?:min|minute|second|sec|day)\b|\brp[msd]\b|\b(?:call|request) rate limit/i;

export function rateLimitUnit(words: string): 'requests' | 'tokens' | undefined {
  const tokens = TOKENS.test(words);
  const requests = REQUESTS.test(words);
  return tokens === requests ? undefined : tokens ? 'tokens' : 'requests';
}
