import { describe, expect, it } from 'vitest';
import { durationMs, readRateLimitHeaders } from '../../../engine/index.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('rate-limit headers', () => {
  it('reads OpenAI durations as Go writes them, and plain seconds', () => {
    expect([durationMs('1s'), durationMs('6m0s'), durationMs('20ms'), durationMs('1h2m3.5s'), durationMs('0.5'), durationMs('1.5s')]).toEqual([1000, 360_000, 20, 3_723_500, 500, 1500]);
  });

  it('reads the OpenAI dialect, requests and tokens', () => {
    const headers = new Headers({
      'x-ratelimit-limit-requests': '600', 'x-ratelimit-remaining-requests': '599', 'x-ratelimit-reset-requests': '100ms',
      'x-ratelimit-limit-tokens': '150000', 'x-ratelimit-remaining-tokens': '149000', 'x-ratelimit-reset-tokens': '6m0s',
    });
    expect(readRateLimitHeaders(headers, NOW)).toEqual({ requests: { limit: 600, remaining: 599, resetMs: 100 }, tokens: { limit: 150_000, remaining: 149_000, resetMs: 360_000 } });
  });

  it('reads the Anthropic dialect (RFC 3339 resets), the tighter of tokens and input tokens', () => {
    const headers = new Headers({
      'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '49', 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:01Z',
      'anthropic-ratelimit-tokens-limit': '100000', 'anthropic-ratelimit-tokens-remaining': '90000', 'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:06Z',
      'anthropic-ratelimit-input-tokens-limit': '80000', 'anthropic-ratelimit-input-tokens-remaining': '20000', 'anthropic-ratelimit-input-tokens-reset': '2026-01-01T00:00:45Z',
    });
    expect(readRateLimitHeaders(headers, NOW)).toEqual({ requests: { limit: 50, remaining: 49, resetMs: 1000 }, tokens: { limit: 80_000, remaining: 20_000, resetMs: 45_000 } });
  });

  it('ignores garbage: never NaN, never a negative or absurd figure', () => {
    for (const bad of ['', 'NaN', '-1', '1e400', 'Infinity', '12abc', ' ', '0x10', '9'.repeat(30)]) {
      const headers = new Headers({ 'x-ratelimit-limit-requests': bad, 'x-ratelimit-remaining-requests': bad, 'x-ratelimit-reset-requests': bad });
      expect(readRateLimitHeaders(headers, NOW)).toEqual({});
    }
    // A readable limit with an unreadable reset keeps the counts and drops the reset.
    expect(readRateLimitHeaders(new Headers({ 'x-ratelimit-limit-requests': '10', 'x-ratelimit-remaining-requests': '50', 'x-ratelimit-reset-requests': 'soon' }), NOW)).toEqual({ requests: { limit: 10, remaining: 10, resetMs: null } });
    expect([durationMs('5 minutes'), durationMs('1s2'), durationMs('999999h'), durationMs(null)]).toEqual([null, null, null, null]);
    expect(readRateLimitHeaders(new Headers({ 'anthropic-ratelimit-requests-limit': '5', 'anthropic-ratelimit-requests-remaining': '1', 'anthropic-ratelimit-requests-reset': 'tomorrow' }), NOW)).toEqual({ requests: { limit: 5, remaining: 1, resetMs: null } });
    expect(readRateLimitHeaders(undefined, NOW)).toEqual({});
  });
});
