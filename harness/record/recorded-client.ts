import { RdhError, requestShape, type ChatMessage, type ModelClient, type ModelRequest, type ModelResponse } from '../../engine/index.js';
import type { RecordedCall } from '../journal/transcripts.js';

/**
 * The recorded-call client: a ModelClient that answers a resumed cell from its transcripts, by
 * session id and call order, so no call that completed and was transcribed is paid twice.
 *
 * A call is answered from the record when the session's k-th recorded call matches the request
 * after NORMALISATION (below): same model, role, node, attempt, same tool specs/JSON flag/
 * maxTokens (`shape`), and the same whole history (rebuilt from the engine's transcript lines,
 * which store each message once; see TranscriptLine). At the
 * first mismatch (or the first call beyond the record: the one in flight at the kill) the
 * `fallback` mode goes live for the rest of that session and reports the switch once
 * (`onSwitch`, which the sweep journals as `replay_switch`); `strict` mode (for replay) throws
 * a ReplayDivergenceError instead.
 *
 * Normalisation, applied to the text of every message before comparing:
 * - durations such as `12 ms`, `1.5s`, `0:00:03` become `<duration>` (tool output reports timings);
 * - hexadecimal runs of 12 or more digits become `<hex>` (container and sandbox ids);
 * - ISO timestamps become `<time>`.
 * Nothing else is forgiven: a different prompt, tool result or history is a mismatch. A command
 * that hit its time limit (cut output, another exit code) is a different result, not a timing:
 * the resumed session goes live from there, which is why the record tests' host sandbox gives
 * commands a limit far above their time (a load spike must not change a result).
 */

export type ReplayMode = 'fallback' | 'strict';

export class ReplayDivergenceError extends RdhError {
  readonly code = 'replay_diverged';
  constructor(
    readonly sessionId: string,
    readonly call: number,
    readonly reason: string,
  ) {
    super(`replay diverged in session ${sessionId} at call ${call}: ${reason}`);
  }
}

const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g;
const DURATION = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?)\b|\b\d+:\d{2}:\d{2}(?:\.\d+)?\b/g;
const HEX = /\b[0-9a-f]{12,}\b/g;

/** The documented normalisation of one text. */
export function normaliseText(text: string): string {
  return text.replace(ISO_TIME, '<time>').replace(HEX, '<hex>').replace(DURATION, '<duration>');
}

function normalisedMessages(messages: readonly ChatMessage[]): string {
  return JSON.stringify(
    messages.map((m) => {
      if (m.role === 'assistant') return { ...m, content: m.content === null ? null : normaliseText(m.content) };
      return { ...m, content: normaliseText(m.content) };
    }),
  );
}

/** Why the request differs from the recorded call, or undefined when it matches. */
export function mismatch(request: ModelRequest, recorded: RecordedCall | undefined): string | undefined {
  if (!recorded) return 'no recorded call (the session was cut here)';
  const { request: line } = recorded;
  if (line.model !== request.model) return `model ${request.model}, recorded ${line.model}`;
  if (line.role !== request.role || line.nodeId !== request.nodeId || line.attempt !== request.attempt) {
    return `asked as ${request.role} of ${request.nodeId} attempt ${request.attempt}, recorded as ${line.role} of ${line.nodeId} attempt ${line.attempt}`;
  }
  if (line.shape !== requestShape(request)) return 'the tools, JSON flag or output limit differ';
  if (recorded.messages.length !== request.messages.length) return `${request.messages.length} messages, recorded ${recorded.messages.length}`;
  // The whole history, not only what the call added: a rewritten earlier message is a mismatch too.
  if (normalisedMessages(request.messages) !== normalisedMessages(recorded.messages)) return 'the messages differ from the recorded ones after normalisation';
  return undefined;
}

export interface RecordedCallClientOptions {
  mode?: ReplayMode;
  /** Called once per session at its first live call (fallback mode). */
  onSwitch?: (sessionId: string, call: number, reason: string) => void | Promise<void>;
  /** Called for every call answered from the record. */
  onReplayed?: (request: ModelRequest, recorded: RecordedCall) => void;
}

export class RecordedCallClient implements ModelClient {
  private readonly next = new Map<string, number>();
  private readonly live = new Set<string>();
  /** Calls answered from the record, and calls made live, since construction. */
  readonly counts = { replayed: 0, live: 0 };

  constructor(
    private readonly inner: ModelClient,
    private readonly recorded: ReadonlyMap<string, readonly RecordedCall[]>,
    private readonly options: RecordedCallClientOptions = {},
  ) {}

  /** True when `sessionId` has calls on record (a resume re-opens it rather than starting it). */
  has(sessionId: string): boolean {
    return (this.recorded.get(sessionId)?.length ?? 0) > 0;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    return (await this.answer(request)).response;
  }

  /** The answer, and whether it came from the record (a replayed call must not be transcribed again). */
  async answer(request: ModelRequest): Promise<{ response: ModelResponse; replayed: boolean }> {
    const { sessionId } = request;
    const k = this.next.get(sessionId) ?? 0;
    this.next.set(sessionId, k + 1);
    if (!this.live.has(sessionId)) {
      const recorded = this.recorded.get(sessionId)?.[k];
      // Compared as sent: the record is exact (never redacted; docs/redaction.md), so a request
      // that matches it is the same request, whatever key the run was recorded with.
      const why = mismatch(request, recorded);
      if (why === undefined) {
        this.counts.replayed++;
        this.options.onReplayed?.(request, recorded!);
        return { response: { ...recorded!.response, toolCalls: recorded!.response.toolCalls.map((c) => ({ ...c })) }, replayed: true };
      }
      if (this.options.mode === 'strict') throw new ReplayDivergenceError(sessionId, k, why);
      this.live.add(sessionId);
      if (this.has(sessionId)) await this.options.onSwitch?.(sessionId, k, why);
    }
    this.counts.live++;
    return { response: await this.inner.complete(request), replayed: false };
  }
}
