import { CellId, PairId, runPaths } from '../../harness/run-files.js';

/**
 * What of a run folder may be published: exactly the files the site's pages are built from.
 * Everything else (the journal, the manifest, graded trees, report.md, a `.env` or a key file
 * someone dropped in) is never copied. Paths are relative to the run folder, `/`-separated;
 * the names come from the harness's own layout (runPaths), so the two cannot drift apart.
 */

export const FILE_KINDS = ['report', 'chart', 'spec', 'result', 'grade', 'events', 'transcript'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

const layout = runPaths('');
const cellFile = (kind: 'result' | 'grade' | 'events') => {
  const name = layout.cell('cap1-rep1-gated')[kind].split(/[\\/]/).at(-1)!;
  return name;
};
const CELL_FILES: ReadonlyMap<string, FileKind> = new Map([
  [cellFile('result'), 'result'],
  [cellFile('grade'), 'grade'],
  [cellFile('events'), 'events'],
]);
const REPORT_DIR = layout.report.split(/[\\/]/).at(-1)!;
const CELLS_DIR = layout.cells.split(/[\\/]/).at(-1)!;
const PAIRS_DIR = layout.pairs.split(/[\\/]/).at(-1)!;
/** A pair's one file: the events of the build its two cells share (both cells' pages read it). */
const PAIR_EVENTS = layout.pair('cap1-rep1').events.split(/[\\/]/).at(-1)!;
const TRANSCRIPTS_DIR = layout.cell('cap1-rep1-gated').transcripts.split(/[\\/]/).at(-1)!;

/** A chart's file name: what `harness report` writes (`NAME.svg`, NAME in letters, digits, `.`, `_`, `-`). */
const CHART = /^[A-Za-z0-9][A-Za-z0-9_-]*\.svg$/;
/** A chart's vega-lite spec, beside its SVG (`NAME.vl.json`): published as a download. */
const SPEC = /^[A-Za-z0-9][A-Za-z0-9_-]*\.vl\.json$/;
/** A transcript's file name: what sessionFileName writes (letters, digits, `_`, `-`, `.`, `%XX`, `~`). */
const TRANSCRIPT = /^[A-Za-z0-9_%~-][A-Za-z0-9_.%~-]*\.jsonl$/;

/** The kind of an admitted file, or null: not on the allowlist. */
export function admitted(relative: string): FileKind | null {
  const parts = relative.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return null;
  if (parts[0] === REPORT_DIR) {
    if (parts.length === 2 && parts[1] === 'report.json') return 'report';
    if (parts.length === 3 && parts[1] === 'charts' && CHART.test(parts[2]!)) return 'chart';
    if (parts.length === 3 && parts[1] === 'charts' && SPEC.test(parts[2]!)) return 'spec';
    return null;
  }
  if (parts[0] === PAIRS_DIR) return parts.length === 3 && PairId.safeParse(parts[1]).success && parts[2] === PAIR_EVENTS ? 'events' : null;
  if (parts[0] === CELLS_DIR && parts.length >= 3 && CellId.safeParse(parts[1]).success) {
    if (parts.length === 3) return CELL_FILES.get(parts[2]!) ?? null;
    if (parts.length === 4 && parts[2] === TRANSCRIPTS_DIR && TRANSCRIPT.test(parts[3]!)) return 'transcript';
  }
  return null;
}

/** Folders whose whole content is skipped in one line rather than file by file (graded trees, a report's old copy). */
export function skippedWhole(relative: string): boolean {
  const parts = relative.split('/');
  return parts[0] === CELLS_DIR && parts.length === 3 && CellId.safeParse(parts[1]).success && parts[2] === 'tree';
}
