import OpenAI from 'openai';
import {
  type ModelCallError,
  ModelConfigurationError,
  ModelQuotaExhaustedError,
  ModelRateLimitedError,
  ModelResponseInvalidError,
  ModelUnavailableError,
} from '../base/errors.js';
import type { SecretCatalogue } from '../base/secrets.js';
import { meterUsage } from '../base/usage.js';
import { worstCaseUsage, type ModelRequest, type ModelResponse, type ToolCall } from '../ports/model-client.js';

/**
 * The chat-completions wire format, read as hostile input: every field the engine relies on
 * is checked here, so an odd reply becomes a classified error or a flagged figure, never a
 * crash later or a number nobody can trust.
 */

/**
 * A failure, classified: the error to raise, whether another attempt may help, how long the
 * server asked us to wait, the HTTP status when the server answered, and what the attempt came
 * to (`lost`: the request went out and no whole reply came back, so the server may have done,
 * and billed, the work).
 */
export interface Failure {
  error: ModelCallError;
  retryable: boolean;
  retryAfterMs: number | null;
  status: number | null;
  outcome: 'rate_limited' | 'unavailable' | 'lost' | 'refused' | 'malformed';
  /** Why an attempt was lost; null unless `outcome` is `lost`. */
  lost: 'deadline' | 'dropped' | null;
}

/** A failure the server answered (it was not lost on the way). */
function answeredFailure(error: ModelCallError, status: number | null, retryable: boolean, retryAfterMs: number | null = null): Failure {
  const outcome = error instanceof ModelRateLimitedError ? 'rate_limited'
    : error instanceof ModelResponseInvalidError ? 'malformed'
    : error instanceof ModelUnavailableError && retryable ? 'unavailable'
    : 'refused';
  return { error, retryable, retryAfterMs, status, outcome, lost: null };
}

/** The deadline of one attempt passed: raised through the abort signal so it can be told from other aborts. */
export class DeadlinePassed extends Error {
  constructor(readonly ms: number) {
    super(`no complete reply within ${ms} ms`);
  }
}

const RETRYABLE_TYPES = /server_error|overloaded|api_error|timeout|unavailable|internal/i;
const RATE_TYPES = /rate_limit/i;
const QUOTA_TYPES = /insufficient_quota|billing|quota_exceeded/i;
const CONFIG_TYPES = /invalid_api_key|authentication|permission|model_not_found|not_found/i;

/** An upstream error object, as OpenAI-compatible servers send it (in a 4xx/5xx body, or in a 200). */
function upstreamError(
  model: string,
  body: Record<string, unknown>,
  status: number | null,
  retryAfterMs: number | null,
  secrets: SecretCatalogue,
  options?: { cause?: unknown },
): Failure {
  const e = (typeof body.error === 'object' && body.error ? body.error : { message: body.error }) as Record<string, unknown>;
  const kind = [e.type, e.code, e.status].filter((x) => typeof x === 'string' || typeof x === 'number').map(String).join('/');
  const message = secrets.redact(typeof e.message === 'string' && e.message ? e.message : JSON.stringify(e).slice(0, 300));
  const detail = `${status !== null ? `HTTP ${status}` : 'a 200 reply carrying an error'}${kind ? ` (${kind})` : ''}: ${message}`;
  const numeric = Number(e.code ?? e.status);
  if (QUOTA_TYPES.test(kind) || status === 402) return answeredFailure(new ModelQuotaExhaustedError(model, detail, options), status, false);
  if (RATE_TYPES.test(kind) || status === 429) return answeredFailure(new ModelRateLimitedError(model, retryAfterMs, detail, options), status, true, retryAfterMs);
  if (CONFIG_TYPES.test(kind) || status === 401 || status === 403 || status === 404) return answeredFailure(new ModelConfigurationError(model, detail, options), status, false);
  if (RETRYABLE_TYPES.test(kind) || (status ?? numeric) >= 500 || status === 408 || status === 409) {
    return answeredFailure(new ModelUnavailableError(model, detail, options), status, true, retryAfterMs);
  }
  if (status !== null) return answeredFailure(new ModelUnavailableError(model, `the request was refused: ${detail}`, options), status, false);
  return answeredFailure(new ModelResponseInvalidError(model, `upstream error ${detail}`, options), status, false);
}

/** Retry-After (seconds or a date) or retry-after-ms, in milliseconds. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const s = headers?.get('retry-after');
  if (!s) return null;
  if (Number.isFinite(Number(s))) return Math.max(0, Number(s) * 1000);
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Classifies anything an attempt threw. Messages are redacted; the cause keeps no headers or
 * bodies. `status` is the HTTP status of a reply that was read but is not a chat completion.
 */
export function classifyFailure(model: string, thrown: unknown, deadline: DeadlinePassed | null, secrets: SecretCatalogue, status: number | null = null): Failure {
  const options = { cause: secrets.scrubError(thrown) };
  // Passed after the request went out (or while connecting: the client cannot tell which, so it assumes the dearer).
  if (deadline) return { error: new ModelUnavailableError(model, deadline.message, options), retryable: true, retryAfterMs: null, status: null, outcome: 'lost', lost: 'deadline' };
  if (thrown instanceof OpenAI.APIError && thrown.status !== undefined) {
    const body = (thrown.error && typeof thrown.error === 'object' ? { error: thrown.error } : { error: { message: stripStatus(thrown.message, thrown.status) } }) as Record<string, unknown>;
    return upstreamError(model, body, thrown.status, retryAfterMs(thrown.headers), secrets, options);
  }
  if (thrown instanceof OpenAI.APIConnectionError || isNetworkFailure(thrown)) {
    const error = new ModelUnavailableError(model, `the connection failed or dropped mid-reply (${secrets.redact(rootMessage(thrown))})`, options);
    // A connection never made never reached the server: nothing was done there, nothing is owed.
    if (neverConnected(thrown)) return { error, retryable: true, retryAfterMs: null, status: null, outcome: 'unavailable', lost: null };
    return { error, retryable: true, retryAfterMs: null, status: null, outcome: 'lost', lost: 'dropped' };
  }
  if (thrown instanceof ModelResponseInvalidError || thrown instanceof ModelUnavailableError || thrown instanceof ModelRateLimitedError) {
    const retryable = thrown instanceof ModelUnavailableError || thrown instanceof ModelRateLimitedError;
    return answeredFailure(thrown, status, retryable, (thrown as { retryAfterMs?: number | null }).retryAfterMs ?? null);
  }
  if (thrown instanceof ModelQuotaExhaustedError || thrown instanceof ModelConfigurationError) return answeredFailure(thrown, status, false);
  // Not the endpoint's doing: a bug, raised as one, with nothing secret left in it.
  throw secrets.scrubError(thrown);
}

/** The SDK writes "401 Incorrect key": the status is ours to print, once. */
function stripStatus(message: string, status: number): string {
  return message.replace(new RegExp(`^${status}\\s+`), '');
}

/** undici's "terminated" / "fetch failed" and socket errors: the wire broke, the server may be fine. */
function isNetworkFailure(error: unknown): boolean {
  const codes = ['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.includes(code)) return true;
    if (e instanceof TypeError && /terminated|fetch failed|other side closed/i.test(e.message)) return true;
  }
  return false;
}

/** Socket errors that mean no connection was ever made, so the request never left. */
const NEVER_CONNECTED = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'];

function neverConnected(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NEVER_CONNECTED.includes(code)) return true;
  }
  return false;
}

function rootMessage(error: unknown): string {
  let e = error as { message?: string; cause?: unknown };
  for (let depth = 0; e?.cause && depth < 5; depth++) e = e.cause as typeof e;
  return e?.message ?? String(error);
}

/**
 * Tool-call arguments as JSON text whatever shape they came in. An object is stringified; a
 * JSON string whose content is itself the JSON text of an object (encoded twice, as some
 * gateways do) is decoded once, to that text. Anything else passes unchanged, and a non-object
 * reaches the model as an error from the tool loop.
 */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return decodedTwice(value) ?? value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value) ?? String(value);
}

function decodedTwice(text: string): string | null {
  const inner = parsedJson(text);
  if (typeof inner !== 'string') return null;
  const object = parsedJson(inner);
  return object && typeof object === 'object' && !Array.isArray(object) ? inner : null;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function contentText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  // Some servers send content parts; keep their text.
  if (Array.isArray(value)) return value.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('') || null;
  return null;
}

/**
 * Reads a chat completion from the raw body text, whatever content type it was served with.
 * A body that is an error object surfaces that error; usage is parsed as data (numeric strings
 * read as numbers; missing or malformed figures charged the most the call could have cost and
 * flagged `usageUnreadable`; cached above input clamped).
 */
export function parseCompletion(request: ModelRequest, text: string, secrets: SecretCatalogue): ModelResponse {
  const asked = request.model;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelResponseInvalidError(asked, `the body is not JSON (${text.length} characters, starting ${JSON.stringify(secrets.redact(text.slice(0, 80)))})`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ModelResponseInvalidError(asked, 'the body is not a JSON object');
  const b = body as Record<string, unknown>;
  const choice = Array.isArray(b.choices) ? (b.choices[0] as Record<string, unknown> | undefined) : undefined;
  if (b.error && !choice) throw upstreamError(asked, b, null, null, secrets).error;
  const msg = choice && typeof choice.message === 'object' && choice.message ? (choice.message as Record<string, unknown>) : null;
  if (!msg) throw new ModelResponseInvalidError(asked, 'no choices[0].message in the body');
  const calls = Array.isArray(msg.tool_calls) ? (msg.tool_calls as Array<Record<string, unknown>>) : [];
  const toolCalls: ToolCall[] = calls.flatMap((c, i) => {
    const fn = c && typeof c.function === 'object' && c.function ? (c.function as Record<string, unknown>) : null;
    if (!fn || (c.type !== undefined && c.type !== 'function')) return [];
    return [{ id: typeof c.id === 'string' && c.id ? c.id : `call_${i}`, name: typeof fn.name === 'string' ? fn.name : String(fn.name ?? ''), arguments: argumentsText(fn.arguments) }];
  });
  const content = contentText(msg.content);
  const u = b.usage && typeof b.usage === 'object' ? (b.usage as Record<string, unknown>) : undefined;
  const details = u?.prompt_tokens_details && typeof u.prompt_tokens_details === 'object' ? (u.prompt_tokens_details as Record<string, unknown>) : undefined;
  const reported = u && { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens, cachedTokens: details?.cached_tokens ?? 0 };
  const worst = worstCaseUsage(request, { content, toolCalls });
  const metered = meterUsage(reported, worst.usage, worst.charged);
  return {
    content,
    toolCalls,
    usage: metered.usage,
    usageNote: metered.note,
    ...(metered.unreadable ? { usageUnreadable: true } : {}),
    model: typeof b.model === 'string' && b.model ? b.model : asked,
    finishReason: typeof choice!.finish_reason === 'string' ? choice!.finish_reason : null,
  };
}
