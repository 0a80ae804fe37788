import { z } from 'zod';
import type { CallIdentity, ChatMessage, ModelRequest, ModelResponse } from '../../../engine/index.js';

/**
 * The chat-completions wire format as `harness sim serve` reads and writes it: the exact
 * inverse of what the engine's OpenAI adapter sends (engine/adapters/openai-client.ts,
 * `toOpenAI` and `body()`), so a request crosses HTTP and comes back as the ModelRequest the
 * in-process population would have been given. A body is hostile input: anything else is a
 * 400 with the first problems named, never a crash.
 */

const WireToolCall = z.object({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/**
 * A text part of a message's content, as clients that mark cache breakpoints send it
 * (`cache_control: {type: 'ephemeral'}`, Anthropic-style, also passed through by gateways).
 * Only text parts: the engine sends no images.
 */
const WireTextPart = z.object({
  type: z.literal('text', 'content parts must be {type: "text", text}: only text is served'),
  text: z.string(),
  cache_control: z.object({ type: z.literal('ephemeral') }).optional(),
});

/** Content as a string, or as text parts joined back into one string (see joinContent). */
const WireContent = z.union([z.string(), z.array(WireTextPart).min(1, 'content parts must hold at least one part')]);

const WireMessage = z.discriminatedUnion(
  'role',
  [
    z.object({ role: z.literal('system'), content: WireContent }),
    z.object({ role: z.literal('user'), content: WireContent }),
    z.object({ role: z.literal('assistant'), content: WireContent.nullable().optional(), tool_calls: z.array(WireToolCall).optional() }),
    z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: WireContent }),
  ],
  { error: 'a message needs role system, user, assistant or tool' },
);

const WireTool = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
});

/** A chat completion request body: the fields the engine sends; others (top_p, user, ...) are ignored. */
export const ChatCompletionBody = z.object({
  model: z.string().min(1, 'must name a model'),
  messages: z.array(WireMessage).min(1, 'must hold at least one message'),
  tools: z.array(WireTool).optional(),
  max_tokens: z.int('must be a whole number').positive('must be at least 1').optional(),
  temperature: z.number().optional(),
  response_format: z.object({ type: z.enum(['text', 'json_object', 'json_schema']) }).optional(),
  stream: z.literal(false, 'streaming is not served: the engine reads whole replies; leave stream out').optional(),
  n: z.literal(1, 'one choice per request is served; leave n out').optional(),
});
export type ChatCompletionBody = z.infer<typeof ChatCompletionBody>;

/** The body's problems in one line, as an OpenAI-style error message (`messages.2.role: ...`). */
export function bodyProblems(error: z.ZodError): string {
  const shown = error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
  return `the request body is not a chat completion request: ${shown.join('; ')}${error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : ''}`;
}

/**
 * One string for content sent either way: parts are joined with nothing between them, the
 * inverse of a client cutting a message's text at its cache breakpoints; the breakpoints
 * themselves are dropped, since they change no token of the prompt (see prompt-cache.ts).
 */
export function joinContent(content: z.infer<typeof WireContent>): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

function fromWire(m: ChatCompletionBody['messages'][number]): ChatMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: joinContent(m.content) };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content === undefined || m.content === null ? null : joinContent(m.content),
        ...(m.tool_calls?.length ? { toolCalls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) } : {}),
      };
    case 'tool':
      return { role: 'tool', toolCallId: m.tool_call_id, content: joinContent(m.content) };
  }
}

/** The ModelRequest a body and the call header stand for: what the engine asked, before it crossed the wire. */
export function requestFromWire(body: ChatCompletionBody, identity: CallIdentity): ModelRequest {
  return {
    model: body.model,
    messages: body.messages.map(fromWire),
    ...(body.tools?.length ? { tools: body.tools.map((t) => ({ name: t.function.name, description: t.function.description ?? '', parameters: t.function.parameters ?? {} })) } : {}),
    ...(body.max_tokens !== undefined ? { maxTokens: body.max_tokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.response_format?.type === 'json_object' ? { json: true } : {}),
    role: identity.role,
    sessionId: identity.session,
    nodeId: identity.node,
    attempt: identity.attempt,
    ...(identity.arm ? { arm: identity.arm } : {}),
    cellId: identity.cell,
  };
}

/** A ModelResponse as a chat completion body, with `usage` always present (cached tokens included). */
export function completionBody(response: ModelResponse, id: string, createdS: number): Record<string, unknown> {
  const { inputTokens, outputTokens, cachedTokens } = response.usage;
  return {
    id,
    object: 'chat.completion',
    created: createdS,
    model: response.model,
    system_fingerprint: 'rdh-sim',
    choices: [
      {
        index: 0,
        finish_reason: response.finishReason,
        logprobs: null,
        message: {
          role: 'assistant',
          content: response.content,
          refusal: null,
          ...(response.toolCalls.length ? { tool_calls: response.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
        },
      },
    ],
    usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens, prompt_tokens_details: { cached_tokens: cachedTokens } },
  };
}

/** An OpenAI-style error object. */
export function errorBody(message: string, type: string, code: string | null = null, param: string | null = null): Record<string, unknown> {
  return { error: { message, type, param, code } };
}
