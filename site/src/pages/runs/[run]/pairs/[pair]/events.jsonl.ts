import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../../../lib/data-dir.js';
import type { RunEntry } from '../../../../../loaders/run-files-loader.js';

/** A pair's shared build's events.jsonl (both cells of the pair read it), the staged file byte for byte. */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  return runs.flatMap((r: RunEntry) => r.pairEvents.map((pair: string) => ({ params: { run: r.name, pair } })));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ params }) => {
  const bytes = await readFile(path.join(dataDir(), 'runs', params.run!, 'pairs', params.pair!, 'events.jsonl'));
  return new Response(new Uint8Array(bytes), { headers: { 'Content-Type': 'application/x-ndjson' } });
};
