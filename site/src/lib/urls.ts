/**
 * Every internal link of the site, under the configured base path (`--base /path/`). Run
 * names, cell ids and session slugs are already safe in a URL (make_site.sh refuses a run
 * folder whose name is not), so nothing here escapes.
 */
import { hasPage, sessionAnchor } from './session-pages.js';
import { pageSegment } from './slug.js';

// Typed by hand so the unit tests (outside Astro's types) can import this module too.
const raw = (import.meta as ImportMeta & { env: { BASE_URL: string } }).env.BASE_URL;
export const BASE = raw.endsWith('/') ? raw : `${raw}/`;

export const home = (): string => BASE;
export const runUrl = (run: string): string => `${BASE}runs/${run}/`;
export const chartUrl = (run: string, name: string): string => `${BASE}runs/${run}/charts/${name}.svg`;
export const cellUrl = (run: string, cell: string): string => `${BASE}runs/${run}/cells/${cell}/`;
/** A cell's sessions page: every session of the cell, with its figures and where to read it. */
export const sessionsUrl = (run: string, cell: string): string => `${cellUrl(run, cell)}sessions/`;
/**
 * Where a session is read: its own page (page N of it) when it has one (session-pages.ts), else
 * its entry on the cell's sessions page, which links the raw transcripts. `ownPage`: whether it
 * has a page (a session link's `pages > 0`); default: by its role alone (session-pages.ts).
 */
export const sessionUrl = (run: string, cell: string, slug: string, page = 1, ownPage = hasPage(slug)): string =>
  ownPage ? `${sessionsUrl(run, cell)}${slug}/${page > 1 ? `${pageSegment(page)}/` : ''}` : `${sessionsUrl(run, cell)}#${sessionAnchor(slug)}`;
/** A long text of the transcripts, stored once for the whole site by its content hash (transcript-texts.ts): a text every run shares (a brief, a system prompt) is one file. `run` is kept for the callers' sake. */
export const textUrl = (_run: string, key: string): string => `${BASE}texts/${key}.txt`;
/** A run's raw transcripts, one Brotli-compressed tar download (transcript-bundle.ts). */
export const transcriptsUrl = (run: string): string => `${runUrl(run)}transcripts.tar.br`;
