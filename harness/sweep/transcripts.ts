import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ChatMessage, ToolCall, type ModelRequest, type ModelResponse } from '../../engine/index.js';
import { sessionFileName } from './run-folder.js';

/**
 * One session's transcript: one JSON line per model call, in call order, in a file of its own
 * (`cells/<cell>/transcripts/<session>.jsonl`). Each line stores only the messages the request
 * ADDED since the session's previous call (`sent` is how many came before them), so a long
 * conversation costs its length once, not once per turn. The whole history of call k is the
 * concatenation of `added` over calls 0..k, because the engine's conversations only grow.
 */
export const TranscriptCall = z.strictObject({
  version: z.literal(1),
  sessionId: z.string().min(1),
  /** 0-based index of the call in its session. */
  call: z.int().nonnegative(),
  model: z.string(),
  role: z.string(),
  nodeId: z.string(),
  attempt: z.int().positive(),
  arm: z.string().optional(),
  /** Messages the request held before `added` (the previous calls' history). */
  sent: z.int().nonnegative(),
  added: z.array(ChatMessage),
  /** sha256 of the tool specs, the JSON flag and maxTokens: compared, never shown. */
  shape: z.string(),
  response: z.strictObject({
    content: z.string().nullable(),
    toolCalls: z.array(ToolCall),
    usage: z.strictObject({ inputTokens: z.number(), outputTokens: z.number(), cachedTokens: z.number() }),
    model: z.string(),
    finishReason: z.string().nullable(),
    usageNote: z.string().nullable().optional(),
  }),
});
export type TranscriptCall = z.infer<typeof TranscriptCall>;

/** The parts of a request that are compared but not stored whole. */
export function requestShape(request: Pick<ModelRequest, 'tools' | 'json' | 'maxTokens' | 'model'>): string {
  return createHash('sha256')
    .update(JSON.stringify([request.model, request.tools ?? [], request.json ?? false, request.maxTokens ?? null]))
    .digest('hex')
    .slice(0, 32);
}

/**
 * Writes transcripts: one writer per session file (appends of one session are chained, so
 * its lines keep call order and never interleave), any number of sessions at once.
 */
export class TranscriptWriter {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly lengths = new Map<string, number>();
  private readonly calls = new Map<string, number>();
  private made = false;

  constructor(private readonly dir: string) {}

  /** Seeds a session's counters from its recorded calls (a resume appends after them). */
  seed(sessionId: string, recorded: readonly TranscriptCall[]): void {
    const last = recorded.at(-1);
    if (!last) return;
    this.calls.set(sessionId, last.call + 1);
    this.lengths.set(sessionId, last.sent + last.added.length);
  }

  /** Appends one call; resolves once its line is written. */
  record(request: ModelRequest, response: ModelResponse): Promise<void> {
    const { sessionId } = request;
    const call = this.calls.get(sessionId) ?? 0;
    this.calls.set(sessionId, call + 1);
    // A history shorter than the recorded one (never in the engine) is stored whole.
    const before = this.lengths.get(sessionId) ?? 0;
    const sent = before <= request.messages.length ? before : 0;
    this.lengths.set(sessionId, request.messages.length);
    const line: TranscriptCall = {
      version: 1, sessionId, call, model: request.model, role: request.role, nodeId: request.nodeId, attempt: request.attempt,
      ...(request.arm ? { arm: request.arm } : {}),
      sent, added: request.messages.slice(sent), shape: requestShape(request),
      response: { content: response.content, toolCalls: response.toolCalls, usage: response.usage, model: response.model, finishReason: response.finishReason, ...(response.usageNote !== undefined ? { usageNote: response.usageNote } : {}) },
    };
    const text = `${JSON.stringify(line)}\n`;
    const next = (this.chains.get(sessionId) ?? Promise.resolve()).then(async () => {
      if (!this.made) {
        await mkdir(this.dir, { recursive: true });
        this.made = true;
      }
      await appendFile(path.join(this.dir, sessionFileName(sessionId)), text);
    });
    this.chains.set(sessionId, next.catch(() => undefined));
    return next;
  }

  async close(): Promise<void> {
    await Promise.all(this.chains.values());
  }
}

/**
 * Reads every session's recorded calls from transcript folders. A torn last line (the process
 * died mid-append) is dropped: that call was not recorded, so it will be made again.
 */
export async function readTranscripts(dirs: readonly string[]): Promise<Map<string, TranscriptCall[]>> {
  const sessions = new Map<string, TranscriptCall[]>();
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
      const text = await readFile(path.join(dir, name), 'utf8');
      const calls: TranscriptCall[] = [];
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        let parsed: TranscriptCall;
        try {
          parsed = TranscriptCall.parse(JSON.parse(line));
        } catch {
          break;
        }
        if (parsed.call !== calls.length) break;
        calls.push(parsed);
      }
      if (calls.length > 0 && !sessions.has(calls[0]!.sessionId)) sessions.set(calls[0]!.sessionId, calls);
    }
  }
  return sessions;
}
