import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../../../lib/data-dir.js';
import { contentType } from '../../../../../lib/run-downloads.js';
import type { CellEntry } from '../../../../../loaders/run-files-loader.js';

/** A cell's events.jsonl, result.json and grade.json, each the staged file byte for byte (validated when loaded, scanned when staged). */
export const getStaticPaths = (async () => {
  const cells = (await getCollection('cells')).map((e: { data: unknown }) => e.data as CellEntry);
  return cells.flatMap((c: CellEntry) => c.files.map((file: string) => ({ params: { run: c.run, cell: c.id, file } })));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ params }) => {
  const bytes = await readFile(path.join(dataDir(), 'runs', params.run!, 'cells', params.cell!, params.file!));
  return new Response(new Uint8Array(bytes), { headers: { 'Content-Type': contentType(params.file!) } });
};
