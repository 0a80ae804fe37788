/**
 * Every internal link of the site, under the configured base path (`--base /path/`). Run
 * names, cell ids and session slugs are already safe in a URL (make_site.sh refuses a run
 * folder whose name is not), so nothing here escapes.
 */
import { sessionAnchor } from './session-pages.js';
import { pageSegment } from './slug.js';

// Typed by hand so the unit tests (outside Astro's types) can import this module too.
const raw = (import.meta as ImportMeta & { env: { BASE_URL: string } }).env.BASE_URL;
export const BASE = raw.endsWith('/') ? raw : `${raw}/`;

export const home = (): string => BASE;
export const runUrl = (run: string): string => `${BASE}runs/${run}/`;
export const chartUrl = (run: string, name: string): string => `${BASE}runs/${run}/charts/${name}.svg`;
export const cellUrl = (run: string, cell: string): string => `${BASE}runs/${run}/cells/${cell}/`;
/**
 * A cell's sessions page: the first (`pack` 1) lists every session of the cell with its figures;
 * each holds, folded, the transcripts placed on it (session-pages.ts).
 */
export const sessionsUrl = (run: string, cell: string, pack = 1): string => `${cellUrl(run, cell)}sessions/${pack > 1 ? `${pageSegment(pack)}/` : ''}`;
/**
 * Where a session is read: the start of its transcript on the sessions page `pack` holds it (its
 * link's `pack`), or, for a session without one (`pack` 0), its row on the first sessions page,
 * which links the raw transcripts.
 */
export const sessionUrl = (run: string, cell: string, slug: string, pack: number): string => `${sessionsUrl(run, cell, Math.max(pack, 1))}#${sessionAnchor(slug)}`;
/** A long text of the transcripts, stored once for the whole site by its content hash (transcript-texts.ts): a text every run shares (a brief, a system prompt) is one file. `run` is kept for the callers' sake. */
export const textUrl = (_run: string, key: string): string => `${BASE}texts/${key}.txt`;
/** A run's raw transcripts, one Brotli-compressed tar download (transcript-bundle.ts). */
export const transcriptsUrl = (run: string): string => `${runUrl(run)}transcripts.tar.br`;
