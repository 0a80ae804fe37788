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
 * Version 2 (this one) is a provider model as well as a fault list: `limits` are token buckets
 * with a burst allowance and OpenAI-style x-ratelimit-* headers on every reply (switchable
 * off), `caching` reports a longest-common-prefix share of the prompt as cached_tokens, and
 * `capabilities` switches off tools or JSON mode. Version 1 files still load: their `limits`
 * (then a sliding minute) are read as buckets holding a whole minute's allowance, which keeps
 * the sustained rate and the first minute the same, and they get no headers, as before; the new
 * sections need `version: 2`, so a version-1 file means what it meant when written.
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
    retry_after_s: z
      .union([z.number().nonnegative(), z.tuple([z.number().nonnegative(), z.number().nonnegative()])])
      .refine((v) => typeof v === 'number' || v[0] <= v[1], { message: 'is a [min, max] range whose min is above its max; swap them' })
      .describe('Seconds the 429 asks the client to wait (Retry-After, and retry-after-ms beside it); may be fractional. A number: that wait every time. A `[min, max]` range: each refusal draws its wait uniformly from it, seeded by the plan\'s seed and the try (as a provider\'s Retry-After varies), to the millisecond. No default.')
      .meta({ examples: [0.5, [1, 5]] }),
  })
  .strict()
  .describe('Rate-limit refusals drawn at random, as a busy provider sends them whatever your own rate. Default: none.')
  .meta({ examples: [{ share: 0.2, retry_after_s: 0.5 }] });
export type RateLimitPlan = z.infer<typeof RateLimitPlan>;

export const LimitsPlan = z
  .object({
    requests_per_minute: z.int().positive().optional().describe('Requests admitted per minute, sustained: a bucket refilled continuously at this rate. A request finding it empty is answered 429. Default: no limit.').meta({ examples: [600] }),
    tokens_per_minute: z.int().positive().optional().describe('Tokens (prompt + completion, as the server counts them) admitted per minute, sustained: a second bucket like the first. Default: no limit.').meta({ examples: [200000] }),
    burst: z
      .number()
      .positive()
      .max(1)
      .optional()
      .describe('What a full bucket holds, as a share of the minute\'s allowance (0.1 = six seconds\' worth): the burst admitted at once after an idle spell. At least one request. Default: 1, a whole minute, the most a provider lets through at once.')
      .meta({ examples: [0.1] }),
    headers: z
      .union([z.boolean(), z.enum(['openai', 'anthropic'])])
      .optional()
      .describe('Rate-limit headers on every chat reply, 429s included. true or `openai`: x-ratelimit-{limit,remaining,reset}-{requests,tokens}, resets as durations ("1s", "6m0s", "120ms"). `anthropic`: anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}, resets as RFC 3339 times. false: none, so a client must find the limit from 429s alone. Needs version 2. Default: true in version 2 (version 1 never sent them).')
      .meta({ examples: [true] }),
  })
  .strict()
  .describe('Per-minute quotas as hosted providers enforce them: token buckets, refilled continuously, answered 429 with Retry-After (the time until the bucket holds the request) once empty. A request reserves its prompt tokens (characters / 4 of what it sends) when admitted, then is charged what it was answered with (its prompt and completion tokens) once answered: see rate-buckets.ts. Default: none.')
  .meta({ examples: [{ requests_per_minute: 600, tokens_per_minute: 200000, burst: 0.1, headers: true }] });
export type LimitsPlan = z.infer<typeof LimitsPlan>;

export const CachingPlan = z
  .object({
    min_tokens: z.int().positive().optional().describe('Shortest cached prefix reported: below it cached_tokens is 0. Default: 1024, as OpenAI.').meta({ examples: [1024] }),
    block_tokens: z.int().positive().optional().describe('Prefixes are cached and reported in whole blocks of this many tokens. Default: 128, as OpenAI.').meta({ examples: [128] }),
    max_blocks: z.int().positive().optional().describe('Blocks the store keeps, least recently used dropped first (32 bytes of hash each). Default: 65536.').meta({ examples: [65536] }),
  })
  .strict()
  .describe('Prompt caching by longest common prefix: once a request was answered, its prompt prefix (tools, then messages, serialized; 4 characters a token) is kept, and a later request to the same model sharing it is told usage.prompt_tokens_details.cached_tokens. With caching on, prompt_tokens is also counted as characters / 4 of the prompt, as a tokenizer would. Needs version 2. Default: off, no cached tokens ever, and usage equals the in-process population\'s.')
  .meta({ examples: [{ min_tokens: 1024, block_tokens: 128 }] });
export type CachingPlan = z.infer<typeof CachingPlan>;

export const CapabilitiesPlan = z
  .object({
    tools: z.boolean().optional().describe('false: a request offering tools is answered 400, as vLLM without tool parsing or Ollama with a model lacking tools do. Default: true.').meta({ examples: [false] }),
    json_mode: z.boolean().optional().describe('false: a request asking response_format json_object or json_schema is answered 400, as OpenAI answers it for a model without JSON mode. Default: true.').meta({ examples: [false] }),
  })
  .strict()
  .describe('What the served models support, for testing a capability probe (harness models). Needs version 2. Default: everything.')
  .meta({ examples: [{ tools: false, json_mode: false }] });
export type CapabilitiesPlan = z.infer<typeof CapabilitiesPlan>;

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
    version: z.union([z.literal(1), z.literal(2)]).describe('Format version: 2 (1 still loads; see the top of fault-plan.ts for what it means). No default.').meta({ examples: [2] }),
    seed: z.int().nonnegative().describe('Seed of every random choice (which tries get a 429, each delay). The same seed and the same calls give the same faults, in any arrival order. No default.').meta({ examples: [7] }),
    latency: LatencyPlan.optional(),
    rate_limit: RateLimitPlan.optional(),
    limits: LimitsPlan.optional(),
    caching: CachingPlan.optional(),
    capabilities: CapabilitiesPlan.optional(),
    windows: z
      .array(FaultWindow)
      .default([])
      .describe('Outages and 5xx bursts, each starting at a request count or a time and lasting seconds or requests. Default none.')
      .meta({ examples: [[{ fault: 'outage', after_requests: 20, for_s: 5 }]] }),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.version !== 1) return;
    const newer = [p.limits?.burst !== undefined && 'limits.burst', p.limits?.headers !== undefined && 'limits.headers', p.caching && 'caching', p.capabilities && 'capabilities'].filter((f): f is string => typeof f === 'string');
    for (const field of newer) ctx.addIssue({ code: 'custom', path: field.split('.'), message: `is a version 2 field; set version: 2 (see manifests/faults.example.yaml)` });
  })
  .meta({ title: 'recursion-depth harness fault plan', description: 'What harness sim serve does to its clients: 429s, latency, outages, 5xx bursts, per-minute limits with rate-limit headers, prompt caching, capabilities.' });
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
