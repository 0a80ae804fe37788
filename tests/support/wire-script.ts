import type { ChatMessage, ModelRequest, Role } from '../../engine/index.js';
import { completion, type Responder } from './chat-server.js';
import type { Handler } from './scripted-model.js';

/** The role a request was made for, read from the system prompt's first line (`# Role: planner`). */
function roleOf(messages: Array<Record<string, unknown>>): Role {
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '');
  const m = /^# Role: ([a-z ]+)/.exec(system);
  return (m?.[1]?.trim().replace(' ', '_') ?? 'worker') as Role;
}

/**
 * Serves scripted role handlers over the chat-completions wire format, so a test can drive the
 * real CLI, the real openai SDK and the real engine with the same scripts as the unit tests.
 */
export function wireResponder(handlers: Partial<Record<Role, Handler>>): Responder {
  return async ({ body }) => {
    const raw = body.messages as Array<Record<string, unknown>>;
    const messages: ChatMessage[] = raw.map((m) =>
      m.role === 'tool'
        ? { role: 'tool', toolCallId: String(m.tool_call_id), content: String(m.content) }
        : m.role === 'assistant'
          ? { role: 'assistant', content: (m.content as string | null) ?? null, toolCalls: ((m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>) ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) }
          : { role: m.role as 'system' | 'user', content: String(m.content) },
    );
    const role = roleOf(raw);
    const request: ModelRequest = { model: String(body.model), messages, role, sessionId: 'wire', nodeId: 'wire', attempt: 1 };
    const handler = handlers[role];
    if (!handler) return { status: 500, body: { error: { message: `no handler for ${role}` } } };
    const reply = await handler(request, messages.filter((m) => m.role === 'assistant').length);
    return { body: completion({ content: reply.content ?? null, toolCalls: reply.toolCalls, model: reply.model ?? String(body.model), usage: { prompt_tokens: 300, completion_tokens: 40, cached_tokens: 128 } }) };
  };
}
