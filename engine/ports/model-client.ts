import { z } from 'zod';
import type { Arm } from '../base/arm.js';
import { conservativeTokens, type Unreceived, type Usage } from '../base/usage.js';

/**
 * The ModelClient port: one chat-completions call. Adapters (OpenAI-compatible HTTP, the
 * simulated population, test scripts) implement it; the engine never knows which it has.
 */

export const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
export type ToolCall = z.infer<typeof ToolCall>;

/**
 * Characters of `content`, from its start, that repeat across sessions (a role's prompt, the
 * objective, the layout contract: see request-layout.ts). An adapter for a provider that needs
 * explicit cache breakpoints puts one there; every other adapter ignores it. Absent: no part of
 * the message is known to repeat.
 */
const CacheBreak = z.number().int().nonnegative().optional();

export const ChatMessage = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string(), cacheBreak: CacheBreak }),
  z.object({ role: z.literal('user'), content: z.string(), cacheBreak: CacheBreak }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), toolCalls: z.array(ToolCall).optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * Where each part of a session's opening request goes. Providers cache the longest prefix a
 * request shares with an earlier one, so what repeats must come first:
 * - `shared-first` (transcript format 4): the system message is the role's prompt and then the
 *   objective (the same for every session of the role in a sweep); the first user message opens
 *   with the layout contract (the same under one root's plan), and only then the `## Task` line,
 *   the goal and what is particular to the node. Two sessions of one role share the system
 *   message whole, and the contract too when they serve one tree. Each message carries
 *   `cacheBreak` where its repeated part ends, for providers that need explicit breakpoints.
 * - `task-first` (transcript format 3 and earlier): the request as it was: the `## Task` line,
 *   then goal, objective, contract and particulars in one user message, no breakpoints. Kept
 *   only so a run recorded in it replays under its own layout (requestLayoutOf, transcript.ts).
 * The messages are built in runtime/request-layout.ts.
 */
export const RequestLayout = z.enum(['task-first', 'shared-first']);
export type RequestLayout = z.infer<typeof RequestLayout>;

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * The jobs a model does in the engine; prompts, selection and accounting key on them.
 * `reviewer` judges a merge in the gated arm (a family that contributed nothing);
 * `self_reviewer` is the merging agent reviewing its own merge in the ungated arm.
 */
export const Role = z.enum(['planner', 'worker', 'checker', 'verifier', 'drift_judge', 'merger', 'reviewer', 'self_reviewer']);
export type Role = z.infer<typeof Role>;

export interface ModelRequest {
  /** Model id as the endpoint knows it. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Upper bound on output tokens: the router sets it from what the budget leaves. Absent: the endpoint's own limit. */
  maxTokens?: number;
  /**
   * The most output this call may produce when maxTokens is not sent: the model's declared
   * output limit, else the session's remaining token ceiling; set by the router. Not sent to
   * the endpoint: a client charges it as the output of a reply whose usage it cannot read.
   * Absent: unknown (the client then charges the output it received, counted high).
   */
  outputBound?: number;
  /** Default 0: the engine wants repeatable answers. */
  temperature?: number;
  /** Ask the endpoint for a JSON object (when it supports it). Default false. */
  json?: boolean;
  /** Which job this call does; not sent to the endpoint, but fakes and transcripts read it. */
  role: Role;
  /** The execution id spend and transcript are both keyed by. */
  sessionId: string;
  /** The node the call is made for. */
  nodeId: string;
  /** The node's attempt the call belongs to (1 = first; planning and check writing count as 1). */
  attempt: number;
  /**
   * The arm the call serves: set on every call of an arm's merge phase, and on every call of a
   * build that serves one arm alone (independent pairing). Absent on work both arms share.
   */
  arm?: Arm;
  /**
   * The cell of a sweep the call serves (under shared pairing, the pair's first cell for work
   * both arms share), set by the harness; not sent to the endpoint but in the call header of a
   * provider entry that opts in (see call-identity.ts). Absent outside a sweep.
   */
  cellId?: string;
}

export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  usage: Usage;
  /** The model that actually answered, as the endpoint reported it. Independence is judged on this. */
  model: string;
  /** `length` means the reply was cut off at `maxTokens` and is incomplete. */
  finishReason: string | null;
  /** Why `usage` is an estimate or was corrected; absent or null when the endpoint's figures were used as they came. */
  usageNote?: string | null;
  /**
   * True when the reply's usage was missing or malformed and `usage` is the most the call could
   * have cost (see {@link worstCaseUsage}), so callers can count such calls. Absent: read as sent.
   */
  usageUnreadable?: boolean;
  /**
   * Earlier attempts of this call the server may have completed but whose reply never arrived
   * (deadline passed, connection dropped mid-body), each charged as an unreadable reply. NOT
   * included in `usage`: a caller charges both. Absent: there were none.
   */
  unreceived?: Unreceived;
}

export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** What a call whose usage cannot be read is charged: every character sent and received, counted high. */
export function conservativeUsage(request: Pick<ModelRequest, 'messages' | 'tools'>, reply: Pick<ModelResponse, 'content' | 'toolCalls'>): Usage {
  const sent = JSON.stringify(request.messages) + JSON.stringify(request.tools ?? []);
  const received = (reply.content ?? '') + JSON.stringify(reply.toolCalls ?? []);
  return { inputTokens: conservativeTokens(sent), outputTokens: conservativeTokens(received), cachedTokens: 0 };
}

/**
 * What a call whose usage cannot be read is charged: the most it could have cost. Input is the
 * prompt counted high; output is `maxTokens` when it was sent, else `outputBound`, else the
 * reply received counted high (nothing, for a reply that never arrived). `charged` says which,
 * for the usage note.
 */
export function worstCaseUsage(
  request: Pick<ModelRequest, 'messages' | 'tools' | 'maxTokens' | 'outputBound'>,
  reply: Pick<ModelResponse, 'content' | 'toolCalls'> | null,
): { usage: Usage; charged: string } {
  const counted = conservativeUsage(request, reply ?? { content: null, toolCalls: [] });
  const [outputTokens, bound] =
    request.maxTokens !== undefined ? [request.maxTokens, `maxTokens (${request.maxTokens})`]
    : request.outputBound !== undefined ? [request.outputBound, `the output bound (${request.outputBound})`]
    : reply ? [counted.outputTokens, 'the reply received counted high'] : [0, 'nothing for the reply, which never arrived'];
  return { usage: { ...counted, outputTokens }, charged: `the most the call could have cost: the prompt counted high plus ${bound}` };
}
