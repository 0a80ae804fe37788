import { createHash } from 'node:crypto';
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

/**
 * SYNTHETIC: the same sweep with its journal, so `harness record` can resume it and `harness
 * report` read it. Whole copies of the template only (every cell of copy k is `rep{k}`), so each
 * copy's journal is the template's, event for event: its events with their cell ids renamed,
 * each measured result's repetition set to k, and the sequence renumbered. The manifest is the
 * template's with `repetitions: default` raised to the copies, `max_sessions` above what they
 * spend and the spec path absolute (it is written to `manifest.yaml` in the run folder, and the
 * header pins its digest). Every cell is measured, so a resume spends nothing.
 */
export interface SweepJournalFixture extends SweepFixture {
  /** The manifest to resume with: the header pins its bytes. */
  manifest: string;
  copies: number;
  events: number;
  journalBytes: number;
}

const CELL = /^cap(\d+)-rep1-(gated|ungated)$/;

/** A journal event of the template as copy `copy` records it (cell ids, repetition, sequence number). */
function copiedEvent(event: Record<string, unknown>, copy: number, seq: number): Record<string, unknown> {
  const rename = (id: unknown) => (typeof id === 'string' && CELL.test(id) ? id.replace('-rep1-', `-rep${copy}-`) : id);
  const out: Record<string, unknown> = { ...event, seq };
  if ('cellId' in event) out.cellId = rename(event.cellId);
  if (Array.isArray(event.cellIds)) out.cellIds = event.cellIds.map(rename);
  const outcome = event.outcome as { status?: string; result?: Record<string, unknown> } | undefined;
  if (event.type === 'cell_finished' && outcome?.status === 'measured' && outcome.result) out.outcome = { ...outcome, result: { ...outcome.result, repetition: copy } };
  return out;
}

export async function writeSweepJournalFixture(dir: string, template: string, sessions: number, repo: string): Promise<SweepJournalFixture> {
  const paths = runPaths(template);
  const lines = (await readFile(paths.journal, 'utf8')).split('\n').filter((l) => l.trim());
  const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const perCopy = events.filter((e) => e.type === 'session_finished').length;
  const copies = Math.max(1, Math.ceil(sessions / perCopy));
  const made = await writeSweepFixture(dir, template, copies * perCopy);
  // The cells' own event logs and the pairs' shared builds, copied as the site fixture leaves them out.
  const cells = (await readdir(paths.cells)).filter((c) => parseCellId(c) !== null);
  for (let copy = 1; copy <= copies; copy++) {
    for (const cell of cells) {
      const id = cellId({ ...parseCellId(cell)!, repetition: copy });
      await cp(paths.cell(cell).events, runPaths(dir).cell(id).events).catch(() => undefined);
    }
    for (const pair of await readdir(path.join(template, 'pairs')).catch(() => [] as string[])) {
      await cp(path.join(template, 'pairs', pair), path.join(dir, 'pairs', pair.replace(/-rep1$/, `-rep${copy}`)), { recursive: true });
    }
  }
  const manifestText = (await readFile(path.join(template, 'manifest.yaml'), 'utf8'))
    .replace(/^(repetitions:\s*\n\s+default:\s*)\d+/m, `$1${copies}`)
    .replace(/^max_sessions:\s*\d+/m, `max_sessions: ${copies * perCopy * 2}`)
    .replace(/^spec:\s*\S+/m, `spec: ${path.join(repo, 'spec/sqlcsv')}`);
  const manifest = path.join(dir, 'manifest.yaml');
  await writeFile(manifest, manifestText);
  const header = structuredClone(events.find((e) => e.type === 'header')!) as { pins: { manifest: { sha256: string; bytes: number } } };
  header.pins.manifest.sha256 = createHash('sha256').update(manifestText).digest('hex');
  header.pins.manifest.bytes = Buffer.byteLength(manifestText);
  const body = events.filter((e) => !['header', 'run_started', 'sweep_stopped'].includes(e.type as string));
  const out: string[] = [JSON.stringify({ ...header, seq: 1 }), JSON.stringify({ ...events.find((e) => e.type === 'run_started')!, seq: 2 })];
  let seq = 3;
  for (let copy = 1; copy <= copies; copy++) for (const e of body) out.push(JSON.stringify(copiedEvent(e, copy, seq++)));
  const stopped = events.find((e) => e.type === 'sweep_stopped')!;
  out.push(JSON.stringify({ ...stopped, seq: seq++, detail: `${copies * cells.length} of ${copies * cells.length} cells measured` }));
  const text = `${out.join('\n')}\n`;
  await writeFile(runPaths(dir).journal, text);
  return { ...made, manifest, copies, events: out.length, journalBytes: Buffer.byteLength(text) };
}

/**
 * SYNTHETIC: whole copies of a run folder, one into each of `dirs`, each with texts of its own:
 * every transcript section the template's cells do not all share (what a real re-run would not
 * repeat word for word) carries "[synthetic copy k]", as writeSweepFixture's copies do. A bench
 * of many runs uses these, since identical copies would flatter a site that stores texts once
 * by their content.
 */
export async function writeRunCopies(template: string, dirs: readonly string[]): Promise<void> {
  const cells = (await readdir(runPaths(template).cells)).filter((c) => parseCellId(c) !== null).sort();
  const shared = await sweepShared(template, cells);
  for (const [i, dir] of dirs.entries()) {
    await cp(template, dir, { recursive: true });
    for (const cell of cells) {
      const transcripts = runPaths(dir).cell(cell).transcripts;
      for (const file of (await readdir(transcripts).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl'))) {
        const lines = (await readFile(path.join(transcripts, file), 'utf8')).split('\n').filter((l) => l.trim());
        await writeFile(path.join(transcripts, file), lines.map((l) => JSON.stringify(TranscriptLine.parse(forEachText(JSON.parse(l) as TranscriptLine, (t) => copyText(t, i + 1, shared))))).join('\n') + '\n');
      }
    }
  }
}
