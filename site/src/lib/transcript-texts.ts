import { createHash } from 'node:crypto';
import type { Block, Segment } from './conversation.js';

/**
 * Long texts of a transcript kept out of its pages. A prompt repeats the objective in every
 * session and a tool output can run to megabytes, so a text longer than STORE_CHARS is cut at
 * its top-level Markdown headings, the sections grouped by how many texts of the cell carry
 * them (see chunks), and each long chunk written once per run as a plain text file
 * named by its content hash; the page shows its first lines and links the file. Texts up to
 * that length stay on the page, collapsed at a line boundary when long.
 */

/** A text (or section) longer than this is kept in a text file of the run, not on the page. */
export const STORE_CHARS = 800;
/** Text longer than this (or than COLLAPSE_LINES lines) is shown collapsed, its first lines above the rest. */
export const COLLAPSE_CHARS = 1_200;
export const COLLAPSE_LINES = 20;
/**
 * A system message longer than this is always stored: each role's instructions are the same in
 * every session of the run, so one file serves them all and no page repeats them.
 */
export const SYSTEM_STORE_CHARS = 300;
/** How much of a stored text its page shows. */
const HEAD = { chars: 160, lines: 2 };

/**
 * The first lines of `text` within `chars` characters and `lines` lines, ending at a line
 * boundary, and the rest; null when the text fits whole. When even the first line is longer,
 * it is cut at the last space or tab within the limit; a first line without one (a long token)
 * gives an empty head, so a word is never cut.
 */
export function collapse(text: string, chars = COLLAPSE_CHARS, lines = COLLAPSE_LINES): { head: string; rest: string } | null {
  if (text.length <= chars && text.split('\n', lines + 1).length <= lines) return null;
  let end = 0;
  let count = 0;
  while (count < lines) {
    const nl = text.indexOf('\n', end);
    const next = nl === -1 ? text.length : nl + 1;
    if (next > chars) break;
    end = next;
    count += 1;
    if (nl === -1) break;
  }
  if (end === 0) {
    const window = text.slice(0, chars + 1);
    const space = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\t'));
    end = space > 0 ? space + 1 : 0;
  }
  if (end >= text.length) return null;
  return { head: text.slice(0, end), rest: text.slice(end) };
}

/** `text` cut before each line that starts a top-level Markdown heading (`# ` or `## `). */
export function sections(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const m of text.matchAll(/\n(?=##? )/g)) {
    const at = m.index + 1;
    if (at > start) out.push(text.slice(start, at));
    start = at;
  }
  out.push(text.slice(start));
  return out.filter((s) => s !== '');
}

/** How many hex digits of its SHA-256 name a stored text. */
const KEY_DIGITS = 24;
export const textKey = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, KEY_DIGITS);
/** What textKey makes, and nothing else: a stored text's file is named by it. */
export const TEXT_KEY = new RegExp(`^[0-9a-f]{${KEY_DIGITS}}$`);

/** How many texts of a cell carry each section (by key): what `chunks` groups sections by. */
export type SectionCounts = ReadonlyMap<string, number>;

/** The long texts' sections counted, each once per text that holds it. */
export function countSections(texts: Iterable<string>): SectionCounts {
  const counts = new Map<string, number>();
  for (const text of texts) {
    if (text.length <= STORE_CHARS) continue;
    for (const key of new Set(sections(text).map(textKey))) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * `text` cut into chunks of consecutive sections that the same number of texts carry. The
 * objective every prompt of a cell repeats is carried by all of them, so it comes out as one
 * chunk, the same text in each prompt whatever stands around it, and is stored once; what
 * only one session says (its goal, its checks) comes out apart from it.
 */
export function chunks(text: string, counts: SectionCounts): string[] {
  const out: Array<{ count: number; text: string }> = [];
  for (const section of sections(text)) {
    const count = counts.get(textKey(section)) ?? 1;
    const last = out.at(-1);
    if (last && last.count === count) last.text += section;
    else out.push({ count, text: section });
  }
  return out.map((c) => c.text);
}

/** A run's stored texts: each is told to `onText` once per key. */
export class TextStore {
  private readonly keys = new Set<string>();

  constructor(private readonly onText: (key: string, text: string) => void = () => {}) {}

  /** The key of `text`, stored if new. */
  put(text: string): string {
    const key = textKey(text);
    if (!this.keys.has(key)) {
      this.keys.add(key);
      this.onText(key, text);
    }
    return key;
  }
}

function storedSegments(text: string, store: TextStore, counts: SectionCounts): Segment[] {
  const out: Segment[] = [];
  for (const group of chunks(text, counts)) {
    if (group.length <= STORE_CHARS) {
      const last = out.at(-1);
      if (last?.kind === 'text') last.text += group;
      else out.push({ kind: 'text', text: group });
      continue;
    }
    out.push(storedWhole(group, store));
  }
  return out;
}

const keep = (segments: readonly Segment[], store: TextStore, counts: SectionCounts): Segment[] =>
  segments.flatMap((s) => (s.kind === 'text' && s.text.length > STORE_CHARS ? storedSegments(s.text, store, counts) : [s]));

/** Every text of the blocks, for countSections. */
export function* blockTexts(blocks: readonly Block[]): Generator<string> {
  for (const b of blocks) if (b.kind === 'message' || b.kind === 'reply' || b.kind === 'tool_call') for (const s of b.body) if (s.kind === 'text') yield s.text;
}

function storedWhole(text: string, store: TextStore): Segment {
  const cut = collapse(text, HEAD.chars, HEAD.lines);
  return { kind: 'stored', key: store.put(text), head: cut?.head ?? '', chars: text.length, lines: text.split('\n').length };
}

/** The blocks with every long text kept in the store, cut by `counts` (see chunks), and linked in its place. */
export function storeLongTexts(blocks: readonly Block[], store: TextStore, counts: SectionCounts = new Map()): Block[] {
  return blocks.map((b) => {
    if (b.kind === 'message' && b.role === 'system') return { ...b, body: b.body.map((s) => (s.kind === 'text' && s.text.length > SYSTEM_STORE_CHARS ? storedWhole(s.text, store) : s)) };
    return b.kind === 'message' || b.kind === 'reply' || b.kind === 'tool_call' ? { ...b, body: keep(b.body, store, counts) } : b;
  });
}
