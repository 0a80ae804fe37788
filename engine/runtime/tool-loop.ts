import type { Clock } from '../ports/clock.js';
import { BudgetExhaustedError } from '../base/errors.js';
import { type EventSink, stamp } from '../ports/events.js';
import type { ChatMessage, Role } from '../ports/model-client.js';
import type { ModelRouter } from './model-router.js';
import type { LoopWatcher } from './loop-watcher.js';
import type { Tool, ToolContext } from './tools.js';

export interface DriftOpinion {
  drift: number;
  impossible: boolean;
  reason: string;
}

export interface ToolLoopOptions {
  router: ModelRouter;
  role: Role;
  sessionId: string;
  nodeId: string;
  messages: ChatMessage[];
  tools: Tool[];
  ctx: ToolContext;
  events: EventSink;
  clock: Clock;
  /** Turns (model calls) before the loop gives up. Default 30. */
  maxTurns?: number;
  /** Loop heuristics; when absent nothing is watched (verifier and reviewer loops are short). */
  monitor?: LoopWatcher;
  /** Asked only when the monitor names a trigger. Drift of 7 or more ends the attempt. */
  driftJudge?: (recent: string[], trigger: string) => Promise<DriftOpinion>;
  excludeFamilies?: Iterable<string>;
}

export interface ToolLoopResult {
  endedBy: 'finish' | 'final_message' | 'max_turns' | 'monitor' | 'drift' | 'phase_budget';
  finish: { summary: string; interfaceChanges: string[] } | null;
  finalContent: string | null;
  steps: number;
  flags: string[];
  messages: ChatMessage[];
}

/**
 * The model-and-tools loop every acting role runs. Each tool call is shown to the monitor;
 * a loop flag ends the attempt (the work so far is still verified), and the drift judge is
 * consulted only on a trigger. A spent phase cap ends the loop too; a spent node budget
 * propagates, because nothing else in the node can run either.
 */
export async function runToolLoop(o: ToolLoopOptions): Promise<ToolLoopResult> {
  const messages = [...o.messages];
  const recent: string[] = [];
  const flags: string[] = [];
  let steps = 0;
  const done = (endedBy: ToolLoopResult['endedBy'], extra: Partial<ToolLoopResult> = {}): ToolLoopResult => ({
    endedBy, finish: null, finalContent: null, steps, flags, messages, ...extra,
  });
  const emitFlag = (kind: 'repeat' | 'oscillation' | 'no_progress' | 'drift', detail: string) => {
    flags.push(`${kind}: ${detail}`);
    o.events.emit({ type: 'monitor_flag', ...stamp(o.clock, o.nodeId), kind, detail, endsAttempt: true });
  };

  for (let turn = 0; turn < (o.maxTurns ?? 30); turn++) {
    let response;
    try {
      response = await o.router.call(o.role, {
        sessionId: o.sessionId,
        messages,
        tools: o.tools.map((t) => t.spec),
        excludeFamilies: o.excludeFamilies,
      });
    } catch (error) {
      if (error instanceof BudgetExhaustedError && error.scope === 'phase') return done('phase_budget');
      throw error;
    }
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls.length ? response.toolCalls : undefined });
    if (!response.toolCalls.length) return done('final_message', { finalContent: response.content });

    for (const call of response.toolCalls) {
      steps++;
      const tool = o.tools.find((t) => t.spec.name === call.name);
      let args: unknown = {};
      let outcome;
      try {
        args = call.arguments ? JSON.parse(call.arguments) : {};
        outcome = tool
          ? await tool.run(args, o.ctx)
          : { ok: false, content: `no tool named ${call.name}; available: ${o.tools.map((t) => t.spec.name).join(', ')}`, wroteFile: false, writtenPaths: [], checkPassCount: null };
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        outcome = { ok: false, content: `arguments are not valid JSON: ${error.message}`, wroteFile: false, writtenPaths: [], checkPassCount: null };
      }
      messages.push({ role: 'tool', toolCallId: call.id, content: outcome.content });
      o.events.emit({
        type: 'tool_call', ...stamp(o.clock, o.nodeId), role: o.role, step: steps,
        tool: call.name, args: call.arguments.slice(0, 500), ok: outcome.ok, result: outcome.content.slice(0, 500),
      });
      recent.push(`${call.name} ${call.arguments.slice(0, 200)} -> ${outcome.content.slice(0, 200)}`);
      if ('finished' in outcome && outcome.finished) return done('finish', { finish: outcome.finished });

      if (o.monitor) {
        const seen = o.monitor.observe({ tool: call.name, args, wroteFile: outcome.wroteFile, writtenPaths: outcome.writtenPaths, checkPassCount: outcome.checkPassCount });
        for (const f of seen.flags) emitFlag(f.kind, f.detail);
        if (seen.flags.length) return done('monitor');
        if (seen.consultDrift && o.driftJudge) {
          const opinion = await o.driftJudge(recent.slice(-8), seen.consultDrift);
          if (opinion.drift >= 7 || opinion.impossible) {
            emitFlag('drift', `drift ${opinion.drift}/10${opinion.impossible ? ', goal looks impossible' : ''}: ${opinion.reason}`);
            return done('drift');
          }
        }
      }
    }
  }
  return done('max_turns');
}
