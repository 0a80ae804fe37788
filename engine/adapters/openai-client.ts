import OpenAI from 'openai';
import { restated } from '../base/errors.js';
import { SecretCatalogue } from '../base/secrets.js';
import { addUsage, ZERO_USAGE, type Unreceived } from '../base/usage.js';
import type { AttemptOutcome } from '../ports/attempt-outcome.js';
import type { AttemptReport, RateControl } from '../ports/rate-control.js';
import { CALL_HEADER, callIdentityOf, encodeCallHeader } from '../ports/call-identity.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { worstCaseUsage, type ChatMessage, type ModelClient, type ModelRequest, type ModelResponse } from '../ports/model-client.js';
import { contentWithBreakpoints } from './cache-breakpoints.js';
import { isLoopbackUrl } from './loopback-url.js';
import { DeadlinePassed, classifyFailure, parseCompletion, type Failure } from './openai-wire.js';
import { ProviderPatience } from './provider-patience.js';
import { rateLimitUnit } from './rate-limit-unit.js';
import { nextStep, type NextStep, type ServerWaits } from './retry-policy.js';

/** Output a permit expects of a client's first call, before any has been answered. */
const FIRST_OUTPUT_GUESS = 1024;

/** How long a provider may keep failing before its calls give up, when nobody says: ten minutes. */
export const DEFAULT_PATIENCE_MS = 600_000;

export interface OpenAIModelClientOptions {
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1` or `http://localhost:8000/v1`. */
  baseURL: string;
  /** The key itself (read from the environment by the caller; never from a file). */
  apiKey: string;
  /** The provider's name, as error messages give it. Default: the base URL's host. */
  provider?: string;
  /**
   * How long the provider may keep failing (refused or dropped connections, passed deadlines,
   * 5xx, 429) before a call gives up, counted from the first failure of the current outage and
   * SHARED by every call made through this client (an answer ends the outage). Give one object
   * per provider. Default: a patience of {@link DEFAULT_PATIENCE_MS} of this client's own.
   */
  patience?: ProviderPatience;
  /**
   * At most this many further attempts after the first, whatever patience is left. Default: no
   * cap; the patience alone bounds the retries.
   */
  maxRetries?: number;
  /**
   * Deadline of one attempt, from sending the request to the last byte of the body. A server
   * that sends headers and then stalls is cut off here (and its socket closed), and the attempt
   * is charged as unreceived: the server may have done the work. Default 120 000 ms.
   */
  callDeadlineMs?: number;
  /**
   * How a server-requested wait (Retry-After, retry-after-ms) is treated: `'patience'` sleeps
   * through one that fits in the patience left and ends the call on a longer one; `{ maxMs }`
   * also ends it on one longer than `maxMs`, so a router can fall back. Default `'patience'`.
   */
  serverWaits?: ServerWaits;
  /**
   * Send the call header (`x-rdh-call`, see call-identity.ts) on every request whose call names
   * its cell. It tells a system under test the experiment's design. Default: true only when
   * the base URL is loopback (localhost, 127.0.0.0/8, ::1).
   */
  sessionHeader?: boolean;
  /**
   * Told what every attempt came to, once per attempt, before the client sleeps or gives up (an
   * adaptive rate controller counts the 429s). It must not throw: an exception ends the call
   * as a bug. Default: nobody is told.
   */
  onAttempt?: (outcome: AttemptOutcome) => void;
  /** Send `response_format: json_object` when a JSON reply is wanted. Some servers reject it. Default true. */
  jsonMode?: boolean;
  /**
   * The rate controller of this client's provider key (engine/adapters/rate-controller.ts),
   * shared by every client of that key: a permit is taken before EVERY attempt, estimated at
   * the most the call may use (prompt counted high plus its output bound), and released with
   * what the attempt came to and the reply's headers as soon as it ends, before any retry wait
   * is slept. Default: none, attempts go out as soon as they are made.
   */
  rateControl?: RateControl;
  /** Sleeps between attempts and times the patience. Default: the system clock. */
  clock?: Clock;
  /** The jitter of the backoff, uniform in [0, 1). Default `Math.random` (tests fix it). */
  random?: () => number;
  /** Redacts secrets from every error. Default: the shape catalogue plus `apiKey` itself. */
  secrets?: SecretCatalogue;
  /**
   * Send explicit prompt-cache breakpoints (`cache_control`) where a message's repeated part
   * ends (see cache-breakpoints.ts), for providers that cache only where told to. Default false:
   * messages go as plain strings.
   */
  cacheBreakpoints?: boolean;
}

type OpenAIMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** One message on the wire; `content` is its text, or its text parts when it carries a cache breakpoint. */
function toOpenAI(m: ChatMessage, content: ReturnType<typeof contentWithBreakpoints>[number]): OpenAIMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: content ?? m.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls?.length
          ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}

/** One attempt: the answer and its status, or the failure classified; the reply's headers when one came. */
type Attempt = ({ response: ModelResponse; status: number; failure?: never } | { failure: Failure; response?: never }) & { headers?: Headers };

/**
 * The ModelClient adapter for any OpenAI-compatible chat-completions endpoint, on the openai
 * SDK. It owns the retries (the SDK's are off) so that every attempt has a deadline covering
 * the body, retries last as long as the provider's shared patience and no longer, a long
 * server-requested wait is not slept through, and failures the SDK does not know (an error
 * object in a 200, a connection dropped mid-body) are classified and retried the same way.
 * Attempts the server may have completed but whose reply never arrived are counted and
 * charged (`unreceived`). No error it raises carries the key, in its message, cause or stack.
 */
export class OpenAIModelClient implements ModelClient {
  readonly patience: ProviderPatience;
  private readonly client: OpenAI;
  private readonly provider: string;
  private readonly jsonMode: boolean;
  private readonly maxAttempts: number;
  private readonly deadlineMs: number;
  private readonly serverWaits: ServerWaits;
  private readonly sessionHeader: boolean;
  private readonly onAttempt: (outcome: AttemptOutcome) => void;
  private readonly rateControl: RateControl | undefined;
  /** Output tokens of this client's answered calls, smoothed: what the next call's permit expects it to produce. */
  private outputSeen: number | null = null;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly secrets: SecretCatalogue;
  private readonly cacheBreakpoints: boolean;

  constructor(options: OpenAIModelClientOptions) {
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0 });
    this.provider = `provider ${options.provider ?? (URL.canParse(options.baseURL) ? new URL(options.baseURL).host : 'at the configured base URL')}`;
    this.patience = options.patience ?? new ProviderPatience(DEFAULT_PATIENCE_MS);
    this.jsonMode = options.jsonMode ?? true;
    this.maxAttempts = (options.maxRetries ?? Infinity) + 1;
    this.deadlineMs = options.callDeadlineMs ?? 120_000;
    this.serverWaits = options.serverWaits ?? 'patience';
    this.sessionHeader = options.sessionHeader ?? isLoopbackUrl(options.baseURL);
    this.onAttempt = options.onAttempt ?? (() => undefined);
    this.rateControl = options.rateControl;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.secrets = (options.secrets ?? new SecretCatalogue()).with([options.apiKey]);
    this.cacheBreakpoints = options.cacheBreakpoints ?? false;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const headers = this.headers(request);
    const lost: Unreceived = { attempts: 0, usage: ZERO_USAGE };
    for (let attempt = 1; ; attempt++) {
      const result = await this.paced(request, headers);
      const at = this.clock.now();
      if (result.response) {
        this.patience.answered();
        this.onAttempt({ type: 'answered', model: request.model, attempt, at: at.toISOString(), status: result.status, usageUnreadable: result.response.usageUnreadable === true });
        return lost.attempts ? { ...result.response, unreceived: { ...lost } } : result.response;
      }
      const { failure } = result;
      if (failure.outcome === 'lost') {
        // Charged as a reply whose usage cannot be read: the most it could have cost.
        lost.attempts += 1;
        lost.usage = addUsage(lost.usage, worstCaseUsage(request, null).usage);
      }
      const step = nextStep(failure, {
        provider: this.provider, attempt, maxAttempts: this.maxAttempts, now: at.getTime(), patience: this.patience,
        serverWaits: this.serverWaits, random: this.random, redact: (text) => this.secrets.redact(text),
      });
      this.onAttempt(outcomeOf(failure, request.model, attempt, at, step));
      if (step.end) throw lost.attempts ? restated(step.end, { unreceived: { ...lost } }) : step.end;
      await this.clock.sleep(step.wait);
    }
  }

  /** The call header, when this client sends it and the call names its cell. */
  private headers(request: ModelRequest): Record<string, string> | undefined {
    const identity = this.sessionHeader ? callIdentityOf(request) : undefined;
    return identity ? { [CALL_HEADER]: encodeCallHeader(identity) } : undefined;
  }

  /**
   * The tokens a permit expects the call to use: its prompt, counted high, and the output this
   * client's calls have been producing (at most the call's bound; 1,024 before any answered).
   * Not the worst case: the bound is the session's whole remaining allowance, many times what a
   * call produces, and reserving it would have the token bucket hold back calls the quota has
   * room for (0.30 of a token limit in the throughput bench). The reply's usage settles it.
   */
  private permitTokens(request: ModelRequest): number {
    const worst = worstCaseUsage(request, null).usage;
    const expected = Math.round(this.outputSeen ?? FIRST_OUTPUT_GUESS);
    return worst.inputTokens + (worst.outputTokens > 0 ? Math.min(worst.outputTokens, expected) : expected);
  }

  /** One attempt under a permit of the rate controller, released when the attempt ends (before any retry wait). */
  private async paced(request: ModelRequest, headers: Record<string, string> | undefined): Promise<Attempt> {
    if (!this.rateControl) return this.attempt(request, headers);
    const estimate = this.permitTokens(request);
    const permit = await this.rateControl.acquire(request.model, estimate);
    let report: AttemptReport = { outcome: 'failed', tokens: estimate };
    try {
      const result = await this.attempt(request, headers);
      const used = result.response ? result.response.usage.inputTokens + result.response.usage.outputTokens : estimate;
      if (result.response) this.outputSeen = this.outputSeen === null ? result.response.usage.outputTokens : this.outputSeen + 0.2 * (result.response.usage.outputTokens - this.outputSeen);
      const outcome = result.response ? 'answered' : result.failure.outcome === 'rate_limited' ? 'rate_limited' : 'failed';
      const limitedOn = outcome === 'rate_limited' && !result.response ? rateLimitUnit(result.failure.error.detail) : undefined;
      report = { outcome, tokens: used, ...(result.headers ? { headers: result.headers } : {}), ...(limitedOn ? { limitedOn } : {}) };
      return result;
    } finally {
      permit.release(report);
    }
  }

  private async attempt(request: ModelRequest, headers: Record<string, string> | undefined): Promise<Attempt> {
    const deadline = new DeadlinePassed(this.deadlineMs);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(deadline), this.deadlineMs);
    let status: number | null = null;
    let replyHeaders: Headers | undefined;
    try {
      // asResponse: the body is read here, under the same deadline, whatever its content type.
      const response = await this.client.chat.completions
        .create(this.body(request), { signal: controller.signal, timeout: this.deadlineMs, ...(headers ? { headers } : {}) })
        .asResponse();
      status = response.status;
      replyHeaders = response.headers;
      return { response: parseCompletion(request, await response.text(), this.secrets), status, headers: replyHeaders };
    } catch (thrown) {
      // A 4xx/5xx carries its headers on the SDK's error; a 200 whose body failed, on the response read above.
      const sent = thrown instanceof OpenAI.APIError && thrown.headers ? thrown.headers : replyHeaders;
      const failure = classifyFailure(request.model, thrown, controller.signal.aborted ? deadline : null, this.secrets, status);
      return { failure, ...(sent ? { headers: sent } : {}) };
    } finally {
      clearTimeout(timer);
    }
  }

  private body(request: ModelRequest): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
    const contents = this.cacheBreakpoints ? contentWithBreakpoints(request.messages) : request.messages.map((m) => m.content);
    return {
      model: request.model,
      messages: request.messages.map((m, i) => toOpenAI(m, contents[i] ?? null)),
      temperature: request.temperature ?? 0,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(request.tools?.length
        ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
        : {}),
      ...(request.json && this.jsonMode && !request.tools?.length ? { response_format: { type: 'json_object' as const } } : {}),
    };
  }
}

/** What a failed attempt came to, for `onAttempt`; `waitMs` is null when it ended the call. */
function outcomeOf(failure: Failure, model: string, attempt: number, at: Date, step: NextStep): AttemptOutcome {
  const common = { model, attempt, at: at.toISOString() };
  const waitMs = step.wait ?? null;
  switch (failure.outcome) {
    case 'rate_limited':
    case 'unavailable':
      return { type: failure.outcome, ...common, status: failure.status, retryAfterMs: failure.retryAfterMs, waitMs };
    case 'lost':
      return { type: 'lost', ...common, reason: failure.lost ?? 'dropped', waitMs };
    case 'refused':
      return { type: 'refused', ...common, status: failure.status, code: failure.error.code };
    case 'malformed':
      return { type: 'malformed', ...common, status: failure.status };
  }
}
