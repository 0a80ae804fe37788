import type { ChatMessage, ToolCall, TranscriptLine, Usage } from '../../../harness/run-files.js';

/**
 * A session's transcript as a conversation a person can read, cut into pages of bounded size.
 *
 * A transcript line of type `request` stores only the messages it added to the session's
 * history. The conversation shows each message once: a request contributes only the messages
 * after the longest prefix its rebuilt history shares with what was already shown (the previous
 * request plus its reply), so the reply the next request echoes back is not shown twice.
 * When a request drops or rewrites earlier history, a note says so and its messages are shown
 * from the first that differs. Pure: lines in, blocks out.
 */

/** Text above this many characters is split into parts, so no block outgrows a page. */
export const PART_CHARS = 40_000;
/** A page holds blocks up to about this many characters of text. */
export const PAGE_CHARS = 120_000;
/** Text longer than this (or than COLLAPSE_LINES lines) is shown collapsed, its first lines as the summary. */
export const COLLAPSE_CHARS = 1_200;
export const COLLAPSE_LINES = 20;

export interface Part {
  index: number;
  of: number;
}

export type Block =
  | { kind: 'message'; call: number; role: 'system' | 'user' | 'assistant' | 'tool'; text: string; part: Part | null; toolName: string | null }
  | { kind: 'reply'; call: number; model: string; text: string | null; toolCalls: number; usage: Usage; usageNote: string | null; finishReason: string | null; latencyMs: number }
  | { kind: 'tool_call'; call: number; id: string; name: string; summary: string; text: string; part: Part | null }
  | { kind: 'error'; call: number; model: string; code: string; message: string }
  | { kind: 'note'; call: number; text: string };

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

const normal = (m: ChatMessage): string => {
  if (m.role === 'assistant') return JSON.stringify({ role: m.role, content: m.content ?? null, toolCalls: m.toolCalls ?? [] });
  return JSON.stringify(m);
};

function parts(text: string): Array<{ text: string; part: Part | null }> {
  if (text.length <= PART_CHARS) return [{ text, part: null }];
  const of = Math.ceil(text.length / PART_CHARS);
  return Array.from({ length: of }, (_, i) => ({ text: text.slice(i * PART_CHARS, (i + 1) * PART_CHARS), part: { index: i + 1, of } }));
}

/**
 * A tool call's arguments for reading: a JSON object's short scalar fields on one summary
 * line (`path: sqlcsv/cli.py`), its long or multi-line strings below, each under its name.
 * Anything else (not JSON, not an object) is shown as sent.
 */
export function formatArguments(raw: string): { summary: string; text: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { summary: '', text: raw };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { summary: '', text: JSON.stringify(value, null, 2) };
  const short: string[] = [];
  const long: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' && (v.includes('\n') || v.length > 120)) long.push(`── ${key} ──\n${v}`);
    else if (typeof v === 'string') short.push(`${key}: ${v}`);
    else {
      const json = JSON.stringify(v);
      if (json.length > 120) long.push(`── ${key} ──\n${JSON.stringify(v, null, 2)}`);
      else short.push(`${key}: ${json}`);
    }
  }
  return { summary: short.join('  ·  '), text: long.join('\n') };
}

function messageBlocks(m: ChatMessage, call: number, toolNames: ReadonlyMap<string, string>): Block[] {
  if (m.role === 'assistant') {
    const out: Block[] = [];
    if (m.content) for (const p of parts(m.content)) out.push({ kind: 'message', call, role: 'assistant', text: p.text, part: p.part, toolName: null });
    for (const tc of m.toolCalls ?? []) out.push(...toolCallBlocks(tc, call));
    return out;
  }
  const toolName = m.role === 'tool' ? (toolNames.get(m.toolCallId) ?? null) : null;
  return parts(m.content).map((p) => ({ kind: 'message', call, role: m.role, text: p.text, part: p.part, toolName }));
}

function toolCallBlocks(tc: ToolCall, call: number): Block[] {
  const { summary, text } = formatArguments(tc.arguments);
  return parts(text).map((p) => ({ kind: 'tool_call', call, id: tc.id, name: tc.name, summary, text: p.text, part: p.part }));
}

/** The transcript's lines as blocks in reading order, with the session's totals. */
export function conversation(lines: readonly TranscriptLine[]): { blocks: Block[]; totals: SessionTotals } {
  const blocks: Block[] = [];
  const totals: SessionTotals = { calls: 0, errors: 0, usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 }, models: [], toolCalls: 0, firstAt: null, lastAt: null };
  const toolNames = new Map<string, string>();
  let shown: string[] = [];
  // Each call's rebuilt history (and its normal form), by call index.
  const histories: Array<{ raw: ChatMessage[]; normal: string[] }> = [];
  let call = 0;
  for (const line of lines) {
    totals.firstAt ??= line.ts;
    totals.lastAt = line.ts;
    if (line.type === 'request') {
      call += 1;
      totals.calls += 1;
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
      for (const m of history.slice(common)) blocks.push(...messageBlocks(m, call, toolNames));
      shown = sent;
    } else if (line.type === 'response') {
      if (!totals.models.includes(line.model)) totals.models.push(line.model);
      totals.usage = {
        inputTokens: totals.usage.inputTokens + line.usage.inputTokens,
        outputTokens: totals.usage.outputTokens + line.usage.outputTokens,
        cachedTokens: totals.usage.cachedTokens + line.usage.cachedTokens,
      };
      totals.toolCalls += line.toolCalls.length;
      for (const tc of line.toolCalls) toolNames.set(tc.id, tc.name);
      const textParts = line.content ? parts(line.content) : [{ text: '', part: null }];
      blocks.push({ kind: 'reply', call, model: line.model, text: textParts.length === 1 ? line.content : null, toolCalls: line.toolCalls.length, usage: line.usage, usageNote: line.usageNote, finishReason: line.finishReason, latencyMs: line.latencyMs });
      if (textParts.length > 1) for (const p of textParts) blocks.push({ kind: 'message', call, role: 'assistant', text: p.text, part: p.part, toolName: null });
      for (const tc of line.toolCalls) blocks.push(...toolCallBlocks(tc, call));
      shown = [...shown, normal({ role: 'assistant', content: line.content, toolCalls: line.toolCalls })];
    } else {
      totals.errors += 1;
      blocks.push({ kind: 'error', call, model: line.model, code: line.code, message: line.message });
    }
  }
  return { blocks, totals };
}

/** Characters of text a block shows: what its page's size is counted in. */
export function blockSize(block: Block): number {
  switch (block.kind) {
    case 'message':
    case 'note':
      return block.text.length + 80;
    case 'tool_call':
      return block.text.length + block.summary.length + 120;
    case 'reply':
      return (block.text?.length ?? 0) + 200;
    case 'error':
      return block.message.length + 120;
  }
}

/**
 * Blocks cut into pages of about PAGE_CHARS: a page closes before the block that would take
 * it past the budget, so no page holds more than the budget plus one block (at most PART_CHARS
 * of text). A session always has at least one page, even an empty one.
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
