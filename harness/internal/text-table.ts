/** Column alignment: numbers read best right-aligned, labels left. */
export type Align = 'left' | 'right';

/**
 * Lays rows out as aligned columns separated by two spaces, indented by `indent`. Trailing
 * spaces are trimmed so snapshots and terminals agree.
 */
export function textTable(rows: ReadonlyArray<ReadonlyArray<string>>, align: ReadonlyArray<Align>, indent = '  '): string[] {
  const widths = align.map((_, col) => Math.max(0, ...rows.map((row) => (row[col] ?? '').length)));
  return rows.map((row) =>
    `${indent}${align
      .map((a, col) => {
        const cell = row[col] ?? '';
        return a === 'right' ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!);
      })
      .join('  ')}`.trimEnd(),
  );
}

/** Breaks prose at spaces so no line passes `width`; continuation lines get `indent`. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (next.length > width && line) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}
