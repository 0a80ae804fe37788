import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../../../lib/data-dir.js';
import { filesView, readView, transcriptsView, type RunFiles } from '../../../../../lib/views.js';
import type { RunEntry } from '../../../../../loaders/run-files-loader.js';

/** Each cell's raw transcripts as one Brotli-compressed JSON Lines download (transcript-bundle.ts). */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  const out: Array<{ params: { run: string; cell: string } }> = [];
  for (const run of runs) for (const { cell } of (await readView<RunFiles>(dataDir(), filesView(run.name))).transcripts) out.push({ params: { run: run.name, cell } });
  return out;
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ params }) => {
  const bytes = await readFile(path.join(dataDir(), transcriptsView(params.run!, params.cell!)));
  return new Response(new Uint8Array(bytes), { headers: { 'Content-Type': 'application/octet-stream' } });
};
