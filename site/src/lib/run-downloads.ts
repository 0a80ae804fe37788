import { stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The run files a sweep page publishes as they were recorded (allowlisted and secret-scanned by
 * make_site.sh like every staged file): each cell's events.jsonl, result.json and grade.json,
 * and each pair's events.jsonl (the shared build's), served byte for byte under the same paths
 * as in the run folder (`runs/RUN/cells/CELL/events.jsonl`, `runs/RUN/pairs/PAIR/events.jsonl`).
 */

export const CELL_DOWNLOADS = ['events.jsonl', 'result.json', 'grade.json'] as const;
export type CellDownload = (typeof CELL_DOWNLOADS)[number];

/** One line unpacks a run's transcripts with Node alone (its zlib reads Brotli; no brotli command needed). */
export const UNPACK_TRANSCRIPTS = `node -e "process.stdin.pipe(require('zlib').createBrotliDecompress()).pipe(process.stdout)" < transcripts.tar.br | tar x`;

const exists = (file: string) => stat(file).then((s) => s.isFile(), () => false);

/** The downloads of one cell that its staged folder holds, in CELL_DOWNLOADS order. */
export async function stagedCellFiles(dataDir: string, run: string, cell: string): Promise<CellDownload[]> {
  const out: CellDownload[] = [];
  for (const name of CELL_DOWNLOADS) if (await exists(path.join(dataDir, 'runs', run, 'cells', cell, name))) out.push(name);
  return out;
}

/** The pairs of a run whose shared build's events were staged. */
export async function stagedPairEvents(dataDir: string, run: string, pairs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const pair of pairs) if (await exists(path.join(dataDir, 'runs', run, 'pairs', pair, 'events.jsonl'))) out.push(pair);
  return out;
}

const TYPES: Record<string, string> = { '.json': 'application/json', '.jsonl': 'application/x-ndjson' };
export const contentType = (name: string): string => TYPES[path.extname(name)] ?? 'application/octet-stream';
