import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../../lib/data-dir.js';
import type { SpecFile } from '../../../../lib/chart-specs.js';
import type { RunEntry } from '../../../../loaders/run-files-loader.js';

/** Each chart's vega-lite spec as a download: the staged file byte for byte (checked when loaded). */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  return runs.flatMap((run: RunEntry) => run.specs.map((spec: SpecFile) => ({ params: { run: run.name, chart: spec.name }, props: { spec } })));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ props }) => {
  const { spec } = props as { spec: SpecFile };
  return new Response(await readFile(path.join(dataDir(), spec.file)), { headers: { 'Content-Type': 'application/json' } });
};
