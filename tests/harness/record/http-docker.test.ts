import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, REPO_ROOT, Report, loadFaultPlan, readSweepJournal, runRecord, type RecordResult, type SimServer, type SweepEvent } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { gradeMemo } from '../../support/grade-memo.js';
import { manifestVariant } from '../../support/manifest-variant.js';
import { witnessCaseIds } from '../../support/witness-oracle.js';
import { providersFile, startServer } from './http-fixture.js';
import { bufferIo } from './record-fixture.js';
import { chromiumReady, launchChromium } from '../../../site/scripts/chromium.js';
import { serveStatic } from '../../../site/scripts/static-server.js';
import { checkCounts, checkKilledClaims, checkMergeFindings } from '../../site/checks/story.js';
import { checkDownloads, checkHeadline } from '../../site/checks/headline.js';
import { checkCharts } from '../../site/checks/charts.js';
import { expectedNotices, licenceProblems } from '../../site/checks/licence.js';

/**
 * The paid path end to end, once, in real Docker: `manifests/smoke-http.yaml` recorded through
 * `harness sim serve` (the openai SDK over a real local port) under a scaled-down fault plan
 * (10-50 ms latency, 20% 429s, one 5 s outage), beside the in-process smoke sweep with the same
 * planted population, every merge graded, leaves not (grade_leaves: false). Both recordings run at once and are shared by every check here. Real
 * clocks: the clients wait through the outage within their patience (the default 600 s), as a
 * paid sweep would. Each distinct tree is graded once in real Docker (grade-memo.ts): the twin
 * builds the same trees, and a tree that differs in one byte is graded again, so equal grades
 * still mean equal trees. Each grading runs the sqlcsv oracle's witness cases, the few that decide
 * a SIMULATED tree's verdicts (witness-oracle.ts): under 2 s a grading instead of about 10. Replay is shown elsewhere, on both halves of this path: of a Docker
 * recording (commonmark-smoke.test.ts, through the CLI) and of an HTTP recording with its server
 * stopped (http-paid-path.test.ts); replaying this run too cost a third of CI's longest file.
 */

const HEAVY = 2_400_000;
const HAS_CHROMIUM = await chromiumReady();
const FAULTS = path.join(REPO_ROOT, 'tests/harness/sim/serve/faults-ci.yaml');

let tmp: string;
let server: SimServer;
let http: { dir: string; result: RecordResult; events: readonly SweepEvent[] };
let inProcess: { dir: string; result: RecordResult; events: readonly SweepEvent[] };
const memo = gradeMemo();

const journalOf = async (dir: string) => (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
/** Every finished session of a run, by its cells and id: its turns and tokens (the latest finish of each). */
const sessions = (events: readonly SweepEvent[]) =>
  Object.fromEntries(events.flatMap((e) => (e.type === 'session_finished' ? [[`${e.cellIds.join('+')} ${e.sessionId}`, { turns: e.turns, tokens: e.tokens }]] : [])));
/** Every measured cell's result with what legitimately differs between the two paths (prices) left out. */
const measured = (events: readonly SweepEvent[]) =>
  Object.fromEntries(
    events.flatMap((e) => {
      if (e.type !== 'cell_finished' || e.outcome.status !== 'measured') return [];
      const { spend, ...rest } = e.outcome.result;
      return [[e.cellId, { ...rest, tokens: Object.fromEntries(Object.entries(spend).map(([k, s]) => [k, [s.sessions, s.tokens]])) }]];
    }),
  );

beforeAll(async () => {
  if (!HAS_DOCKER) return;
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-http-docker-'));
  server = await startServer((await loadFaultPlan(FAULTS)).plan, path.join(REPO_ROOT, 'manifests/smoke-http.yaml'));
  const providers = await providersFile(path.join(tmp, 'p'), server.url);
  const record = async (manifest: string, name: string, extra: { providers?: string }) => {
    const dir = path.join(tmp, name);
    // grade_leaves off: leaf gradings are 11 of the smoke's 21, and a leaf's grading is the same container whichever
    // path built it. Leaves graded in real Docker are shown by `harness record` in commonmark-smoke.test.ts (work
    // beyond the claims, every leaf's grade in the journal) and, exactly against the pure model, in sim-recovery.test.ts.
    const variant = await manifestVariant(path.join(REPO_ROOT, 'manifests', manifest), tmp, { grade_leaves: false });
    const result = await runRecord(variant, { out: dir, depths: [1, 2], ...extra }, bufferIo(), { grade: (tree, _cell, base) => memo.grade(tree, async (t) => base(t, { caseIds: await witnessCaseIds('sqlcsv') })) });
    return { dir, result, events: await journalOf(dir) };
  };
  [http, inProcess] = await Promise.all([record('smoke-http.yaml', 'http', { providers }), record('smoke.yaml', 'in-process', {})]);
}, HEAVY);

afterAll(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!HAS_DOCKER)('the smoke sweep over HTTP, with faults, in real Docker', () => {
  it('measures every staged cell through 429s, latency and an outage: exit 0', () => {
    expect(http.result.exit).toBe(EXIT.ok);
    expect(http.result.summary.counts).toEqual({ staged: 4, measured: 4, transient: 0, permanent: 0, unmeasured: 0, notStarted: 0 });
    const stats = server.stats();
    // The faults really happened: the run waited through them.
    expect(stats.rateLimited.drawn).toBeGreaterThan(10);
    expect(stats.outagesEntered).toBe(1);
  });

  it('equals the in-process run exactly: every session’s calls and tokens, every cell’s grade, claims and survivors', () => {
    expect(inProcess.result.exit).toBe(EXIT.ok);
    expect(sessions(http.events)).toEqual(sessions(inProcess.events));
    expect(measured(http.events)).toEqual(measured(inProcess.events));
    expect(http.result.summary.cells.map((c) => [c.cell, c.score, c.survival])).toEqual(inProcess.result.summary.cells.map((c) => [c.cell, c.score, c.survival]));
  });

  it('pays no transcribed call twice: the server answered every call once (the warm-up of each model aside)', () => {
    const twice = Object.entries(server.stats().calls).filter(([key, c]) => c.answered > 1 && !key.startsWith('preflight/'));
    expect(twice).toEqual([]);
  });

  it('grades every merge (grade_merges, on by default for a SIMULATED sweep): the report shows the decay per arm beside its closed form, and each killed claim names its node', async () => {
    const report = Report.parse(JSON.parse(await readFile(path.join(http.dir, 'report', 'report.json'), 'utf8')));
    // Served over HTTP, the run is still SIMULATED by its roster, so its truth is computed.
    expect(report.simulated?.truth).not.toMatch(/^not computed/);
    const decay = report.mergeDecay!;
    expect(decay.cells).toBe(4);
    // Cap 1 merges once (level 0); cap 2 twice (levels 1 and 0): every row has both arms, each with its planted figure.
    expect(decay.rows.map((r) => [r.cap, r.mergeLevel])).toEqual([[1, 0], [2, 0], [2, 1]]);
    for (const row of decay.rows) for (const f of [row.gated!, row.ungated!]) expect([f.claims > 0, f.truth !== null, f.notGradable]).toEqual([true, true, 0]);
    const merges = new Map(report.cells.map((c) => [c.id, c] as const));
    const measuredMerges = new Map(http.events.flatMap((e) => (e.type === 'cell_finished' && e.outcome.status === 'measured' ? [[e.cellId, e.outcome.result.merges.map((m) => m.path)] as const] : [])));
    // The smoke's self-review misses defects its merges plant: claims die, so the naming is checked on real cases.
    expect(decay.killed.filter((k) => k.arm === 'ungated').length).toBeGreaterThan(0);
    for (const k of decay.killed) {
      expect(merges.has(k.cellId)).toBe(true);
      expect(measuredMerges.get(k.cellId)).toContain(k.killedAt);
      expect(k.leaf.startsWith(`${k.killedAt}.`)).toBe(true);
    }
    const md = await readFile(path.join(http.dir, 'report', 'report.md'), 'utf8');
    expect(md).toContain('## Decay merge by merge');
    // Leaves are not graded here (grade_leaves: false): the report says nothing of work beyond the claims.
    expect(report.beyondClaims ?? null).toBeNull();
    expect(md).not.toContain('## Work beyond the claims');
  });

  // The results site of the paid path's own recording, not only of the committed example: the same browser checks (tests/site/checks).
  it.skipIf(!HAS_CHROMIUM)('publishes the HTTP recording: each cell page lists the killed claims report.json derives, a gated merge shows its reviewer\'s findings, counts and headline as the report\'s, every download opens, every chart legible at 390 px with every figure a working link, no licence notice (the sqlcsv brief is SPEC.md alone)', async () => {
    const dist = path.join(tmp, 'site');
    await promisify(execFile)(path.join(REPO_ROOT, 'make_site.sh'), ['--out', dist, '--data', path.join(tmp, 'site-data'), http.dir], { cwd: tmp, env: { PATH: process.env.PATH, HOME: process.env.HOME }, maxBuffer: 64 * 1024 * 1024 });
    const site = await serveStatic(dist, '/');
    const browser = await launchChromium();
    try {
      const report = Report.parse(JSON.parse(await readFile(path.join(http.dir, 'report', 'report.json'), 'utf8')));
      const o = { context: browser.context, baseUrl: site.url, run: path.basename(http.dir), report };
      expect(await checkKilledClaims(o)).toBe(report.claims.filter((c) => !c.survived).length);
      expect((await checkMergeFindings({ ...o, runDir: http.dir })).gated).toBeGreaterThan(0);
      expect(await checkCounts(o)).toBe(4);
      await checkHeadline(o);
      await checkDownloads({ ...o, runDir: http.dir });
      const charts = await checkCharts(o);
      expect(charts.problems).toEqual([]);
      expect(charts.charts).toBe(report.charts.length);
      // sqlcsv's brief is SPEC.md alone: no page and no archive of its run carries a licence notice.
      expect(await expectedNotices(path.join(REPO_ROOT, 'spec', 'sqlcsv'))).toEqual([]);
      const licence = await licenceProblems(dist, o.run, []);
      expect(licence).toEqual({ problems: [], sessionPages: expect.any(Number) });
      expect(licence.sessionPages).toBeGreaterThan(0);
    } finally {
      await browser.close();
      await site.close();
    }
  }, 600_000);

  it('grades each distinct tree once: the in-process twin reuses the recording\'s gradings', () => {
    // The twin builds the HTTP run's trees, byte for byte.
    expect(memo.stats().reused).toBeGreaterThan(0);
    expect(memo.stats().graded).toBeGreaterThan(0);
  });
});
