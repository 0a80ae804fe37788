import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { dataDir } from '../../../lib/data-dir.js';
import { cellsCsv, claimsCsv } from '../../../lib/downloads.js';
import { readView } from '../../../lib/views.js';
import type { RunEntry, RunPage } from '../../../loaders/run-files-loader.js';

/**
 * A run's two CSV downloads: `cells.csv` (one row per cell of report.cells) and `claims.csv` (one
 * row per counted claim of report.claims), each row carrying the run's pins and its `simulated`
 * flag (lib/downloads.ts).
 */
const TABLES = { cells: cellsCsv, claims: claimsCsv } as const;
type Table = keyof typeof TABLES;

export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  return runs.flatMap((run: RunEntry) => (Object.keys(TABLES) as Table[]).map((table) => ({ params: { run: run.name, table }, props: { view: run.view, table } })));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ props }) => {
  const { view, table } = props as { view: string; table: Table };
  const { report } = await readView<RunPage>(dataDir(), view);
  return new Response(TABLES[table](report), { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
};
