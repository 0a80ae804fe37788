import { createHash } from 'node:crypto';
import { SECRET_SHAPES, type SecretCatalogue } from '../base/secrets.js';
import { Unreceived } from '../base/usage.js';
import type { Clock } from '../ports/clock.js';
import type { ChatMessage, ModelClient, ModelRequest, ModelResponse } from '../ports/model-client.js';
import type { JsonlDirectory } from './jsonl-file.js';

export { TRANSCRIPT_VERSION, TranscriptLine, TranscriptVersion, requestLayoutOf, type TranscriptRequest } from './transcript-line.js';
import { TRANSCRIPT_VERSION, TranscriptLine, type TranscriptRequest } from './transcript-line.js';

/** The parts of a request that are compared but not stored whole. */
export function requestShape(request: Pick<ModelRequest, 'tools' | 'json' | 'maxTokens' | 'model'>): string {
  return createHash('sha256')
    .update(JSON.stringify([request.model, request.tools ?? [], request.json ?? false, request.maxTokens ?? null]))
    .digest('hex')
    .slice(0, 32);
}

/** A transcript whose lines cannot be put back together (a line missing or out of order). */
export class TranscriptGapError extends Error {
  readonly code = 'transcript_gap';
  constructor(message: string) {
    super(message);
    this.name = 'TranscriptGapError';
  }
}

/**
 * Each request of one session's lines with its whole history, rebuilt from `sent` and `added`
 * (what the writer stores, exactly as sent). Pure.
 *
 * A request numbered k below the calls already read supersedes the lines from call k on: a
 * resumed session that went live at call k made those calls again (see TranscriptRecorder.resume),
 * and only the later lines describe the session that finished. A request that skips a call
 * index, or keeps more messages than its predecessor had, is a gap: never guessed around.
 */
export function sessionRequests(lines: readonly TranscriptLine[]): Array<{ line: TranscriptRequest; messages: ChatMessage[] }> {
  const out: Array<{ line: TranscriptRequest; messages: ChatMessage[] }> = [];
  for (const line of lines) {
    if (line.type !== 'request') continue;
    if (line.call > out.length) throw new TranscriptGapError(`${line.sessionId}: call ${line.call} follows call ${out.length - 1}; a request line is missing`);
    out.length = line.call;
    const history = out.at(-1)?.messages ?? [];
    if (line.sent > history.length) throw new TranscriptGapError(`${line.sessionId}: call ${line.call} keeps ${line.sent} messages of a history of ${history.length}; a request line is missing`);
    out.push({ line, messages: [...history.slice(0, line.sent), ...line.added] });
  }
  return out;
}

const sameMessage = (a: ChatMessage, b: ChatMessage): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * The writer of every session's transcript in one folder, shared by all the clients it wraps:
 * a session that falls back to another model keeps one history and one call count.
 *
 * Requests and responses are written EXACTLY as sent and received, never redacted: they are
 * what a resume answers from and what `harness replay` reproduces, so a rewritten reply would
 * be a reply the model never gave (a replayed reply carries it into the workspace, and the
 * next request no longer matches the record). A configured key only ever travels in a request
 * header, which is not written. Error lines are redacted: their text is a server's or a
 * library's, the one place a key is echoed. Publication is guarded by make_site's scan, not
 * here (docs/redaction.md).
 */
export class TranscriptRecorder {
  private readonly sessions = new Map<string, { calls: number; history: readonly ChatMessage[] }>();

  constructor(
    private readonly dir: JsonlDirectory,
    private readonly clock: Clock,
    /** Redacts error lines. Default: the shape catalogue (pass one that knows the configured keys). */
    private readonly secrets: SecretCatalogue = SECRET_SHAPES,
  ) {}

  /**
   * Continues a session recorded earlier: its next call is numbered `call` and stores only what
   * it adds to `history`, the messages of the session's request `call - 1` as recorded (empty
   * for call 0). A resume that replayed calls 0..k-1 from the record and goes live at k passes
   * k, even when the record holds more calls: the lines from k on are superseded (see
   * sessionRequests), in the same append-only file.
   */
  resume(sessionId: string, call: number, history: readonly ChatMessage[]): void {
    this.sessions.set(sessionId, { calls: call, history: [...history] });
  }

  /** Wraps a client so its calls are transcribed here. */
  wrap(inner: ModelClient): TranscribingModelClient {
    return new TranscribingModelClient(inner, this);
  }

  /** Writes the request line of the session's next call and returns that call's index. */
  async request(request: ModelRequest): Promise<number> {
    const state = this.sessions.get(request.sessionId) ?? { calls: 0, history: [] };
    const { history } = state;
    let sent = 0;
    while (sent < history.length && sent < request.messages.length && sameMessage(history[sent]!, request.messages[sent]!)) sent++;
    const call = state.calls;
    // A copy: the engine grows one messages array in place from call to call, so keeping the
    // array itself would make every later call look as if it had added nothing.
    this.sessions.set(request.sessionId, { calls: call + 1, history: [...request.messages] });
    await this.write({
      type: 'request', ...this.who(request, call), model: request.model,
      sent, added: request.messages.slice(sent), tools: (request.tools ?? []).map((t) => t.name), json: request.json ?? false,
      maxTokens: request.maxTokens ?? null, shape: requestShape(request),
    });
    return call;
  }

  /** Writes the outcome of call `call`: its response, or the error it ended with. */
  outcome(request: ModelRequest, call: number, latencyMs: number, outcome: { response: ModelResponse } | { error: unknown }): Promise<void> {
    if ('response' in outcome) {
      const r = outcome.response;
      return this.write({
        type: 'response', ...this.who(request, call), model: r.model, content: r.content, toolCalls: r.toolCalls, usage: r.usage,
        usageNote: r.usageNote ?? null, ...(r.usageUnreadable ? { usageUnreadable: true as const } : {}), ...(r.unreceived ? { unreceived: r.unreceived } : {}),
        finishReason: r.finishReason, latencyMs,
      });
    }
    const error = outcome.error as { code?: unknown; message?: unknown; unreceived?: unknown };
    const unreceived = Unreceived.safeParse(error?.unreceived);
    return this.write({
      type: 'error', ...this.who(request, call), model: request.model,
      code: typeof error?.code === 'string' ? error.code : 'unknown', message: typeof error?.message === 'string' ? error.message : String(outcome.error), latencyMs,
      ...(unreceived.success ? { unreceived: unreceived.data } : {}),
    });
  }

  close(): Promise<void> {
    return this.dir.close();
  }

  private who(request: ModelRequest, call: number) {
    return { version: TRANSCRIPT_VERSION, ts: this.clock.now().toISOString(), sessionId: request.sessionId, nodeId: request.nodeId, role: request.role, attempt: request.attempt, call } as const;
  }

  private write(line: TranscriptLine): Promise<void> {
    return this.dir.file(line.sessionId).append(line.type === 'error' ? this.secrets.redactDeep(line) : line);
  }
}

/**
 * Wraps a ModelClient so every request and response lands in the session's JSONL file,
 * keyed by the same session id the spend is charged to (see TranscriptRecorder).
 */
export class TranscribingModelClient implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly recorder: TranscriptRecorder,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const call = await this.recorder.request(request);
    const started = Date.now();
    try {
      const response = await this.inner.complete(request);
      await this.recorder.outcome(request, call, Date.now() - started, { response });
      return response;
    } catch (error) {
      await this.recorder.outcome(request, call, Date.now() - started, { error });
      throw error;
    }
  }
}
