import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../../../lib/data-dir.js';
import type { ChartView } from '../../../../lib/site-data.js';
import type { RunEntry } from '../../../../loaders/run-files-loader.js';

/** The report's chart SVGs, served beside the sweep page (checked to be drawings only when loaded). */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  return runs.flatMap((run: RunEntry) => run.charts.map((chart: ChartView) => ({ params: { run: run.name, chart: chart.name }, props: { chart } })));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ props }) => {
  const { chart } = props as { chart: ChartView };
  const svg = await readFile(path.join(dataDir(), chart.file), 'utf8');
  return new Response(svg, { headers: { 'Content-Type': 'image/svg+xml' } });
};
