import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { dataDir } from '../../../lib/data-dir.js';
import { claimsCsv } from '../../../lib/downloads.js';
import { readView } from '../../../lib/views.js';
import type { RunEntry, RunPage } from '../../../loaders/run-files-loader.js';

/** One row per counted claim of report.claims, each carrying the run's pins and its `simulated` flag (lib/downloads.ts). */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  return runs.map((run: RunEntry) => ({ params: { run: run.name }, props: { view: run.view } }));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ props }) => {
  const { view } = props as { view: string };
  const { report } = await readView<RunPage>(dataDir(), view);
  return new Response(claimsCsv(report), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
};
