import path from 'node:path';
import { z } from 'zod';
import { readDataFile } from '../../internal/data-file.js';
import { ProblemListError } from '../../internal/problem-list-error.js';

/**
 * The fault plan of `harness sim serve`: what a hosted provider does to a client that a
 * well-behaved local server never does (429s, slow replies, refused connections, 5xx bursts,
 * per-minute quotas), so the paid path's retries and patience can be tested without paying.
 * This file is the only definition of the format. Every random choice is a pure function of
 * the seed and the call's identity (see fault-draws.ts), so a sweep sees the same faults
 * however its requests interleave.
 *
 * Room to grow, on purpose: a later format adds `limits.headers` (x-ratelimit-* headers on
 * every reply, as hosted providers send them) and a top-level `caching` section (a share of the
 * prompt reported as cached_tokens) beside these sections; neither exists yet, so both are
 * refused as unknown fields today rather than silently ignored.
 */

const Seconds = (what: string) => z.number().nonnegative().describe(what);

export const LatencyPlan = z
  .object({
    distribution: z
      .enum(['fixed', 'uniform', 'lognormal'])
      .describe('`fixed`: `ms` every time. `uniform`: between `min_ms` and `max_ms`. `lognormal`: `median_ms` with spread `sigma` (a long right tail, as real endpoints have). No default.')
      .meta({ examples: ['uniform'] }),
    ms: z.number().nonnegative().optional().describe('With fixed: milliseconds added before every reply.').meta({ examples: [20] }),
    min_ms: z.number().nonnegative().optional().describe('With uniform: the shortest delay, in milliseconds.').meta({ examples: [10] }),
    max_ms: z.number().nonnegative().optional().describe('With uniform: the longest delay, in milliseconds.').meta({ examples: [50] }),
    median_ms: z.number().positive().optional().describe('With lognormal: the median delay, in milliseconds.').meta({ examples: [300] }),
    sigma: z.number().nonnegative().max(5).optional().describe('With lognormal: the standard deviation of the log of the delay (0.5 is a moderate tail).').meta({ examples: [0.5] }),
  })
  .strict()
  .superRefine((l, ctx) => {
    const need: Record<typeof l.distribution, Array<'ms' | 'min_ms' | 'max_ms' | 'median_ms' | 'sigma'>> = { fixed: ['ms'], uniform: ['min_ms', 'max_ms'], lognormal: ['median_ms', 'sigma'] };
    for (const field of ['ms', 'min_ms', 'max_ms', 'median_ms', 'sigma'] as const) {
      const wanted = need[l.distribution]?.includes(field);
      if (wanted && l[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `missing: distribution ${l.distribution} needs ${need[l.distribution].join(' and ')}; add ${field}` });
      if (!wanted && l[field] !== undefined && need[l.distribution]) ctx.addIssue({ code: 'custom', path: [field], message: `not used by distribution ${l.distribution} (it takes ${need[l.distribution].join(' and ')}); remove it` });
    }
    if (l.min_ms !== undefined && l.max_ms !== undefined && l.min_ms > l.max_ms) ctx.addIssue({ code: 'custom', path: ['max_ms'], message: `is below min_ms (${l.min_ms}); swap them` });
  })
  .describe('Delay added before every reply to a well-formed request (429s and 5xx included, as a real endpoint takes time to refuse too). Default: none.')
  .meta({ examples: [{ distribution: 'uniform', min_ms: 10, max_ms: 50 }] });
export type LatencyPlan = z.infer<typeof LatencyPlan>;

export const RateLimitPlan = z
  .object({
    share: z.number().min(0).max(1).describe('Share of requests answered 429 instead of being answered, from 0 to 1. Each try of a call draws anew. No default.').meta({ examples: [0.2] }),
    retry_after_s: Seconds('Seconds the 429 asks the client to wait (Retry-After, and retry-after-ms beside it); may be fractional. No default.').meta({ examples: [0.5] }),
  })
  .strict()
  .describe('Rate-limit refusals drawn at random, as a busy provider sends them whatever your own rate. Default: none.')
  .meta({ examples: [{ share: 0.2, retry_after_s: 0.5 }] });
export type RateLimitPlan = z.infer<typeof RateLimitPlan>;

export const LimitsPlan = z
  .object({
    requests_per_minute: z.int().positive().optional().describe('Requests answered in any sliding minute before the next is answered 429. Default: no limit.').meta({ examples: [60] }),
    tokens_per_minute: z.int().positive().optional().describe('Tokens (prompt + completion of answered requests) in any sliding minute before the next request is answered 429. Default: no limit.').meta({ examples: [200000] }),
  })
  .strict()
  .describe('Per-minute quotas answered with 429s as hosted providers do; Retry-After says when the sliding minute frees room. Only answered requests count. Default: none.')
  .meta({ examples: [{ requests_per_minute: 60, tokens_per_minute: 200000 }] });
export type LimitsPlan = z.infer<typeof LimitsPlan>;

export const FaultWindow = z
  .object({
    fault: z
      .enum(['outage', 'http_error'])
      .describe('`outage`: connections are refused (the listening socket is closed, so connects get ECONNREFUSED), then the port listens again. `http_error`: every request is answered with `status`. No default.')
      .meta({ examples: ['outage'] }),
    status: z.int().min(500, 'must be a 5xx status (500 to 599: 429s come from rate_limit and limits)').max(599, 'must be a 5xx status (500 to 599)').optional().describe('With http_error: the status to answer with, e.g. 500, 502 or 503.').meta({ examples: [503] }),
    after_requests: z.int().nonnegative().optional().describe('Start once this many chat requests have been received (deterministic; what tests use). An outage lets the last of them be answered first.').meta({ examples: [20] }),
    after_s: z.number().nonnegative().optional().describe('Start this many seconds after the server started.').meta({ examples: [30] }),
    for_s: z.number().positive().optional().describe('Last this many seconds.').meta({ examples: [5] }),
    for_requests: z.int().positive().optional().describe('With http_error: last this many requests.').meta({ examples: [5] }),
  })
  .strict()
  .superRefine((w, ctx) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    if (w.after_requests === undefined && w.after_s === undefined) issue('after_requests', 'missing: say when the window starts, e.g. after_requests: 20 or after_s: 30');
    if (w.after_requests !== undefined && w.after_s !== undefined) issue('after_s', 'the window already starts at after_requests; keep one of the two');
    if (w.for_s === undefined && w.for_requests === undefined) issue('for_s', `missing: say how long the window lasts, e.g. for_s: 5${w.fault === 'http_error' ? ' or for_requests: 5' : ''}`);
    if (w.for_s !== undefined && w.for_requests !== undefined) issue('for_requests', 'the window already lasts for_s; keep one of the two');
    if (w.fault === 'outage' && w.for_requests !== undefined && w.for_s === undefined) issue('for_requests', 'an outage refuses connections, so no request reaches the server to end it; use for_s');
    if (w.fault === 'outage' && w.status !== undefined) issue('status', 'an outage answers nothing; remove status, or make it fault: http_error');
    if (w.fault === 'http_error' && w.status === undefined) issue('status', 'missing: say which status the burst answers with, e.g. status: 503');
  });
export type FaultWindow = z.infer<typeof FaultWindow>;

export const FaultPlan = z
  .object({
    version: z.literal(1).describe('Format version. Always 1. No default.').meta({ examples: [1] }),
    seed: z.int().nonnegative().describe('Seed of every random choice (which tries get a 429, each delay). The same seed and the same calls give the same faults, in any arrival order. No default.').meta({ examples: [7] }),
    latency: LatencyPlan.optional(),
    rate_limit: RateLimitPlan.optional(),
    limits: LimitsPlan.optional(),
    windows: z
      .array(FaultWindow)
      .default([])
      .describe('Outages and 5xx bursts, each starting at a request count or a time and lasting seconds or requests. Default none.')
      .meta({ examples: [[{ fault: 'outage', after_requests: 20, for_s: 5 }]] }),
  })
  .strict()
  .meta({ title: 'recursion-depth harness fault plan', description: 'What harness sim serve does to its clients: 429s, latency, outages, 5xx bursts, per-minute limits.' });
export type FaultPlan = z.infer<typeof FaultPlan>;

/** The fault plan cannot be used as written. One line per problem, each naming the field and the fix. */
export class FaultPlanInvalidError extends ProblemListError {
  readonly code = 'fault_plan_invalid';
}

/** A fault plan that passed every check, with how to name its file. */
export interface LoadedFaultPlan {
  readonly plan: FaultPlan;
  readonly file: string;
  readonly shownAs: string;
}

/** Reads and validates a fault plan file; throws FaultPlanInvalidError with every problem at once. */
export async function loadFaultPlan(file: string): Promise<LoadedFaultPlan> {
  const result = await readDataFile(path.resolve(file), { shownAs: file, schema: FaultPlan, what: 'fault plan', starter: 'copy manifests/faults.example.yaml to start' });
  if (!result.ok) throw new FaultPlanInvalidError(result.lines);
  return { plan: result.value, file: path.resolve(file), shownAs: file };
}
