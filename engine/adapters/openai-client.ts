import OpenAI from 'openai';
import { ModelRateLimitedError } from '../base/errors.js';
import { SecretCatalogue } from '../base/secrets.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { ChatMessage, ModelClient, ModelRequest, ModelResponse } from '../ports/model-client.js';
import { DeadlinePassed, classifyFailure, parseCompletion } from './openai-wire.js';

export interface OpenAIModelClientOptions {
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1` or `http://localhost:8000/v1`. */
  baseURL: string;
  /** The key itself (read from the environment by the caller; never from a file). */
  apiKey: string;
  /**
   * Further attempts after the first, for failures another attempt may cure: 429, 5xx, a
   * dropped connection, a passed deadline, a 200 carrying a retryable error. Default 2.
   */
  maxRetries?: number;
  /**
   * Deadline of one attempt, from sending the request to the last byte of the body. A server
   * that sends headers and then stalls is cut off here (and its socket closed). A whole call
   * is bounded by (maxRetries + 1) x this plus the waits between attempts. Default 120 000 ms.
   */
  callDeadlineMs?: number;
  /**
   * Longest server-requested wait (Retry-After, retry-after-ms) honoured inside a call. A
   * longer one ends the call at once as rate limited, carrying the wait, so the router cools
   * the model down and falls back instead of sleeping. Default 60 000 ms.
   */
  maxServerWaitMs?: number;
  /** Send `response_format: json_object` when a JSON reply is wanted. Some servers reject it. Default true. */
  jsonMode?: boolean;
  /** Sleeps between attempts. Default: the system clock. */
  clock?: Clock;
  /** Redacts secrets from every error. Default: the shape catalogue plus `apiKey` itself. */
  secrets?: SecretCatalogue;
}

type OpenAIMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function toOpenAI(m: ChatMessage): OpenAIMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
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

/**
 * The ModelClient adapter for any OpenAI-compatible chat-completions endpoint, on the openai
 * SDK. It owns the retries (the SDK's are off) so that every attempt has a deadline covering
 * the body, a long server-requested wait is not slept through, and failures the SDK does not
 * know (an error object in a 200, a connection dropped mid-body) are classified and retried
 * the same way. No error it raises carries the key, in its message, cause or stack.
 */
export class OpenAIModelClient implements ModelClient {
  private readonly client: OpenAI;
  private readonly jsonMode: boolean;
  private readonly maxRetries: number;
  private readonly deadlineMs: number;
  private readonly maxWaitMs: number;
  private readonly clock: Clock;
  private readonly secrets: SecretCatalogue;

  constructor(options: OpenAIModelClientOptions) {
    this.client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0 });
    this.jsonMode = options.jsonMode ?? true;
    this.maxRetries = options.maxRetries ?? 2;
    this.deadlineMs = options.callDeadlineMs ?? 120_000;
    this.maxWaitMs = options.maxServerWaitMs ?? 60_000;
    this.clock = options.clock ?? systemClock;
    this.secrets = (options.secrets ?? new SecretCatalogue()).with([options.apiKey]);
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    for (let attempt = 0; ; attempt++) {
      const deadline = new DeadlinePassed(this.deadlineMs);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(deadline), this.deadlineMs);
      try {
        // asResponse: the body is read here, under the same deadline, whatever its content type.
        const response = await this.client.chat.completions.create(this.body(request), { signal: controller.signal, timeout: this.deadlineMs }).asResponse();
        return parseCompletion(request, await response.text(), this.secrets);
      } catch (thrown) {
        const failure = classifyFailure(request.model, thrown, controller.signal.aborted ? deadline : null, this.secrets);
        if (!failure.retryable || attempt >= this.maxRetries) throw failure.error;
        if (failure.retryAfterMs !== null && failure.retryAfterMs > this.maxWaitMs) {
          throw new ModelRateLimitedError(request.model, failure.retryAfterMs, `the server asked for a wait longer than the ${this.maxWaitMs} ms this client sleeps; ${failure.error.message}`);
        }
        await this.clock.sleep(failure.retryAfterMs ?? backoffMs(attempt));
      } finally {
        clearTimeout(timer);
      }
    }
  }

  private body(request: ModelRequest): OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming {
    return {
      model: request.model,
      messages: request.messages.map(toOpenAI),
      temperature: request.temperature ?? 0,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(request.tools?.length
        ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
        : {}),
      ...(request.json && this.jsonMode && !request.tools?.length ? { response_format: { type: 'json_object' as const } } : {}),
    };
  }
}

/** Exponential backoff with jitter, as the SDK would: 0.5 s doubling to 8 s. */
function backoffMs(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** attempt) * (1 - Math.random() * 0.25);
}
