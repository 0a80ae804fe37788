import type { Loader, LoaderContext } from 'astro/loaders';
import path from 'node:path';
import { renderMarkdown } from '../../../harness/run-files.js';
import { dataDir } from '../lib/data-dir.js';
import { reportHtml } from '../lib/report-html.js';
import { readSiteData, type SiteData } from '../lib/site-data.js';

/**
 * The content loader of the site's three collections (runs, cells, sessions). Astro 5 bundles
 * zod 3 and the harness writes its files with zod 4, so nothing is validated by a collection
 * schema: readSiteData validates every staged file with the harness's own schemas, and this
 * stores the result. One read serves the three collections.
 */

let once: Promise<SiteData> | undefined;

function siteData(): Promise<SiteData> {
  once ??= readSiteData(dataDir());
  return once;
}

type Collection = 'runs' | 'cells' | 'sessions';

async function load(collection: Collection, context: LoaderContext): Promise<void> {
  const data = await siteData();
  context.store.clear();
  if (collection === 'runs') {
    for (const run of data.runs) {
      const rendered = await context.renderMarkdown(renderMarkdown(run.report));
      const html = reportHtml(rendered.html ?? '', {
        cellPages: new Set(run.cellPages),
        linkedCells: run.linkedCells,
        sizes: new Map(run.charts.map((c) => [`charts/${path.basename(c.file)}`, { width: c.width, height: c.height }])),
        shownAs: `runs/${run.name}/report/report.json`,
      });
      context.store.set({ id: run.name, data: { ...run, linkedCells: null, reportHtml: html } });
    }
  } else if (collection === 'cells') {
    for (const cell of data.cells) context.store.set({ id: `${cell.run}/${cell.id}`, data: { ...cell } });
  } else {
    for (const session of data.sessions) context.store.set({ id: `${session.run}/${session.cell}/${session.slug}`, data: { ...session } });
  }
  context.logger.info(`${collection}: ${context.store.keys().length} validated`);
}

export function runFilesLoader(collection: Collection): Loader {
  return { name: `run-files:${collection}`, load: (context) => load(collection, context) };
}
