import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../../lib/data-dir.js';
import { filesView, readView, textView, type RunFiles } from '../../lib/views.js';
import type { RunEntry } from '../../loaders/run-files-loader.js';

/** The long texts of every run's transcripts, each stored once for the site by its content hash and linked from every page that shows it (transcript-texts.ts). */
export const getStaticPaths = (async () => {
  const runs = (await getCollection('runs')).map((e: { data: unknown }) => e.data as RunEntry);
  const keys = new Set<string>();
  for (const run of runs) for (const text of (await readView<RunFiles>(dataDir(), filesView(run.name))).texts) keys.add(text);
  return [...keys].map((text) => ({ params: { text } }));
}) satisfies GetStaticPaths;

// A text with any character beyond ASCII starts with a byte-order mark, so a browser reads it as
// UTF-8 even from a host that sends .txt without a charset.
const BOM = '\uFEFF';

export const GET: APIRoute = async ({ params }) => {
  const text = await readFile(path.join(dataDir(), textView('', params.text!)), 'utf8');
  return new Response(/^[\x00-\x7F]*$/.test(text) ? text : BOM + text, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
