/**
 * The rate-limit headers hosted providers send, read as hostile input: a header that is
 * missing, empty, negative, non-numeric or absurd is ignored, never turned into NaN. Two
 * dialects:
 * - OpenAI (and most OpenAI-compatible gateways): `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`,
 *   the reset as a Go-style duration ("1s", "6m0s", "20ms", "1h2m3.5s") or plain seconds;
 * - Anthropic: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 *   the reset as an RFC 3339 time.
 */

/** One quota as the provider reports it after a reply. */
export interface QuotaReading {
  /** The most the quota allows per window (both dialects document a minute). */
  limit: number;
  /** What is left of it now. */
  remaining: number;
  /** Milliseconds until it is full again; null when the reset is absent or unreadable. */
  resetMs: number | null;
}

/** The quotas one reply reported; a dimension is absent when its headers are absent or unreadable. */
export interface RateLimitReading {
  requests?: QuotaReading;
  tokens?: QuotaReading;
}

/** Counts above this are not a quota anyone sends (and would lose precision). */
const MOST = 1e12;
/** A reset further away than a day is not a per-minute quota's: ignored. */
const LONGEST_RESET_MS = 86_400_000;

/** A non-negative whole count, or null. */
function count(text: string | null): number | null {
  if (text === null) return null;
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) && n <= MOST ? Math.floor(n) : null;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };

/** A Go-style duration ("6m0s", "20ms", "1.5s") or plain seconds ("2", "0.5"), in ms; null if unreadable. */
export function durationMs(text: string | null): number | null {
  if (text === null) return null;
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return bounded(Number(t) * 1000);
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(t)) return null;
  let ms = 0;
  for (const [, n, , unit] of t.matchAll(/(\d+(\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) ms += Number(n) * UNIT_MS[unit!]!;
  return bounded(ms);
}

function bounded(ms: number): number | null {
  return Number.isFinite(ms) && ms >= 0 && ms <= LONGEST_RESET_MS ? Math.ceil(ms) : null;
}

/** An RFC 3339 time, as milliseconds from `now`; null if unreadable (or absurdly far). */
function untilMs(text: string | null, now: number): number | null {
  if (text === null || !/^\d{4}-\d{2}-\d{2}T/.test(text.trim())) return null;
  const at = Date.parse(text.trim());
  return Number.isNaN(at) ? null : bounded(Math.max(0, at - now));
}

function reading(limit: number | null, remaining: number | null, resetMs: number | null): QuotaReading | undefined {
  if (limit === null || remaining === null || limit < 1) return undefined;
  return { limit, remaining: Math.min(remaining, limit), resetMs };
}

/** The tighter of two readings of one dimension (Anthropic's tokens and input-tokens). */
function tighter(a: QuotaReading | undefined, b: QuotaReading | undefined): QuotaReading | undefined {
  if (!a || !b) return a ?? b;
  return a.remaining / a.limit <= b.remaining / b.limit ? a : b;
}

/** The quotas a reply's headers report, in either dialect; `{}` when there are none. `now` reads RFC 3339 resets. */
export function readRateLimitHeaders(headers: Headers | undefined, now: number): RateLimitReading {
  if (!headers) return {};
  const out: RateLimitReading = {};
  for (const dim of ['requests', 'tokens'] as const) {
    const openai = reading(count(headers.get(`x-ratelimit-limit-${dim}`)), count(headers.get(`x-ratelimit-remaining-${dim}`)), durationMs(headers.get(`x-ratelimit-reset-${dim}`)));
    const anthropic = (name: string) =>
      reading(count(headers.get(`anthropic-ratelimit-${name}-limit`)), count(headers.get(`anthropic-ratelimit-${name}-remaining`)), untilMs(headers.get(`anthropic-ratelimit-${name}-reset`), now));
    // Anthropic counts input tokens apart from output ones; the input quota is the one a request's estimate spends first.
    const found = dim === 'requests' ? (openai ?? anthropic('requests')) : (openai ?? tighter(anthropic('tokens'), anthropic('input-tokens')));
    if (found) out[dim] = found;
  }
  return out;
}
