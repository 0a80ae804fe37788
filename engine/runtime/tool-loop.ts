import { createHash } from 'node:crypto';
import { BudgetExhaustedError, StructuredOutputError } from '../base/errors.js';
import { stableJson } from '../base/stable-json.js';
import type { Clock } from '../ports/clock.js';
import { type EventSink, stamp } from '../ports/events.js';
import type { ChatMessage, Role, ToolCall } from '../ports/model-client.js';
import { changedPaths, type WorkspaceSnapshot } from '../ports/sandbox.js';
import type { LoopWatcher } from './loop-watcher.js';
import type { ModelRouter } from './model-router.js';
import type { Tool, ToolContext, ToolOutcome } from './tools.js';

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
  /**
   * The most drift-judge sessions this loop may open. Past it a trigger is no longer taken to
   * the judge (the free heuristics, the turn limit and the phase caps still hold), so a loop's
   * sessions are bounded and `harness plan` can bill them. Default: no limit.
   */
  driftAllowance?: number;
  excludeFamilies?: Iterable<string>;
  /** Only these families may answer (see RouteRequest.onlyFamilies). Default: any. */
  onlyFamilies?: Iterable<string>;
}

export interface ToolLoopResult {
  endedBy: 'finish' | 'final_message' | 'max_turns' | 'monitor' | 'drift' | 'phase_budget' | 'session_budget';
  finish: { summary: string; interfaceChanges: string[] } | null;
  finalContent: string | null;
  steps: number;
  flags: string[];
  messages: ChatMessage[];
}

/** Tools that can change the workspace: the watched loop compares snapshots around them. */
const MAY_WRITE = new Set(['write_file', 'run_command', 'run_checks']);

/**
 * The model-and-tools loop every acting role runs. Each tool call is shown to the monitor,
 * with what it really changed in the workspace (shell writes included); a loop flag ends the
 * attempt (the work so far is still verified), and the drift judge is consulted only on a
 * trigger. A spent phase cap or session ceiling ends the loop too, even when the drift judge's
 * call is the one that crossed it; a spent node budget propagates, because nothing else in the
 * node can run either.
 */
export async function runToolLoop(o: ToolLoopOptions): Promise<ToolLoopResult> {
  const messages = [...o.messages];
  const recent: string[] = [];
  const flags: string[] = [];
  let steps = 0;
  let driftAsked = 0;
  const done = (endedBy: ToolLoopResult['endedBy'], extra: Partial<ToolLoopResult> = {}): ToolLoopResult => ({
    endedBy, finish: null, finalContent: null, steps, flags, messages, ...extra,
  });
  const emitFlag = (kind: 'repeat' | 'oscillation' | 'no_progress' | 'drift', detail: string) => {
    flags.push(`${kind}: ${detail}`);
    o.events.emit({ type: 'monitor_flag', ...stamp(o.clock, o.nodeId), kind, detail, endsAttempt: true });
  };
  /** A spent phase or session ends this loop; anything else is the caller's. */
  const budgetEnd = (error: unknown): ToolLoopResult['endedBy'] | null =>
    error instanceof BudgetExhaustedError && (error.scope === 'phase' || error.scope === 'session') ? `${error.scope}_budget` : null;

  let snapshot: WorkspaceSnapshot | null = null;
  if (o.monitor) {
    snapshot = await o.ctx.sandbox.snapshot();
    o.monitor.begin?.(digestOf(snapshot));
  }

  for (let turn = 0; turn < (o.maxTurns ?? 30); turn++) {
    let response;
    try {
      response = await o.router.call(o.role, { sessionId: o.sessionId, messages, tools: o.tools.map((t) => t.spec), excludeFamilies: o.excludeFamilies, onlyFamilies: o.onlyFamilies });
    } catch (error) {
      const end = budgetEnd(error);
      if (end) return done(end);
      throw error;
    }
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls.length ? response.toolCalls : undefined });
    if (!response.toolCalls.length) {
      // A reply cut off at the length limit is not an answer: ask for the rest instead of accepting half.
      if (response.finishReason === 'length') {
        messages.push({ role: 'user', content: 'Your reply was cut off at the length limit, so it was not used. Continue more briefly, or call a tool.' });
        continue;
      }
      return done('final_message', { finalContent: response.content });
    }

    for (const [i, raw] of response.toolCalls.entries()) {
      steps++;
      const call = wellFormed(raw, `${o.sessionId}#${turn}.${i}`);
      const { args, outcome } = await runOne(o, call);
      messages.push({ role: 'tool', toolCallId: call.id, content: outcome.content });
      o.events.emit({
        type: 'tool_call', ...stamp(o.clock, o.nodeId), role: o.role, step: steps,
        tool: call.name, args: call.arguments.slice(0, 500), ok: outcome.ok, result: outcome.content.slice(0, 500),
      });
      recent.push(`${call.name} ${call.arguments.slice(0, 200)} -> ${outcome.content.slice(0, 200)}`);
      if (outcome.finished) return done('finish', { finish: outcome.finished });

      if (o.monitor && snapshot) {
        let written: string[] = [];
        if (MAY_WRITE.has(call.name)) {
          const after = await o.ctx.sandbox.snapshot();
          written = changedPaths(snapshot, after);
          snapshot = after;
        }
        const seen = o.monitor.observe({
          tool: call.name, args, wroteFile: written.length > 0, writtenPaths: written, checkPassCount: outcome.checkPassCount, state: digestOf(snapshot),
        });
        for (const f of seen.flags) emitFlag(f.kind, f.detail);
        if (seen.flags.length) return done('monitor');
        if (seen.consultDrift && o.driftJudge && driftAsked < (o.driftAllowance ?? Infinity)) {
          driftAsked++;
          let opinion: DriftOpinion | null = null;
          try {
            opinion = await o.driftJudge(recent.slice(-8), seen.consultDrift);
          } catch (error) {
            const end = budgetEnd(error);
            if (end) return done(end);
            // An unreadable judge is no evidence of drift; the loop's own brakes still hold.
            if (!(error instanceof StructuredOutputError)) throw error;
          }
          if (opinion && (opinion.drift >= 7 || opinion.impossible)) {
            emitFlag('drift', `drift ${opinion.drift}/10${opinion.impossible ? ', goal looks impossible' : ''}: ${opinion.reason}`);
            return done('drift');
          }
        }
      }
    }
  }
  return done('max_turns');
}

/**
 * A tool call as the loop can use it, whatever an adapter let through: arguments that are not
 * text are shown to the model as they came, so the model hears about them instead of the loop
 * crashing on them.
 */
function wellFormed(raw: ToolCall, fallbackId: string): ToolCall {
  const r = raw as Partial<Record<keyof ToolCall, unknown>>;
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v) ?? String(v));
  return { id: typeof r.id === 'string' && r.id ? r.id : fallbackId, name: text(r.name), arguments: typeof r.arguments === 'string' ? r.arguments : text(r.arguments) };
}

async function runOne(o: ToolLoopOptions, call: ToolCall): Promise<{ args: unknown; outcome: ToolOutcome }> {
  const refuse = (content: string): ToolOutcome => ({ ok: false, content, checkPassCount: null });
  const tool = o.tools.find((t) => t.spec.name === call.name);
  if (!tool) return { args: {}, outcome: refuse(`no tool named ${JSON.stringify(call.name)}; available: ${o.tools.map((t) => t.spec.name).join(', ')}`) };
  let args: unknown;
  try {
    args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch (error) {
    return { args: call.arguments, outcome: refuse(`arguments are not valid JSON: ${(error as Error).message}. Send the arguments as one JSON object.`) };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    return { args, outcome: refuse(`arguments must be one JSON object, got ${Array.isArray(args) ? 'a list' : args === null ? 'null' : typeof args}`) };
  }
  return { args, outcome: await tool.run(args, o.ctx) };
}

function digestOf(snapshot: WorkspaceSnapshot): string {
  return createHash('sha1').update(stableJson(snapshot)).digest('hex');
}
