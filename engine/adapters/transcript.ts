import { z } from 'zod';
import { Usage } from '../base/usage.js';
import { ChatMessage, Role, ToolCall, type ModelClient, type ModelRequest, type ModelResponse } from '../ports/model-client.js';
import type { Clock } from '../ports/clock.js';
import type { JsonlDirectory } from './jsonl-file.js';

export const TRANSCRIPT_VERSION = 1;

const common = {
  version: z.literal(TRANSCRIPT_VERSION),
  ts: z.string(),
  sessionId: z.string(),
  nodeId: z.string(),
  role: Role,
  /** The model asked (request) or that answered (response). */
  model: z.string(),
};

/** One transcript line; a session's file holds every request and response it made, in order. */
export const TranscriptLine = z.discriminatedUnion('type', [
  z.object({ type: z.literal('request'), ...common, messages: z.array(ChatMessage), tools: z.array(z.string()) }),
  z.object({
    type: z.literal('response'),
    ...common,
    content: z.string().nullable(),
    toolCalls: z.array(ToolCall),
    usage: Usage,
    finishReason: z.string().nullable(),
    latencyMs: z.number().int(),
  }),
  z.object({ type: z.literal('error'), ...common, code: z.string(), message: z.string(), latencyMs: z.number().int() }),
]);
export type TranscriptLine = z.infer<typeof TranscriptLine>;

/**
 * Wraps a ModelClient so every request and response lands in the session's JSONL file,
 * keyed by the same session id the spend is charged to.
 */
export class TranscribingModelClient implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly dir: JsonlDirectory,
    private readonly clock: Clock,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const file = this.dir.file(request.sessionId);
    const who = { sessionId: request.sessionId, nodeId: request.nodeId, role: request.role };
    await file.append({
      type: 'request', version: TRANSCRIPT_VERSION, ts: this.clock.now().toISOString(), ...who,
      model: request.model, messages: request.messages, tools: (request.tools ?? []).map((t) => t.name),
    } satisfies TranscriptLine);
    const started = Date.now();
    try {
      const response = await this.inner.complete(request);
      await file.append({
        type: 'response', version: TRANSCRIPT_VERSION, ts: this.clock.now().toISOString(), ...who,
        model: response.model, content: response.content, toolCalls: response.toolCalls, usage: response.usage,
        finishReason: response.finishReason, latencyMs: Date.now() - started,
      } satisfies TranscriptLine);
      return response;
    } catch (error) {
      await file.append({
        type: 'error', version: TRANSCRIPT_VERSION, ts: this.clock.now().toISOString(), ...who, model: request.model,
        code: (error as { code?: string }).code ?? 'unknown', message: (error as Error).message ?? String(error), latencyMs: Date.now() - started,
      } satisfies TranscriptLine);
      throw error;
    }
  }
}
