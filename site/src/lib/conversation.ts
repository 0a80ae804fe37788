import type { ChatMessage, ToolCall, TranscriptLine, Usage } from '../../../harness/run-file-schemas.js';
import { formatArguments } from './tool-arguments.js';

export { formatArguments };

/**
 * A session's transcript as a conversation an auditor can read, cut into pages of bounded size.
 *
 * A transcript line of type `request` stores only the messages it added to the session's
 * history. The conversation shows each message once: a request contributes only the messages
 * after the longest prefix its rebuilt history shares with what was already shown (the previous
 * request plus its reply), so the reply the next request echoes back is not shown twice.
 * When a request drops or rewrites earlier history, a note says so and its messages are shown
 * from the first that differs. Each tool result is moved directly under the call it answers
 * (a reply's calls come first and their results in the next request), and every block gets an
 * anchor, numbered in reading order, so a link can name any message. Pure: lines in, blocks out.
 */

/** A page holds blocks up to about this many characters of text. */
export const PAGE_CHARS = 60_000;

/**
 * A piece of a block's text: shown on the page (`text`, collapsed by the page when long), or
 * kept once per run in a plain text file (`stored`, see transcript-texts.ts) with its first
 * lines on the page.
 */
export type Segment =
  | { kind: 'text'; text: string }
  | { kind: 'stored'; key: string; head: string; chars: number; lines: number };

/** Block fields common to every kind: the call it belongs to and its anchor on the page. */
interface At {
  call: number;
  /** The element id of this block, unique in the session: `m1`, `m2`, ... in reading order. */
  anchor: string;
}

export type Block =
  | (At & {
      kind: 'message';
      role: 'system' | 'user' | 'assistant' | 'tool';
      body: Segment[];
      /** For a tool result: the call it answers (id, tool, argument summary) and that call's anchor. */
      answers: { id: string; name: string | null; summary: string; anchor: string | null } | null;
    })
  | (At & { kind: 'reply'; model: string; body: Segment[]; toolCalls: number; usage: Usage; usageNote: string | null; finishReason: string | null; latencyMs: number })
  | (At & { kind: 'tool_call'; id: string; name: string; summary: string; body: Segment[] })
  | (At & { kind: 'error'; model: string; code: string; message: string })
  | (At & { kind: 'note'; text: string });

export interface SessionTotals {
  calls: number;
  errors: number;
  usage: Usage;
  /** Models that answered, in order of first answer. */
  models: string[];
  toolCalls: number;
  firstAt: string | null;
  lastAt: string | null;
}

/** A block before it has its anchor. */
type Unanchored = Block extends infer B ? (B extends Block ? Omit<B, 'anchor'> : never) : never;

const normal = (m: ChatMessage): string => {
  if (m.role === 'assistant') return JSON.stringify({ role: m.role, content: m.content ?? null, toolCalls: m.toolCalls ?? [] });
  return JSON.stringify(m);
};

const body = (text: string | null | undefined): Segment[] => (text ? [{ kind: 'text', text }] : []);

function toolCallBlock(tc: ToolCall, call: number): Unanchored {
  const { summary, text } = formatArguments(tc.arguments);
  return { kind: 'tool_call', call, id: tc.id, name: tc.name, summary, body: body(text) };
}

function messageBlocks(m: ChatMessage, call: number): Unanchored[] {
  if (m.role === 'assistant') {
    const out: Unanchored[] = [];
    if (m.content) out.push({ kind: 'message', call, role: 'assistant', body: body(m.content), answers: null });
    for (const tc of m.toolCalls ?? []) out.push(toolCallBlock(tc, call));
    return out;
  }
  const answers = m.role === 'tool' ? { id: m.toolCallId, name: null, summary: '', anchor: null } : null;
  return [{ kind: 'message', call, role: m.role, body: body(m.content), answers }];
}

/**
 * Moves each tool result directly under the latest call with its id shown before it (a result
 * whose call was never shown stays where it is), then numbers the anchors in the new order and
 * names, on each result, the call it answers.
 */
function pairAndAnchor(blocks: readonly Unanchored[]): Block[] {
  const lastCall = new Map<string, number>();
  const under = new Map<number, Unanchored[]>();
  const moved = new Set<number>();
  blocks.forEach((b, i) => {
    if (b.kind === 'tool_call') lastCall.set(b.id, i);
    else if (b.kind === 'message' && b.answers) {
      const at = lastCall.get(b.answers.id);
      if (at === undefined) return;
      under.set(at, [...(under.get(at) ?? []), b]);
      moved.add(i);
    }
  });
  const ordered: Unanchored[] = [];
  blocks.forEach((b, i) => {
    if (moved.has(i)) return;
    ordered.push(b);
    ordered.push(...(under.get(i) ?? []));
  });
  const out: Block[] = [];
  const latest = new Map<string, { name: string; summary: string; anchor: string }>();
  for (const [i, b] of ordered.entries()) {
    const anchor = `m${i + 1}`;
    if (b.kind === 'tool_call') {
      latest.set(b.id, { name: b.name, summary: b.summary, anchor });
      out.push({ ...b, anchor });
    } else if (b.kind === 'message' && b.answers) {
      const callShown = latest.get(b.answers.id);
      out.push({ ...b, anchor, answers: { id: b.answers.id, name: callShown?.name ?? null, summary: callShown?.summary ?? '', anchor: callShown?.anchor ?? null } });
    } else out.push({ ...b, anchor } as Block);
  }
  return out;
}

/** A session's figures from its transcript's lines: what its row and its page both print. */
export function sessionTotals(lines: readonly TranscriptLine[]): SessionTotals {
  const totals: SessionTotals = { calls: 0, errors: 0, usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 }, models: [], toolCalls: 0, firstAt: null, lastAt: null };
  for (const line of lines) {
    totals.firstAt ??= line.ts;
    totals.lastAt = line.ts;
    if (line.type === 'request') totals.calls += 1;
    else if (line.type === 'response') {
      if (!totals.models.includes(line.model)) totals.models.push(line.model);
      totals.usage = {
        inputTokens: totals.usage.inputTokens + line.usage.inputTokens,
        outputTokens: totals.usage.outputTokens + line.usage.outputTokens,
        cachedTokens: totals.usage.cachedTokens + line.usage.cachedTokens,
      };
      totals.toolCalls += line.toolCalls.length;
    } else totals.errors += 1;
  }
  return totals;
}

/** The transcript's lines as blocks in reading order, with the session's totals. */
export function conversation(lines: readonly TranscriptLine[]): { blocks: Block[]; totals: SessionTotals } {
  const blocks: Unanchored[] = [];
  let shown: string[] = [];
  // Each call's rebuilt history (and its normal form), by call index.
  const histories: Array<{ raw: ChatMessage[]; normal: string[] }> = [];
  let call = 0;
  for (const line of lines) {
    if (line.type === 'request') {
      call += 1;
      // The line holds only what it added: its whole history is the first `sent` messages of
      // request `call - 1`'s history, then `added` (see TranscriptLine). A call index seen before
      // means a resumed session made that call again: the later lines supersede the earlier.
      const resumed = line.call < histories.length;
      if (resumed) {
        blocks.push({ kind: 'note', call, text: `The session was resumed here: its calls from call ${line.call + 1} were made again, and what follows supersedes them.` });
      }
      const before = histories[line.call - 1] ?? { raw: [], normal: [] };
      if (line.call > histories.length || line.sent > before.raw.length) {
        blocks.push({ kind: 'note', call, text: `This call kept ${line.sent} messages of a history of ${before.raw.length}: a line of the transcript is missing, and only the messages this call added are shown.` });
      }
      const kept = Math.min(line.sent, before.raw.length);
      const history = [...before.raw.slice(0, kept), ...line.added];
      const sent = [...before.normal.slice(0, kept), ...line.added.map(normal)];
      histories.length = Math.min(histories.length, line.call);
      histories[line.call] = { raw: history, normal: sent };
      let common = resumed ? 0 : Math.min(kept, shown.length);
      while (common < sent.length && common < shown.length && sent[common] === shown[common]) common++;
      if (common < shown.length && call > 1 && !resumed) {
        blocks.push({ kind: 'note', call, text: `This call's history differs from what was shown before, from message ${common + 1}: its messages are shown again from there.` });
      }
      for (const m of history.slice(common)) blocks.push(...messageBlocks(m, call));
      shown = sent;
    } else if (line.type === 'response') {
      blocks.push({ kind: 'reply', call, model: line.model, body: body(line.content), toolCalls: line.toolCalls.length, usage: line.usage, usageNote: line.usageNote, finishReason: line.finishReason, latencyMs: line.latencyMs });
      for (const tc of line.toolCalls) blocks.push(toolCallBlock(tc, call));
      shown = [...shown, normal({ role: 'assistant', content: line.content, toolCalls: line.toolCalls })];
    } else {
      blocks.push({ kind: 'error', call, model: line.model, code: line.code, message: line.message });
    }
  }
  return { blocks: pairAndAnchor(blocks), totals: sessionTotals(lines) };
}

const segmentsSize = (segments: readonly Segment[]): number => segments.reduce((n, s) => n + (s.kind === 'text' ? s.text.length : s.head.length + 200), 0);

/** Characters of text a block shows: what its page's size is counted in. */
export function blockSize(block: Block): number {
  switch (block.kind) {
    case 'message':
      return segmentsSize(block.body) + 120;
    case 'note':
      return block.text.length + 80;
    case 'tool_call':
      return segmentsSize(block.body) + block.summary.length + 120;
    case 'reply':
      return segmentsSize(block.body) + 200;
    case 'error':
      return block.message.length + 120;
  }
}

/**
 * Blocks cut into pages of about PAGE_CHARS: a page closes before the block that would take
 * it past the budget, so no page holds more than the budget plus one block. A session always
 * has at least one page, even an empty one.
 */
export function paginate<T extends Block>(blocks: readonly T[], budget = PAGE_CHARS): T[][] {
  const pages: T[][] = [[]];
  let size = 0;
  for (const block of blocks) {
    const n = blockSize(block);
    if (size > 0 && size + n > budget) {
      pages.push([]);
      size = 0;
    }
    pages.at(-1)!.push(block);
    size += n;
  }
  return pages;
}

/** One tool call of the session, for the list at the top of its first page. */
export interface CallEntry {
  anchor: string;
  /** The page (1-based) the call is on. */
  page: number;
  id: string;
  name: string;
  summary: string;
  /** Its result's anchor and page, when the result was recorded. */
  result: { anchor: string; page: number } | null;
}

/** Every tool call of the paginated session, with the page each call and its result is on. */
export function callIndex(pages: readonly (readonly Block[])[]): CallEntry[] {
  const calls: CallEntry[] = [];
  const byAnchor = new Map<string, CallEntry>();
  pages.forEach((blocks, i) => {
    for (const b of blocks) {
      if (b.kind === 'tool_call') {
        const entry: CallEntry = { anchor: b.anchor, page: i + 1, id: b.id, name: b.name, summary: b.summary, result: null };
        calls.push(entry);
        byAnchor.set(b.anchor, entry);
      } else if (b.kind === 'message' && b.answers?.anchor) {
        const entry = byAnchor.get(b.answers.anchor);
        if (entry && !entry.result) entry.result = { anchor: b.anchor, page: i + 1 };
      }
    }
  });
  return calls;
}
