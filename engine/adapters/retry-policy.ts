import { ModelRateLimitedError, restated, type ModelCallError } from '../base/errors.js';
import type { Failure } from './openai-wire.js';
import type { ProviderPatience } from './provider-patience.js';

/**
 * Whether a failed attempt is tried again, and after how long. Retryable failures are retried
 * within the provider's shared patience, with capped exponential backoff, or after the wait the
 * server asked for. Refusals (quota, key, unknown model, other 4xx) and malformed replies are
 * never retried: another attempt would fail the same way and may cost money.
 */

/**
 * How a server-requested wait (Retry-After, retry-after-ms) is treated.
 * - `'patience'`: slept through when it fits in what is left of the provider's patience; one
 *   beyond it ends the call at once, as rate limited. For a sweep, whose models are fixed.
 * - `{ maxMs }`: one longer than `maxMs` ends the call at once, as rate limited, carrying the
 *   wait, so a router with other models cools this one down and falls back (`harness solve`).
 *   Shorter ones are slept through within the patience as above.
 */
export type ServerWaits = 'patience' | { maxMs: number };

/** Backoff between attempts the server set no wait for: 0.5 s doubling, capped at 30 s, each ±25 %. */
export const BACKOFF = { firstMs: 500, capMs: 30_000, jitter: 0.25 } as const;

/** The backoff before attempt `attempt + 1` (`attempt` is 1-based); `random` in [0, 1). */
export function backoffMs(attempt: number, random: () => number): number {
  const base = Math.min(BACKOFF.capMs, BACKOFF.firstMs * 2 ** (attempt - 1));
  return Math.round(base * (1 + (random() * 2 - 1) * BACKOFF.jitter));
}

export interface RetryContext {
  /** The provider, as messages name it. */
  provider: string;
  /** 1-based number of the attempt that failed. */
  attempt: number;
  /** Attempts the call may make at most. */
  maxAttempts: number;
  /** The clock's time when the attempt failed, ms since the epoch. */
  now: number;
  patience: ProviderPatience;
  serverWaits: ServerWaits;
  random: () => number;
  /** Redacts what a new message adds (a provider name is the user's own text). */
  redact: (text: string) => string;
}

/** Sleep this long and try again, or end the call with this error. */
export type NextStep = { wait: number; end?: never } | { end: ModelCallError; wait?: never };

/** What follows a failed attempt. A retryable failure counts against the provider's patience. */
export function nextStep(failure: Failure, ctx: RetryContext): NextStep {
  const { error } = failure;
  if (!failure.retryable) return { end: error };
  ctx.patience.failed(ctx.now);
  if (ctx.attempt >= ctx.maxAttempts) return { end: error };
  const failingFor = ctx.patience.failingForMs(ctx.now);
  const left = ctx.patience.leftMs(ctx.now);
  const outage = `${ctx.provider} has been failing for ${duration(failingFor)}`;
  if (left <= 0) {
    const detail = `${outage}, which spends its patience of ${duration(ctx.patience.patienceMs)} (attempt ${ctx.attempt} of this call); last: ${error.detail}`;
    return { end: restated(error, { detail: ctx.redact(detail) }) };
  }
  const asked = failure.retryAfterMs;
  // A wait of 0 says nothing about how long to wait: back off as if none was asked for.
  if (asked === null || asked <= 0) return { wait: Math.min(backoffMs(ctx.attempt, ctx.random), left) };
  const cause = error.cause === undefined ? {} : { cause: error.cause };
  if (typeof ctx.serverWaits === 'object' && asked > ctx.serverWaits.maxMs) {
    return { end: new ModelRateLimitedError(error.model, asked, ctx.redact(`the server asked for a wait longer than the ${ctx.serverWaits.maxMs} ms this client sleeps; ${error.detail}`), cause) };
  }
  if (asked > left) {
    const detail = `the server asked for a wait of ${duration(asked)}, more than the ${duration(left)} left of the patience (${outage} of ${duration(ctx.patience.patienceMs)}); ${error.detail}`;
    return { end: new ModelRateLimitedError(error.model, asked, ctx.redact(detail), cause) };
  }
  return { wait: asked };
}

/** Milliseconds as a person reads them: "0.5 s", "600 s". */
export function duration(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
