import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../lib/data-dir.js';
import { filesView, readView, transcriptsView, type RunFiles } from '../../../lib/views.js';
import type { RunEntry } from '../../../loaders/run-files-loader.js';

/** A run's raw transcripts as one Brotli-compressed tar download (transcript-bundle.ts), for a run that has any. */
export const getStaticPaths = (async () => {
  const out: Array<{ params: { run: string } }> = [];
  for (const e of await getCollection('runs')) {
    const run = e.data as unknown as RunEntry;
    if ((await readView<RunFiles>(dataDir(), filesView(run.name))).transcripts > 0) out.push({ params: { run: run.name } });
  }
  return out;
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ params }) => {
  const bytes = await readFile(path.join(dataDir(), transcriptsView(params.run!)));
  return new Response(new Uint8Array(bytes), { headers: { 'Content-Type': 'application/octet-stream' } });
};
