import { z } from 'zod';
import { SECRET_SHAPES, type SecretCatalogue } from '../base/secrets.js';
import { Usage } from '../base/usage.js';
import type { Clock } from '../ports/clock.js';
import { ChatMessage, Role, ToolCall, type ModelClient, type ModelRequest, type ModelResponse } from '../ports/model-client.js';
import type { JsonlDirectory } from './jsonl-file.js';

export const TRANSCRIPT_VERSION = 2;

const common = {
  version: z.literal(TRANSCRIPT_VERSION),
  ts: z.string(),
  sessionId: z.string(),
  nodeId: z.string(),
  role: Role,
  /** The node's attempt the call belonged to. */
  attempt: z.number().int(),
  /** The model asked (request) or that answered (response). */
  model: z.string(),
};

/** One transcript line; a session's file holds every request and response it made, in order. */
export const TranscriptLine = z.discriminatedUnion('type', [
  z.object({ type: z.literal('request'), ...common, messages: z.array(ChatMessage), tools: z.array(z.string()), maxTokens: z.number().int().nullable() }),
  z.object({
    type: z.literal('response'),
    ...common,
    content: z.string().nullable(),
    toolCalls: z.array(ToolCall),
    usage: Usage,
    /** Why the usage is an estimate or was corrected; null when the endpoint's figures were used. */
    usageNote: z.string().nullable(),
    finishReason: z.string().nullable(),
    latencyMs: z.number().int(),
  }),
  z.object({ type: z.literal('error'), ...common, code: z.string(), message: z.string(), latencyMs: z.number().int() }),
]);
export type TranscriptLine = z.infer<typeof TranscriptLine>;

/**
 * Wraps a ModelClient so every request and response lands in the session's JSONL file,
 * keyed by the same session id the spend is charged to. Every line is redacted before it is
 * written: a key a model or a server echoes never reaches the disk.
 */
export class TranscribingModelClient implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly dir: JsonlDirectory,
    private readonly clock: Clock,
    /** Default: the shape catalogue (pass one that knows the configured keys). */
    private readonly secrets: SecretCatalogue = SECRET_SHAPES,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const file = this.dir.file(request.sessionId);
    const write = (line: TranscriptLine) => file.append(this.secrets.redactDeep(line));
    const who = { version: TRANSCRIPT_VERSION, sessionId: request.sessionId, nodeId: request.nodeId, role: request.role, attempt: request.attempt } as const;
    await write({
      type: 'request', ...who, ts: this.clock.now().toISOString(),
      model: request.model, messages: request.messages, tools: (request.tools ?? []).map((t) => t.name), maxTokens: request.maxTokens ?? null,
    });
    const started = Date.now();
    try {
      const response = await this.inner.complete(request);
      await write({
        type: 'response', ...who, ts: this.clock.now().toISOString(),
        model: response.model, content: response.content, toolCalls: response.toolCalls, usage: response.usage, usageNote: response.usageNote ?? null,
        finishReason: response.finishReason, latencyMs: Date.now() - started,
      });
      return response;
    } catch (error) {
      await write({
        type: 'error', ...who, ts: this.clock.now().toISOString(), model: request.model,
        code: (error as { code?: string }).code ?? 'unknown', message: (error as Error).message ?? String(error), latencyMs: Date.now() - started,
      });
      throw error;
    }
  }
}
