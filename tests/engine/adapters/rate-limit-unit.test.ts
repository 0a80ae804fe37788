import { describe, expect, it } from 'vitest';
import { rateLimitUnit } from '../../../engine/index.js';

describe('which quota a 429 names, from its words', () => {
  it.each([
    ['Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200.', 'tokens'],
    ['Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.', 'requests'],
    ['Rate limit reached for gpt-4o-mini on tokens per day (TPD): Limit 200000', 'tokens'],
    ['This request would exceed the rate limit for your organization of 40,000 input tokens per minute.', 'tokens'],
    ['Number of request tokens has exceeded your per-minute rate limit', 'tokens'],
    ['Number of requests has exceeded your per-minute rate limit (requests per minute: 50)', 'requests'],
    ['Requests to the ChatCompletions_Create Operation have exceeded token rate limit of your current pricing tier.', 'tokens'],
    ['Requests to the ChatCompletions_Create Operation have exceeded call rate limit of your current pricing tier.', 'requests'],
    ["HTTP 429 (rate_limit_error/rate_limit_exceeded): SIMULATED rate limit: the fault plan's limits.tokens_per_minute bucket is empty; try again in 0.4 s", 'tokens'],
    ["HTTP 429 (rate_limit_error/rate_limit_exceeded): SIMULATED rate limit: the fault plan's limits.requests_per_minute bucket is empty; try again in 0.1 s", 'requests'],
  ])('%s -> %s', (words, unit) => {
    expect(rateLimitUnit(words)).toBe(unit);
  });

  it.each([
    ['slow down'],
    ['Too Many Requests'],
    ["SIMULATED rate limit: this try was drawn for a 429 by the fault plan (rate_limit)"],
    // Both named: no guess.
    ['exceeded 500 requests per minute or 30000 tokens per minute'],
    [''],
  ])('%s -> neither', (words) => {
    expect(rateLimitUnit(words)).toBeUndefined();
  });
});
