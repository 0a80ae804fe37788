import OpenAI from 'openai';
import { z } from 'zod';
import { CALL_HEADER, encodeCallHeader, type SecretCatalogue } from '../../engine/index.js';
import type { CacheFigures, ProbeResult } from './model-probe-record.js';

/**
 * The probe calls `harness models` makes to one model: a one-token call, a tiny tool call, a
 * JSON-format reply and a repeated prefix of about 2,000 tokens. It is a probe, not a client:
 * every call has its own deadline, the SDK's retries are off, and a 429 is retried once (after
 * its Retry-After, at most {@link MAX_429_WAIT_MS}) and never again, so what it reports is what
 * the provider did, not what patience could coax out of it.
 */

/** The longest Retry-After the one retry of a 429 waits. */
export const MAX_429_WAIT_MS = 10_000;
/** The cell the probe's call header names; the simulated server answers it with its generic answerer (its own PROBE_CELL, chat-route.ts: the tests over HTTP fail if the two part). */
export const PROBE_CELL = 'probe';

export interface ProbeTarget {
  readonly client: OpenAI;
  /** The id sent to the endpoint. */
  readonly id: string;
  /** Deadline of each attempt, from sending to the last byte of the reply. */
  readonly deadlineMs: number;
  /** Send the x-rdh-call header (cell `probe`); only for endpoints that are test doubles. */
  readonly callHeader: boolean;
  /** Mark the repeated prefix with a cache_control breakpoint (the entry's cache_breakpoints). */
  readonly cacheBreakpoints: boolean;
  /** Redacts the keys (and anything shaped like one) from every reason. */
  readonly secrets: SecretCatalogue;
  /** Waits before the one retry of a 429. Default: a timer. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What the four probes found for one model. */
export interface ModelProbeFindings {
  latencyMs: number | null;
  answer: ProbeResult;
  tools: ProbeResult;
  json: ProbeResult;
  caching: ProbeResult;
  cache: CacheFigures | null;
  rateLimitHeaders: Record<string, string>;
}

type Body = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** The parts of a reply the probes read; anything else in it is ignored, anything missing is a failed probe. */
const Completion = z.looseObject({
  choices: z
    .array(z.looseObject({ message: z.looseObject({ content: z.string().nullish(), tool_calls: z.array(z.unknown()).nullish() }) }))
    .min(1),
  usage: z
    .looseObject({
      prompt_tokens: z.int().nonnegative(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.int().nonnegative().nullish() }).nullish(),
    })
    .nullish(),
});
type Completion = z.infer<typeof Completion>;

type Sent = { ok: true; reply: Completion; ms: number } | { ok: false; status: number | null; reason: string };

const RATE_HEADER = /^(x-ratelimit-|anthropic-ratelimit-)/i;
const MAX_HEADERS = 40;

/** One line, at most 200 characters, with every secret redacted. */
function oneLine(text: string, secrets: SecretCatalogue): string {
  const flat = secrets.redact(text).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** `HTTP 404 The model ... does not exist`: the SDK's message already leads with the status. */
export function httpReason(status: number, message: string): string {
  return message.startsWith(`${status}`) ? `HTTP ${message}` : `HTTP ${status}: ${message}`;
}

/** A failure with no HTTP answer, with the code of its deepest cause (`fetch failed` alone says nothing; ECONNREFUSED does). */
export function failureText(thrown: unknown): string {
  const parts: string[] = [thrown instanceof Error ? thrown.message : String(thrown)];
  let cause: unknown = thrown instanceof Error ? thrown.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 4; depth++, cause = cause.cause) {
    const code = (cause as Error & { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${cause.message} (${code})` : cause.message);
  }
  return parts.join(': ');
}

/** Wait a 429 asks for: retry-after-ms, else Retry-After in seconds, else 1 s; capped. */
function retryWaitMs(headers: Headers | undefined): number {
  const ms = Number(headers?.get('retry-after-ms'));
  const s = Number(headers?.get('retry-after'));
  const wait = Number.isFinite(ms) && ms >= 0 && headers?.get('retry-after-ms') ? ms : Number.isFinite(s) && s >= 0 && headers?.get('retry-after') ? s * 1000 : 1000;
  return Math.min(wait, MAX_429_WAIT_MS);
}

class Prober {
  readonly headersSeen: Record<string, string> = {};
  constructor(private readonly target: ProbeTarget) {}

  /** Keeps the rate-limit headers of the latest reply that carried any. */
  private note(headers: Headers | undefined): void {
    if (!headers) return;
    const seen = [...headers.entries()].filter(([name]) => RATE_HEADER.test(name)).slice(0, MAX_HEADERS);
    for (const [name, value] of seen) this.headersSeen[name.toLowerCase()] = oneLine(value, this.target.secrets).slice(0, 100);
  }

  private async once(body: Body, probe: string): Promise<Sent & { wait?: number }> {
    const { client, deadlineMs, secrets } = this.target;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    const headers = this.target.callHeader
      ? { [CALL_HEADER]: encodeCallHeader({ cell: PROBE_CELL, node: probe, role: 'worker', attempt: 1, session: `probe/${this.target.id}/${probe}` }) }
      : undefined;
    const started = performance.now();
    try {
      const { data, response } = await client.chat.completions.create(body, { signal: controller.signal, timeout: deadlineMs, ...(headers ? { headers } : {}) }).withResponse();
      const ms = performance.now() - started;
      this.note(response.headers);
      const reply = Completion.safeParse(data);
      if (!reply.success) return { ok: false, status: response.status, reason: `HTTP ${response.status}, but the reply is not a chat completion with choices` };
      return { ok: true, reply: reply.data, ms };
    } catch (thrown) {
      if (controller.signal.aborted) return { ok: false, status: null, reason: `no whole reply within the ${deadlineMs} ms deadline` };
      if (thrown instanceof OpenAI.APIError && thrown.status !== undefined) {
        this.note(thrown.headers);
        return { ok: false, status: thrown.status, reason: oneLine(httpReason(thrown.status, thrown.message), secrets), ...(thrown.status === 429 ? { wait: retryWaitMs(thrown.headers) } : {}) };
      }
      return { ok: false, status: null, reason: oneLine(failureText(thrown), secrets) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** One call; a 429 is retried once, after its wait, and then reported as it came. */
  async send(body: Body, probe: string): Promise<Sent> {
    const first = await this.once(body, probe);
    if (first.ok || first.wait === undefined) return first;
    await (this.target.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))))(first.wait);
    const second = await this.once(body, probe);
    return second.ok ? second : { ...second, reason: `${second.reason} (after one retry of a 429: a probe retries no more)` };
  }
}

/**
 * A provider's refusal of a capability (400, 404, 422: a bad request, an unknown parameter) is
 * a "no", but only when the plain one-token call was answered: otherwise the refusal is of the
 * call itself and says nothing about the capability. Any other failure leaves it unknown.
 */
function refusal(sent: Extract<Sent, { ok: false }>, plainAnswered: boolean): ProbeResult {
  if (![400, 404, 422].includes(sent.status ?? 0)) return { status: 'error', reason: sent.reason };
  return plainAnswered ? { status: 'no', reason: `refused: ${sent.reason}` } : { status: 'error', reason: `${sent.reason} (the one-token call failed too, so this says nothing of the capability)` };
}

const ask = (text: string) => [{ role: 'user' as const, content: text }];

async function probeTools(p: Prober, id: string, plain: boolean): Promise<ProbeResult> {
  const sent = await p.send(
    {
      model: id,
      max_tokens: 64,
      temperature: 0,
      messages: ask('Call the tool echo with text "ping". Do not answer in prose.'),
      tools: [{ type: 'function', function: { name: 'echo', description: 'Echoes its text back.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } }],
    },
    'tools',
  );
  if (!sent.ok) return refusal(sent, plain);
  const calls = sent.reply.choices[0]!.message.tool_calls?.length ?? 0;
  return calls > 0 ? { status: 'yes', detail: `${calls} tool call(s) came back` } : { status: 'no', reason: 'answered without a tool call' };
}

async function probeJson(p: Prober, id: string, plain: boolean): Promise<ProbeResult> {
  const sent = await p.send(
    { model: id, max_tokens: 32, temperature: 0, response_format: { type: 'json_object' }, messages: [{ role: 'system', content: 'Reply in JSON.' }, ...ask('Reply with the JSON object {"ok": true} and nothing else.')] },
    'json',
  );
  if (!sent.ok) return refusal(sent, plain);
  const content = sent.reply.choices[0]!.message.content ?? '';
  try {
    const parsed: unknown = JSON.parse(content);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { status: 'yes' };
  } catch {
    // falls through: accepted, but the reply is not JSON
  }
  return { status: 'no', reason: `response_format accepted, but the reply is not a JSON object (${content.length} characters)` };
}

/**
 * About 2,000 tokens that repeat exactly, so a provider that caches prompts by prefix serves the
 * second call from cache (OpenAI-style caches need 1,024 tokens and count in 128-token blocks).
 */
const CACHE_PREFIX = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of the repeated prefix: harness models sends this same text twice to see whether the provider caches it.`).join('\n');

async function probeCaching(p: Prober, target: ProbeTarget, plain: boolean): Promise<{ caching: ProbeResult; cache: CacheFigures | null }> {
  const system = target.cacheBreakpoints ? [{ type: 'text', text: CACHE_PREFIX, cache_control: { type: 'ephemeral' } }] : CACHE_PREFIX;
  const body = { model: target.id, max_tokens: 1, temperature: 0, messages: [{ role: 'system', content: system }, ...ask('Reply with the single word: ok')] } as Body;
  const first = await p.send(body, 'cache-1');
  if (!first.ok) return { caching: refusal(first, plain), cache: null };
  const second = await p.send(body, 'cache-2');
  if (!second.ok) return { caching: refusal(second, plain), cache: null };
  const usage = second.reply.usage;
  if (!usage) return { caching: { status: 'no', reason: 'the reply reports no usage' }, cache: null };
  const cached = usage.prompt_tokens_details?.cached_tokens ?? null;
  const share = cached === null || usage.prompt_tokens === 0 ? null : Math.min(1, cached / usage.prompt_tokens);
  const cache = { prompt_tokens: usage.prompt_tokens, cached_tokens: cached, share };
  if (cached === null) return { caching: { status: 'no', reason: 'usage.prompt_tokens_details.cached_tokens is absent' }, cache };
  if (cached === 0) return { caching: { status: 'no', reason: `0 of ${usage.prompt_tokens} prompt tokens cached on the second call` }, cache };
  return { caching: { status: 'yes', detail: `${cached} of ${usage.prompt_tokens} prompt tokens cached` }, cache };
}

/** Runs the four probes on one model, one call after another (a probe should not spend a rate limit). */
export async function probeModel(target: ProbeTarget): Promise<ModelProbeFindings> {
  const p = new Prober(target);
  const first = await p.send({ model: target.id, max_tokens: 1, temperature: 0, messages: ask('Reply with the single word: ok') }, 'answer');
  const answer: ProbeResult = first.ok ? { status: 'yes' } : { status: 'error', reason: first.reason };
  const tools = await probeTools(p, target.id, first.ok);
  const json = await probeJson(p, target.id, first.ok);
  const { caching, cache } = await probeCaching(p, target, first.ok);
  return { latencyMs: first.ok ? Math.round(first.ms) : null, answer, tools, json, caching, cache, rateLimitHeaders: p.headersSeen };
}
