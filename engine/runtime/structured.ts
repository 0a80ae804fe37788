import { z } from 'zod';
import { StructuredOutputError } from '../base/errors.js';
import type { ChatMessage, Role } from '../ports/model-client.js';
import type { ModelRouter, RouteRequest, RoutedResponse } from './model-router.js';


/** The JSON object in a reply: bare, fenced, or surrounded by prose. */
export function extractJson(text: string | null): unknown {
  if (!text) throw new Error('the reply was empty');
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1]! : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('no JSON object in the reply');
  return JSON.parse(body.slice(start, end + 1));
}

const CUT_OFF = 'it was cut off at the length limit before it was complete';

function problem(error: unknown): string {
  if (error instanceof z.ZodError) {
    return error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  }
  return (error as Error).message;
}

/**
 * Ask for a JSON object and validate it with zod. An unreadable reply is re-asked once with
 * the exact problem; a second failure throws {@link StructuredOutputError} — never a generic
 * fallback value, which once silently replaced three good check sets.
 */
export async function askStructured<T>(
  router: ModelRouter,
  role: Role,
  schema: z.ZodType<T>,
  request: Omit<RouteRequest, 'json'>,
): Promise<{ value: T; response: RoutedResponse }> {
  let messages: ChatMessage[] = request.messages;
  let lastProblem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const response = await router.call(role, { ...request, messages, json: true });
    try {
      // A reply cut off at the length limit is incomplete even when a JSON object can be dug out of it.
      if (response.finishReason === 'length') throw new Error(CUT_OFF);
      return { value: schema.parse(extractJson(response.content)), response };
    } catch (error) {
      lastProblem = problem(error);
      messages = [
        ...messages,
        { role: 'assistant', content: response.content ?? '' },
        { role: 'user', content: `Your reply could not be used: ${lastProblem}. Reply again with only the JSON object the task asks for${lastProblem === CUT_OFF ? ', shorter' : ''}.` },
      ];
    }
  }
  throw new StructuredOutputError(`${role} returned unreadable output twice: ${lastProblem}`);
}
