import OpenAI from 'openai';
import {
  ModelConfigurationError,
  ModelQuotaExhaustedError,
  ModelRateLimitedError,
  ModelResponseInvalidError,
  ModelUnavailableError,
} from '../base/errors.js';
import type { ChatMessage, ModelClient, ModelRequest, ModelResponse } from '../ports/model-client.js';

export interface OpenAIModelClientOptions {
  /** OpenAI-compatible base URL, e.g. `https://api.openai.com/v1` or `http://localhost:8000/v1`. */
  baseURL: string;
  /** The key itself (read from the environment by the caller; never from a file). */
  apiKey: string;
  /** Retries inside one call; they honour Retry-After and retry-after-ms. Default 2. */
  maxRetries?: number;
  /** Per-request timeout. Default 120 000 ms. */
  timeoutMs?: number;
  /** Send `response_format: json_object` when a JSON reply is wanted. Some servers reject it. Default true. */
  jsonMode?: boolean;
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

function retryAfterMs(headers: Headers | undefined): number | null {
  const ms = headers?.get('retry-after-ms');
  if (ms && !Number.isNaN(Number(ms))) return Number(ms);
  const s = headers?.get('retry-after');
  if (!s) return null;
  if (!Number.isNaN(Number(s))) return Number(s) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The ModelClient adapter for any OpenAI-compatible chat-completions endpoint, on the openai SDK. */
export class OpenAIModelClient implements ModelClient {
  private readonly client: OpenAI;
  private readonly jsonMode: boolean;

  constructor(options: OpenAIModelClientOptions) {
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 120_000,
    });
    this.jsonMode = options.jsonMode ?? true;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    let raw: unknown;
    try {
      raw = await this.client.chat.completions.create({
        model: request.model,
        messages: request.messages.map(toOpenAI),
        temperature: request.temperature ?? 0,
        ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
        ...(request.tools?.length
          ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
          : {}),
        ...(request.json && this.jsonMode && !request.tools?.length ? { response_format: { type: 'json_object' as const } } : {}),
      });
    } catch (error) {
      throw mapError(request.model, error);
    }
    return parseCompletion(request.model, raw);
  }
}

function mapError(model: string, error: unknown): Error {
  if (error instanceof OpenAI.RateLimitError) {
    const code = (error.error as { code?: string } | undefined)?.code ?? error.code;
    if (code === 'insufficient_quota') return new ModelQuotaExhaustedError(model, error.message, { cause: error });
    return new ModelRateLimitedError(model, retryAfterMs(error.headers), { cause: error });
  }
  if (error instanceof OpenAI.AuthenticationError || error instanceof OpenAI.PermissionDeniedError || error instanceof OpenAI.NotFoundError) {
    return new ModelConfigurationError(model, `${error.status} ${error.message}`, { cause: error });
  }
  if (error instanceof OpenAI.APIError && error.status === 402) {
    return new ModelQuotaExhaustedError(model, error.message, { cause: error });
  }
  if (error instanceof OpenAI.APIConnectionError || error instanceof OpenAI.InternalServerError || error instanceof OpenAI.APIError) {
    return new ModelUnavailableError(model, error.message, { cause: error });
  }
  // The SDK could not even read the body (not JSON, truncated): the endpoint is misbehaving.
  return new ModelResponseInvalidError(model, (error as Error).message ?? String(error), { cause: error });
}

/** Validates the shape we rely on instead of trusting the endpoint; a malformed body is an error, not a crash later. */
function parseCompletion(asked: string, raw: unknown): ModelResponse {
  const body = (raw ?? {}) as Partial<OpenAI.Chat.Completions.ChatCompletion>;
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!choice || typeof choice !== 'object' || !choice.message) {
    throw new ModelResponseInvalidError(asked, 'no choices[0].message in the body');
  }
  const msg = choice.message;
  const toolCalls = (msg.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' && c.function ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '{}' }] : [],
  );
  const usage = body.usage;
  return {
    content: typeof msg.content === 'string' ? msg.content : null,
    toolCalls,
    usage: {
      inputTokens: usage?.prompt_tokens ?? 0,
      outputTokens: usage?.completion_tokens ?? 0,
      cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    },
    model: typeof body.model === 'string' && body.model ? body.model : asked,
    finishReason: choice.finish_reason ?? null,
  };
}
