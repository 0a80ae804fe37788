import { DECODED_BREAK } from './scan-views.js';

/**
 * A JSON text cut for the secret scan into its long string literals and the rest. A run's
 * transcripts repeat the same long strings many times over (the objective in every session's
 * prompt, a file a worker wrote and its verifier read back): 7.5 MB of the example's
 * transcripts hold 1.6 MB of distinct long strings. Scanning each distinct literal once, and
 * the text around them, finds what scanning the whole text finds, at a fraction of the work.
 *
 * Why the parts find what the whole finds:
 * - A literal is cut whole, with its quotes, so each decoding pass of the literal sees what
 *   the same pass of the whole text sees there (an escape never runs past a literal's
 *   unescaped closing quote, and the quotes stay in the piece for a second pass to read).
 * - The rest keeps `KEEP` characters at each end of every literal it stands for, so a match
 *   that crosses a literal's edge (a JSON key and the start of its value, `"api_key": "sk-…`)
 *   lies whole in the rest as long as it is shorter than KEEP; every shape in the catalogue is
 *   shorter, bar a private key's body, which is found by its header.
 * - The middle it leaves out is replaced by a decoded line break (U+2028): it ends a token and
 *   an assignment as a line break does, so nothing is joined across the gap, and it is not
 *   counted as a line, so a line of the rest is the line of the file.
 * A token cut exactly at the gap can be seen where the whole text has none (a word boundary
 * where there was none): the parts may report more than the whole, never less.
 */

/** Characters kept at each end of a left-out literal: longer than any bounded shape the catalogue matches. */
export const KEEP = 256;
/** Literals at least this long are scanned on their own: below it the bookkeeping costs more than it saves. */
export const LONG_LITERAL = 1024;

export interface LongLiteral {
  /** 1-based line of the text the literal stands on (a literal never spans a line). */
  line: number;
  /** The literal as written, quotes included. */
  text: string;
}

export interface LiteralCut {
  /** The text with the middle of every long literal replaced by U+2028: the same lines, in the same places. */
  rest: string;
  literals: LongLiteral[];
}

const QUOTE = 34;
const BACKSLASH = 92;
const LF = 10;
const CR = 13;

/** The end (one past the closing quote) of the literal opening at `start`, or -1 when the line ends first (a torn or not-JSON line: left in the rest). */
function literalEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c === LF || c === CR) return -1;
    if (c === BACKSLASH) {
      const next = text.charCodeAt(i + 1);
      if (next === LF || next === CR || Number.isNaN(next)) return -1;
      i += 1;
    }
  }
  return -1;
}

/** Cuts `text` into its literals of at least `min` characters (quotes included) and the rest. */
export function cutLongLiterals(text: string, min = LONG_LITERAL, keep = KEEP): LiteralCut {
  const literals: LongLiteral[] = [];
  const rest: string[] = [];
  let at = 0;
  let line = 1;
  let counted = 0;
  let start = text.indexOf('"');
  while (start !== -1) {
    const end = literalEnd(text, start);
    if (end === -1) {
      // Not a literal: carry on after the quote (the next quote may open one on a later line).
      start = text.indexOf('"', start + 1);
      continue;
    }
    if (end - start >= Math.max(min, 2 * keep + 1)) {
      for (let i = text.indexOf('\n', counted); i !== -1 && i < start; i = text.indexOf('\n', i + 1)) line += 1;
      counted = start;
      literals.push({ line, text: text.slice(start, end) });
      rest.push(text.slice(at, start + keep), DECODED_BREAK);
      at = end - keep;
    }
    start = text.indexOf('"', end);
  }
  rest.push(text.slice(at));
  return { rest: rest.join(''), literals };
}
