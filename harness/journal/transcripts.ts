import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { TranscriptGapError, TranscriptLine, sessionRequests, type ChatMessage, type ModelResponse, type TranscriptRequest } from '../../engine/index.js';

/**
 * One completed call of a recorded session, read back from the engine's transcript lines
 * (`TranscriptLine`, written by the TranscriptRecorder): the request as stored (exactly as
 * sent), its whole history rebuilt, and the response it got.
 */
export interface RecordedCall {
  call: number;
  request: TranscriptRequest;
  messages: ChatMessage[];
  response: ModelResponse;
}

/** A session file's lines up to the first that does not parse: a torn last line was never recorded. */
export function parseLines(text: string): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    const parsed = (() => {
      try {
        return TranscriptLine.safeParse(JSON.parse(raw));
      } catch {
        return null;
      }
    })();
    if (!parsed?.success) break;
    lines.push(parsed.data);
  }
  return lines;
}

/**
 * A session's completed calls, in call order: each request with the response that followed it.
 * The record ends at the first call without a response (the call in flight at a kill, or one
 * that ended in an error): that call, and every later one, will be made again. A request line
 * numbered below the calls read supersedes the lines from there (a resumed session went live
 * at that call). A transcript with a gap holds no usable record at all: nothing is replayed
 * from it, so nothing is guessed.
 */
export function completedCalls(lines: readonly TranscriptLine[]): RecordedCall[] {
  let requests: ReturnType<typeof sessionRequests>;
  try {
    requests = sessionRequests(lines);
  } catch (error) {
    if (error instanceof TranscriptGapError) return [];
    throw error;
  }
  const responses: Array<Extract<TranscriptLine, { type: 'response' }> | undefined> = [];
  for (const line of lines) {
    if (line.type === 'request') responses.length = line.call;
    else if (line.type === 'response') responses[line.call] = line;
    else responses[line.call] = undefined;
  }
  const calls: RecordedCall[] = [];
  for (const { line, messages } of requests) {
    const r = responses[line.call];
    if (!r) break;
    calls.push({
      call: line.call, request: line, messages,
      response: { content: r.content, toolCalls: r.toolCalls, usage: r.usage, model: r.model, finishReason: r.finishReason, usageNote: r.usageNote, ...(r.usageUnreadable ? { usageUnreadable: true } : {}), ...(r.unreceived ? { unreceived: r.unreceived } : {}) },
    });
  }
  return calls;
}

/**
 * Each arm's transcripts read from its own cell folder, by session: record (a resume) and replay
 * both answer a session only from the folder it was written to, because under independent
 * pairing both arms' trees use the same engine session ids.
 */
export async function readTranscriptsByArm<A extends string>(arms: readonly A[], folderOf: (arm: A) => string): Promise<Record<A, Map<string, RecordedCall[]>>> {
  return Object.fromEntries(await Promise.all(arms.map(async (arm) => [arm, await readTranscripts([folderOf(arm)])] as const))) as Record<A, Map<string, RecordedCall[]>>;
}

/** Every session's completed calls (see completedCalls) from transcript folders, by session id. */
export async function readTranscripts(dirs: readonly string[]): Promise<Map<string, RecordedCall[]>> {
  const sessions = new Map<string, RecordedCall[]>();
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
      const lines = parseLines(await readFile(path.join(dir, name), 'utf8'));
      const sessionId = lines[0]?.sessionId;
      if (sessionId === undefined || sessions.has(sessionId) || lines.some((l) => l.sessionId !== sessionId)) continue;
      const calls = completedCalls(lines);
      if (calls.length > 0) sessions.set(sessionId, calls);
    }
  }
  return sessions;
}

