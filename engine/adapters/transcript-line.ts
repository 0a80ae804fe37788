import { z } from 'zod';
import { Unreceived, Usage } from '../base/usage.js';
import { ChatMessage, Role, ToolCall, type RequestLayout } from '../ports/model-client.js';

// The transcript line's schema, as data only (zod and the message schemas): the results site reads
// transcripts through harness/run-file-schemas.ts without loading the recorder below it (transcript.ts).

/**
 * The transcript format written now. A replay answers the engine's requests from a transcript
 * and refuses any request the record does not hold, so the version also names the request
 * layout the engine used (request-layout.ts): a run replays only when rebuilt in its own.
 * - 3: a request line stores only the messages added since the session's previous call; the
 *   requests are laid out `task-first`.
 * - 4: the same lines; the requests are laid out `shared-first` (what repeats across sessions
 *   first, for prompt caching) and their system and first user messages carry `cacheBreak`.
 */
export const TRANSCRIPT_VERSION = 4;

/** The versions this code reads: their lines have one shape, their requests each their own layout. */
export const TranscriptVersion = z.union([z.literal(3), z.literal(TRANSCRIPT_VERSION)]);
export type TranscriptVersion = z.infer<typeof TranscriptVersion>;

const LAYOUT_OF: Record<TranscriptVersion, RequestLayout> = { 3: 'task-first', 4: 'shared-first' };

/** The request layout the engine used when it wrote transcripts of this version. */
export function requestLayoutOf(version: TranscriptVersion): RequestLayout {
  return LAYOUT_OF[version];
}

const common = {
  version: TranscriptVersion,
  ts: z.string(),
  sessionId: z.string(),
  nodeId: z.string(),
  role: Role,
  /** The node's attempt the call belonged to. */
  attempt: z.number().int(),
  /** The model asked (request) or that answered (response). */
  model: z.string(),
  /** 0-based index of the call in its session; a request and its response or error share it. */
  call: z.number().int().nonnegative(),
};

/**
 * One transcript line; a session's file holds every request and response it made, in order.
 *
 * A request stores only the messages it ADDED to the session's history: its whole history is
 * the first `sent` messages of the previous request's history, then `added`. The engine's
 * conversations only grow, so `sent` is the previous length and a long session costs its
 * length once, not once per call (whole histories made transcripts grow quadratically).
 */
export const TranscriptLine = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('request'),
    ...common,
    /** How many messages of the previous request's history this one kept before `added`. */
    sent: z.number().int().nonnegative(),
    added: z.array(ChatMessage),
    tools: z.array(z.string()),
    json: z.boolean(),
    maxTokens: z.number().int().nullable(),
    /** sha256 of the full tool specs, the JSON flag, maxTokens and the model: compared, never shown. */
    shape: z.string(),
  }),
  z.object({
    type: z.literal('response'),
    ...common,
    content: z.string().nullable(),
    toolCalls: z.array(ToolCall),
    usage: Usage,
    /** Why the usage is an estimate or was corrected; null when the endpoint's figures were used. */
    usageNote: z.string().nullable(),
    /** True when the usage was unreadable and the call was charged its worst case. Absent: read as sent. */
    usageUnreadable: z.literal(true).optional(),
    /** Attempts of this call the server may have answered but the client never received, and their worst-case charge. Absent: none. */
    unreceived: Unreceived.optional(),
    finishReason: z.string().nullable(),
    latencyMs: z.number().int(),
  }),
  z.object({
    type: z.literal('error'), ...common, code: z.string(), message: z.string(), latencyMs: z.number().int(),
    /** Attempts of this call the server may have answered but the client never received, and their worst-case charge: paid though the call failed. Absent: none. */
    unreceived: Unreceived.optional(),
  }),
]);
export type TranscriptLine = z.infer<typeof TranscriptLine>;
export type TranscriptRequest = Extract<TranscriptLine, { type: 'request' }>;
