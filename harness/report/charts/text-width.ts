/**
 * Text widths for the server-side renderer. Vega, with no canvas to measure on, estimates a
 * string as 0.8 × its length × its font size, which is about 1.6 times what Helvetica or Arial
 * draws: every title, legend and axis reserved that much room, and about 40% of each canvas
 * was left empty on the right. These are the Helvetica advance widths (Adobe's AFM, in 1/1000
 * em; Arial and Liberation Sans share them), so the bytes still do not depend on the machine's
 * fonts, and a small margin covers a substitute font that runs a little wider.
 */

// Advance widths of the printable ASCII characters (space to ~), regular and bold.
const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
  975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
  333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

/** The few non-ASCII characters the charts print; anything else is taken as wide as an M would be in a narrow font. */
const OTHER: Record<string, number> = { '−': 584, '–': 556, '—': 1000, '·': 278, '…': 1000, '’': 222, '‘': 222, '≥': 584, '≤': 584, '◇': 700, '×': 584 };
const UNKNOWN = 700;

/** A substitute font (DejaVu Sans, Roboto) may run a few percent wider; overestimating wastes a little room, underestimating clips. */
const MARGIN = 1.06;

function bold(weight: unknown): boolean {
  return weight === 'bold' || weight === 'bolder' || (typeof weight === 'number' && weight >= 600) || (typeof weight === 'string' && Number(weight) >= 600);
}

/** The drawn width in pixels of `text` at `fontSize` px. */
export function textWidth(text: string, fontSize: number, fontWeight?: unknown): number {
  const table = bold(fontWeight) ? BOLD : REGULAR;
  let units = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    units += code >= 32 && code <= 126 ? table[code - 32]! : (OTHER[ch] ?? UNKNOWN);
  }
  return (units / 1000) * fontSize * MARGIN;
}

/** Greedy word wrap of `text` into lines no wider than `width` px at `fontSize` px. A single word wider than the line stands alone. */
export function wrapToWidth(text: string, width: number, fontSize: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, fontSize) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** Greedy wrap of a list of items joined by `separator`, never breaking inside an item (`judge_recall 0.8`, `QUOTA STOP: ...`). */
export function wrapItemsToWidth(items: readonly string[], separator: string, width: number, fontSize: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line ? `${line}${separator}${item}` : item;
    if (line && textWidth(next, fontSize) > width) {
      lines.push(`${line}${separator.trimEnd()}`);
      line = item;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}
