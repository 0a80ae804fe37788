import type { z } from 'zod';
import type { Check } from '../base/check.js';
import { NoEligibleModelError, StructuredOutputError } from '../base/errors.js';
import type { ChatMessage, Role } from '../ports/model-client.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { askStructured, extractJson } from '../runtime/structured.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import type { Tool } from '../runtime/tools.js';
import { runChecks } from './checks.js';

/** A judge's answer and who actually gave it. */
export interface JudgeAnswer<T> {
  value: T;
  model: string;
  family: string;
}

export interface JudgeOptions<T> {
  role: Role;
  sessionId: string;
  messages: ChatMessage[];
  tools: Tool[];
  /** The detached copy the judge inspects. */
  sandbox: Sandbox;
  checks: Check[];
  schema: z.ZodType<T>;
  /** What to ask when the loop's last message is not the object wanted. */
  askAgain: string;
  excludeFamilies?: Iterable<string>;
  onlyFamilies?: Iterable<string>;
  /** Default 8. */
  maxTurns?: number;
}

/**
 * A judge's short tool loop on a detached copy, and its final JSON answer, the same for the
 * verifier and a merge reviewer. Null when no eligible model could judge (so nobody signed
 * off), or when the answer stayed unreadable after one re-ask: never a default verdict.
 */
export async function askJudge<T>(ctx: EngineContext, task: Task, o: JudgeOptions<T>): Promise<JudgeAnswer<T> | null> {
  const families = { excludeFamilies: o.excludeFamilies, onlyFamilies: o.onlyFamilies };
  let loop;
  try {
    loop = await runToolLoop({
      router: ctx.router, role: o.role, sessionId: o.sessionId, nodeId: task.id, messages: o.messages, tools: o.tools,
      ctx: { sandbox: o.sandbox, runChecks: () => runChecks(o.sandbox, o.checks) }, events: ctx.events, clock: ctx.clock, maxTurns: o.maxTurns ?? 8, ...families,
    });
  } catch (error) {
    if (error instanceof NoEligibleModelError) return null;
    throw error;
  }
  const parsed = o.schema.safeParse(safeExtract(loop.finalContent));
  if (parsed.success) {
    const last = ctx.router.lastAnswer(o.sessionId);
    return last ? { value: parsed.data, ...last } : null;
  }
  try {
    const again = await askStructured(ctx.router, o.role, o.schema, {
      sessionId: o.sessionId, messages: [...loop.messages, { role: 'user', content: o.askAgain }], ...families,
    });
    return { value: again.value, model: again.response.model, family: again.response.family };
  } catch (error) {
    if (error instanceof StructuredOutputError || error instanceof NoEligibleModelError) return null;
    throw error;
  }
}

function safeExtract(text: string | null): unknown {
  try {
    return extractJson(text);
  } catch {
    return null;
  }
}
