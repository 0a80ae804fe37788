import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LoaderContext } from 'astro/loaders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSite } from '../../../site/scripts/make-site.js';
import { hasPage, killedLeavesByPair } from '../../../site/src/lib/session-pages.js';
import { runFiles } from '../../../harness/index.js';

const { pairOfCell } = runFiles;
import { filesView, sessionsView, transcriptsView } from '../../../site/src/lib/views.js';
import { textsBundle } from '../../../site/src/lib/published-texts.js';
import { writeRunFixture } from '../../support/run-fixture.js';
import { archiveFiles } from '../checks/transcripts.js';

/**
 * Astro bundles its content store into the build, so the loader keeps there only small index
 * entries and writes each page's view (a run's report, a cell's tree, its sessions' pages) beside
 * the staged data. Driven here with a stand-in for Astro's loader context.
 */

let tmp: string;
let data: string;
const stored = new Map<string, Map<string, unknown>>();

function context(collection: string): LoaderContext {
  const store = new Map<string, unknown>();
  stored.set(collection, store);
  return {
    store: { clear: () => store.clear(), set: ({ id, data }: { id: string; data: unknown }) => (store.set(id, data), true), keys: () => [...store.keys()] },
    renderMarkdown: async () => ({ html: '<p>report</p>' }),
    logger: { info: () => {} },
  } as unknown as LoaderContext;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-loader-'));
  const run = path.join(tmp, 'runs', 'bulky-run');
  await writeRunFixture(run, { bulkySession: { rounds: 40, outputChars: 4000 } });
  data = path.join(tmp, 'data');
  const code = await makeSite(['--stage-only', '--data', data, run], { out: () => {}, err: () => {} }, { PATH: process.env.PATH });
  expect(code).toBe(0);
  process.env.RDH_SITE_DATA = data;
  const { runFilesLoader } = await import('../../../site/src/loaders/run-files-loader.js');
  for (const collection of ['runs', 'cells'] as const) await runFilesLoader(collection).load(context(collection));
}, 120_000);

afterAll(async () => {
  delete process.env.RDH_SITE_DATA;
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the content loader', () => {
  it('stores one small index entry per run and cell, and each page\'s view beside the data', async () => {
    expect(stored.get('runs')!.size).toBe(1);
    expect(stored.get('cells')!.size).toBe(4);
    // A cell's sessions with pages (the judgements, session-pages.ts) are in its sessions view, in the order they are placed; the rest are not.
    const cellIds = [...stored.get('cells')!.values()].map((c) => (c as { id: string }).id).sort();
    type Placed = { slug: string; cell: string; view: string; packs: number[]; ordinal: number };
    const entries: Placed[] = [];
    for (const cell of cellIds) {
      const file = sessionsView('bulky-run', cell);
      const views = JSON.parse(await readFile(path.join(data, file), 'utf8')) as Record<string, { session: Placed; pages: unknown[][] }>;
      const placed = Object.values(views).map((v) => v.session);
      // Numbered 1, 2, ... in order, each page on the same sessions page as the one before it or a later one.
      expect(placed.map((x) => x.ordinal)).toEqual(placed.map((_, i) => i + 1));
      const packs = placed.flatMap((x) => x.packs);
      expect(packs).toEqual([...packs].sort((a, b) => a - b));
      expect(packs[0]).toBe(1);
      for (const v of Object.values(views)) expect(v.session.packs.length).toBe(v.pages.length);
      entries.push(...placed.map((x) => ({ ...x, view: file })));
    }
    expect(entries.length).toBeGreaterThan(10);
    // ... and so do the sessions of the leaves whose claims were killed (either arm of the pair), the ones a killed claim is read from.
    const report = JSON.parse(await readFile(path.join(data, 'runs', 'bulky-run', 'report', 'report.json'), 'utf8')) as { claims: Array<{ cellId: string; leaf: string; survived: boolean }> };
    const killed = killedLeavesByPair(report.claims, pairOfCell);
    const nodeOf = (slug: string) => slug.split('/').at(-3)!;
    const killedLeaf = (e: { slug: string; cell: string }) => killed.get(pairOfCell(e.cell))?.has(nodeOf(e.slug)) ?? false;
    expect(entries.filter((e) => !hasPage(e.slug) && !killedLeaf(e))).toEqual([]);
    expect(killed.size, 'the fixture has killed claims').toBeGreaterThan(0);
    expect(entries.filter((e) => !hasPage(e.slug) && killedLeaf(e)).length, 'a killed leaf\'s worker has a page').toBeGreaterThan(0);
    const sizes = [...stored.values()].flatMap((s) => [...s.values()].map((e) => JSON.stringify(e).length));
    // The run entry carries its chart list and its headline strip (a few lines per level, for the
    // index card); nothing carries a report, a tree or a transcript.
    expect(Math.max(...sizes)).toBeLessThan(6_000);
    expect(Math.max(...[...stored.get('cells')!.values()].map((e) => JSON.stringify(e).length))).toBeLessThan(3_000);
    const transcript = path.join(data, 'runs', 'bulky-run', 'cells', 'cap1-rep1-gated', 'transcripts', 'root.1%2Fworker%2F1.jsonl');
    // Each of the 40 tool outputs is stored once (a request line keeps only what it added).
    expect((await stat(transcript)).size).toBeGreaterThan(40 * 4000);
    // The bulky worker's leaf had a claim killed, so it has a page; a worker of a leaf whose claims survived has none (0 pages);
    // and the run's archive holds every transcript byte for byte.
    const gated = [...stored.get('cells')!.values()].find((c) => (c as { id: string }).id === 'cap1-rep1-gated') as { view: string };
    const sessions = (JSON.parse(await readFile(path.join(data, gated.view), 'utf8')) as { sessions: Array<{ slug: string; packs: number[]; pack: number }> }).sessions;
    // The cell's view and its sessions view agree on where each transcript starts.
    expect(sessions.filter((x) => x.pack > 0).map((x) => [x.slug, x.pack])).toEqual(entries.filter((e) => e.cell === 'cap1-rep1-gated').map((e) => [e.slug, e.packs[0]]));
    expect(killedLeaf({ slug: 'root.1/worker/1', cell: 'cap1-rep1-gated' })).toBe(true);
    expect(sessions.find((x) => x.slug === 'root.1/worker/1')!.packs.length).toBeGreaterThan(0);
    const pageless = sessions.filter((x) => !hasPage(x.slug) && !killedLeaf({ slug: x.slug, cell: 'cap1-rep1-gated' }));
    expect(pageless.length).toBeGreaterThan(0);
    expect(pageless.map((x) => [x.packs.length, x.pack])).toEqual(pageless.map(() => [0, 0]));
    const archive = await archiveFiles(await readFile(path.join(data, transcriptsView('bulky-run'))));
    expect(archive['cells/cap1-rep1-gated/transcripts/root.1%2Fworker%2F1.jsonl']).toBe(await readFile(transcript, 'utf8'));
    const files = JSON.parse(await readFile(path.join(data, filesView('bulky-run')), 'utf8')) as { transcripts: number };
    expect(files.transcripts).toBe(Object.keys(archive).length);
    // Every text a session's view stores by key is in the run's bundle, once.
    const keys = new Set<string>();
    for (const e of entries.filter((x, i) => entries.findIndex((y) => y.view === x.view) === i)) for (const m of (await readFile(path.join(data, e.view), 'utf8')).matchAll(/"kind":"stored","key":"([0-9a-f]+)"/g)) keys.add(m[1]!);
    expect(keys.size).toBeGreaterThan(0);
    const bundled = (await readFile(path.join(data, textsBundle('bulky-run')), 'utf8')).trim().split('\n').map((l) => (JSON.parse(l) as { key: string; text: string }));
    expect(bundled.map((t) => t.key).sort()).toEqual([...new Set(bundled.map((t) => t.key))].sort());
    for (const key of keys) expect(bundled.find((t) => t.key === key)?.text.length).toBeGreaterThan(0);
    const cell = [...stored.get('cells')!.values()][0] as { view: string };
    expect(JSON.parse(await readFile(path.join(data, cell.view), 'utf8'))).toMatchObject({ tree: { root: { id: 'root' } }, grade: { total: 42 } });
  });
});
