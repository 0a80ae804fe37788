import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runFiles } from '../../harness/index.js';
import { sections } from '../../site/src/lib/transcript-texts.js';

/**
 * SYNTHETIC, not a recording: a run folder of a large sweep for the site-scale bench, made from a
 * recorded template run (the committed example) by repeating its cells as further repetitions
 * (`cap2-rep7-gated` is copy 7 of the template's `cap2-rep1-gated`) until it holds `sessions`
 * sessions. Its report is the template's (the repeated cells are "not in the report").
 *
 * So that the copies do not flatter the site's storage (a text stored once serves every copy of
 * it), every text of copy k is made its own: each section of it gets a line naming the copy,
 * except the sections every cell of the template carries, which a real sweep repeats too (the
 * objective, the roles' instructions). Each transcript line still matches its schema.
 */

const { TranscriptLine, runPaths, parseCellId, cellId } = runFiles;
type TranscriptLine = runFiles.TranscriptLine;

export interface SweepFixture {
  dir: string;
  cells: number;
  sessions: number;
  /** Bytes of transcripts written. */
  bytes: number;
}

/** Sections carried by every cell of the template: what a real sweep shares across its cells. */
async function sweepShared(template: string, cells: readonly string[]): Promise<Set<string>> {
  const perCell: Array<Set<string>> = [];
  for (const cell of cells) {
    const dir = runPaths(template).cell(cell).transcripts;
    const here = new Set<string>();
    for (const file of await readdir(dir).catch(() => [] as string[])) {
      for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
        if (!line.trim()) continue;
        forEachText(JSON.parse(line) as TranscriptLine, (t) => (sections(t).forEach((s) => here.add(s)), t));
      }
    }
    perCell.push(here);
  }
  const [first, ...rest] = perCell;
  return new Set([...(first ?? [])].filter((s) => rest.every((cell) => cell.has(s))));
}

/** Rewrites every text of a line (message contents, replies, tool arguments' strings) with `f`. */
function forEachText(line: TranscriptLine, f: (text: string) => string): TranscriptLine {
  const args = (raw: string): string => {
    try {
      const value = JSON.parse(raw) as unknown;
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        return JSON.stringify(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? f(v) : v])));
      }
    } catch {
      // Not JSON: rewritten as a text.
    }
    return f(raw);
  };
  const calls = (tcs: Array<{ id: string; name: string; arguments: string }>) => tcs.map((tc) => ({ ...tc, arguments: args(tc.arguments) }));
  if (line.type === 'request') {
    return {
      ...line,
      added: line.added.map((m) => (m.role === 'assistant' ? { ...m, content: m.content === null ? null : f(m.content), ...(m.toolCalls ? { toolCalls: calls(m.toolCalls) } : {}) } : { ...m, content: f(m.content) })),
    };
  }
  if (line.type === 'response') return { ...line, content: line.content === null ? null : f(line.content), toolCalls: calls(line.toolCalls) };
  return line;
}

function copyText(text: string, copy: number, shared: ReadonlySet<string>): string {
  return sections(text)
    .map((s) => {
      if (shared.has(s)) return s;
      const nl = s.indexOf('\n');
      return nl === -1 ? `${s} [synthetic copy ${copy}]` : `${s.slice(0, nl + 1)}[synthetic copy ${copy}]\n${s.slice(nl + 1)}`;
    })
    .join('');
}

/** Writes the synthetic sweep into `dir` from the run folder `template`. */
export async function writeSweepFixture(dir: string, template: string, sessions: number): Promise<SweepFixture> {
  const paths = runPaths(template);
  const cells = (await readdir(paths.cells)).filter((c) => parseCellId(c) !== null).sort();
  const shared = await sweepShared(template, cells);
  await cp(paths.report, runPaths(dir).report, { recursive: true });
  let written = 0;
  let cellCount = 0;
  let bytes = 0;
  for (let copy = 1; written < sessions; copy++) {
    for (const cell of cells) {
      if (written >= sessions) break;
      const key = parseCellId(cell)!;
      const id = cellId({ ...key, repetition: copy });
      const from = paths.cell(cell);
      const to = runPaths(dir).cell(id);
      await mkdir(to.transcripts, { recursive: true });
      for (const file of ['result', 'grade'] as const) await cp(from[file], to[file]).catch(() => undefined);
      for (const file of (await readdir(from.transcripts)).sort()) {
        const lines = (await readFile(path.join(from.transcripts, file), 'utf8')).split('\n').filter((l) => l.trim());
        const out = lines.map((l) => JSON.stringify(TranscriptLine.parse(forEachText(JSON.parse(l) as TranscriptLine, (t) => copyText(t, copy, shared))))).join('\n') + '\n';
        await writeFile(path.join(to.transcripts, file), out);
        bytes += Buffer.byteLength(out);
        written += 1;
      }
      cellCount += 1;
    }
  }
  return { dir, cells: cellCount, sessions: written, bytes };
}
