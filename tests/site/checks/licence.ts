import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { licenceNotice, loadTaskDefinition } from '../../../harness/index.js';
import { archiveFiles } from './transcripts.js';

/**
 * Checks on a built site (its files, no browser) that a run's published transcripts carry the
 * licence notice of the texts its brief carried beside SPEC.md (issue 23: "every published
 * transcript carries its attribution and licence notice"), and that a run whose brief is
 * SPEC.md alone carries none. The expected notices come from the task's own declaration, never
 * from the report, so a report that drops them fails too.
 */

/** The notices a task's brief carries (task.yaml `brief.sources`), as brief-sources.ts prints them. */
export async function expectedNotices(specDir: string): Promise<string[]> {
  return (await loadTaskDefinition(specDir)).brief.sources.map(licenceNotice);
}

const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", '#39': "'", '#x27': "'" };
const decode = (html: string) => html.replace(/&(quot|amp|lt|gt|apos|#39|#x27);/g, (_, e: string) => ENTITIES[e]!);

/** The paragraphs of a page's licence section, decoded; null when the page has none. */
export function shownNotices(html: string): string[] | null {
  const section = /<section[^>]*\bdata-licence-notice\b[^>]*>([\s\S]*?)<\/section>/.exec(html);
  if (!section) return null;
  return [...section[1]!.matchAll(/<p[^>]*>([\s\S]*?)<\/p>/g)].map((m) => decode(m[1]!.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ').trim());
}

async function pages(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => path.join(e.parentPath, e.name));
}

/** A page showing a transcript as a conversation: a cell's sessions page (`cells/CELL/sessions/`, `.../~page-N/`) that holds one. */
const isSessionPage = (rel: string, html: string) => /^cells\/[^/]+\/sessions\/(?:[^/]+\/)?index\.html$/.test(rel) && html.includes('<ol class="conversation"');

/**
 * Every problem with the run's notices on the built site `dist`: a page of the run (each page
 * showing a transcript among them, at least one) that does not show every expected notice, or shows one when
 * none is expected; and the transcripts' archive without the notice file, or with one when none
 * is expected. [] when all hold.
 */
export async function licenceProblems(dist: string, run: string, expected: string[], noticeFile = 'LICENCE-NOTICE.txt'): Promise<{ problems: string[]; sessionPages: number }> {
  const root = path.join(dist, 'runs', run);
  const problems: string[] = [];
  let sessionPages = 0;
  for (const file of await pages(root)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const html = await readFile(file, 'utf8');
    if (isSessionPage(rel, html)) sessionPages += 1;
    const shown = shownNotices(html);
    if (expected.length === 0) {
      if (shown !== null) problems.push(`${rel}: shows a licence notice, but the run's brief is SPEC.md alone`);
    } else if (shown === null) problems.push(`${rel}: shows no licence notice`);
    else for (const n of expected) if (!shown.includes(n)) problems.push(`${rel}: does not show ${JSON.stringify(n.slice(0, 60))}...`);
  }
  if (expected.length > 0 && sessionPages === 0) problems.push('no session page was built, so no transcript page was checked');
  const archive = await archiveFiles(await readFile(path.join(root, 'transcripts.tar.br')));
  const notice = archive[noticeFile];
  if (expected.length === 0 && notice !== undefined) problems.push(`transcripts.tar.br: holds ${noticeFile}, but the run's brief is SPEC.md alone`);
  if (expected.length > 0 && notice !== `${expected.join('\n\n')}\n`) problems.push(`transcripts.tar.br: ${notice === undefined ? `has no ${noticeFile}` : `${noticeFile} is not the notices`}`);
  return { problems, sessionPages };
}
