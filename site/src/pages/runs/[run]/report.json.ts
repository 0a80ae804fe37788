import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../lib/data-dir.js';
import type { RunEntry } from '../../../loaders/run-files-loader.js';

/** The run's report.json as a download: the staged file byte for byte (validated when loaded). */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  return runs.map((run: RunEntry) => ({ params: { run: run.name }, props: { file: run.reportFile } }));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ props }) => {
  const { file } = props as { file: string };
  return new Response(await readFile(path.join(dataDir(), file)), { headers: { 'Content-Type': 'application/json' } });
};
