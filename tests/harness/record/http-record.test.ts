import { mkdtemp, readFile, readdir, readlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stableJson } from '../../../engine/index.js';
import { EXIT, exitCodeFor, readSweepJournal, type RecordResult, type SimServer, type SweepEvent } from '../../../harness/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { manifestVariant, providersFile, recordHttp, startServer } from './http-fixture.js';
import { bufferIo } from './record-fixture.js';

/**
 * `harness record` over HTTP: the openai SDK against `harness sim serve` on a local port (the
 * record tests' SIMULATED population, host sandboxes, the fake grade), with faults from the
 * server and every wait on the clients' injected clock, never a real one. What only matters
 * over a connection is shown here: patience, transient losses and their resume, the spend
 * ceilings across pairs and resumes, the per-node allocations, and routing by pair.
 */

const HEAVY = 1_200_000;
const journalOf = async (dir: string) => (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
const started = (events: readonly SweepEvent[]) => events.filter((e) => e.type === 'session_started' && !e.reopened).length;
async function finalOutcomes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await journalOf(dir)) if (e.type === 'cell_finished') out[e.cellId] = stableJson(e.outcome);
  return out;
}
/** The files under `dir` this process holds open (Linux: /proc/self/fd), as paths relative to it. */
async function openFilesUnder(dir: string): Promise<string[]> {
  const open = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return open.filter((f) => f.startsWith(`${dir}${path.sep}`)).map((f) => path.relative(dir, f)).sort();
}
/** Call keys the server answered more than once: a call paid twice (the one-token warm-up of each invocation aside). */
const paidTwice = (server: SimServer) => Object.entries(server.stats().calls).filter(([k, c]) => c.answered > 1 && !k.startsWith('preflight/')).map(([k]) => k);

let tmp: string;
let server: SimServer;
let providers: string;
let baseline: { dir: string; result: RecordResult; events: readonly SweepEvent[] };

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-http-record-'));
  server = await startServer();
  providers = await providersFile(path.join(tmp, 'p'), server.url);
  const dir = path.join(tmp, 'baseline');
  const result = await recordHttp(dir, { depths: [1, 2] }, { providers, clock: new FakeClock() });
  baseline = { dir, result, events: await journalOf(dir) };
}, HEAVY);

afterAll(async () => {
  await server?.stop();
});

describe('harness record over HTTP (SIMULATED provider served by harness sim serve)', () => {
  it('records caps 1 and 2 through the server: every staged cell measured, exit 0, no call answered twice', () => {
    expect(baseline.result.exit).toBe(EXIT.ok);
    expect(baseline.result.summary.counts).toEqual({ staged: 4, measured: 4, transient: 0, permanent: 0, unmeasured: 0, notStarted: 0 });
    expect(baseline.result.summary.simulated).toBe(true);
    expect(paidTwice(server)).toEqual([]);
  });

  it('a failure that outlasts the patience leaves the cell unavailable (transient), exit 3; with the server back the same command measures it, paying only the calls after the failure', async () => {
    const own = await startServer();
    try {
      const p = await providersFile(path.join(tmp, 'p-outage'), own.url, { patienceS: 30 });
      const dir = path.join(tmp, 'outage');
      const clock = new FakeClock();
      let n = 0;
      const io = bufferIo();
      const first = await recordHttp(dir, { depths: [1] }, { providers: p, clock, onEvent: (e) => void (e.type === 'session_started' && ++n === 12 && own.outage(true)) }, io);
      expect(first.exit).toBe(EXIT.environment);
      expect(first.summary.counts.transient).toBeGreaterThan(0);
      expect(first.summary.counts.measured).toBeLessThan(2);
      const events = await journalOf(dir);
      expect(events.find((e) => e.type === 'sweep_stopped')).toMatchObject({ reason: 'unreachable' });
      expect(events.filter((e) => e.type === 'cell_finished' && e.outcome.status === 'unavailable').every((e) => e.type === 'cell_finished' && e.outcome.status === 'unavailable' && e.outcome.transient)).toBe(true);
      expect(io.text()).toMatch(/harness: the sweep stopped \(a provider failed for its whole patience \(patience_s\): node root[.\d]* was stopped by its provider \(model_(unavailable|rate_limited), sim-executor \(SIMULATED\)\)/);
      expect(io.text()).toMatch(/sim-http has been failing for 3\d(\.\d)? s, which spends its patience of 30 s/);
      // The fake clock slept through the whole patience; no real wait did.
      expect(clock.elapsed()).toBeGreaterThanOrEqual(30_000);

      await own.outage(false);
      const second = await recordHttp(dir, { depths: [1] }, { providers: p, clock });
      expect(second.exit).toBe(EXIT.ok);
      expect(second.summary.counts).toMatchObject({ staged: 2, measured: 2, transient: 0 });
      expect(await finalOutcomes(dir)).toEqual(Object.fromEntries(Object.entries(await finalOutcomes(baseline.dir)).filter(([id]) => id.startsWith('cap1-'))));
      expect(paidTwice(own)).toEqual([]);
    } finally {
      await own.stop();
    }
  }, HEAVY);

  it('max_sessions set 10 below the real count stops at exactly that count, across pairs and across a resume, and every count printed agrees (exit 8)', async () => {
    const real = started(baseline.events);
    const ceiling = real - 10;
    const manifest = await manifestVariant(path.join(tmp, 'm'), 'ceiling', [['max_sessions: 400', `max_sessions: ${ceiling}`]]);
    const dir = path.join(tmp, 'ceiling');
    const stop = new AbortController();
    let cap2 = 0;
    const cut = await recordHttp(dir, { depths: [1, 2] }, { providers, manifest, clock: new FakeClock(), signal: stop.signal, onEvent: (e) => void (e.type === 'session_started' && e.cellIds[0]!.startsWith('cap2') && ++cap2 === 5 && stop.abort()) });
    expect(cut.exit).toBe(EXIT.interrupted);
    const io = bufferIo();
    const resumed = await recordHttp(dir, { depths: [1, 2] }, { providers, manifest, clock: new FakeClock() }, io);
    expect(resumed.exit).toBe(EXIT.ceilingReached);
    const events = await journalOf(dir);
    expect(started(events)).toBe(ceiling);
    expect(resumed.summary.sessions).toEqual({ counted: ceiling, maxSessions: ceiling });
    expect(JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')).sessions.counted).toBe(ceiling);
    expect(io.text()).toContain(`sessions ${ceiling} of max_sessions ${ceiling}`);
    expect(resumed.summary.counts).toMatchObject({ staged: 4, measured: 2, unmeasured: 2 });
    const report = JSON.parse(await readFile(path.join(dir, 'report/report.json'), 'utf8'));
    expect(report.cost.actual.sessions + report.cost.unmeasured.sessions).toBe(ceiling);
    // A sweep stopped by its ceiling (or cut) leaves none of its files open in this process.
    expect(await openFilesUnder(dir)).toEqual([]);
  }, HEAVY);

  it('max_cost_usd stops the sweep before the bill passes it: what was paid plus the worst case of every call in flight (exit 8)', async () => {
    const paid = baseline.events.reduce((n, e) => n + (e.type === 'session_finished' ? (e.costUsd ?? 0) : 0), 0);
    const limit = Math.round(paid * 0.6 * 100) / 100;
    const manifest = await manifestVariant(path.join(tmp, 'm'), 'cost', [['max_sessions: 400', `max_sessions: 400\nmax_cost_usd: ${limit}`]]);
    const dir = path.join(tmp, 'cost');
    const io = bufferIo();
    const result = await recordHttp(dir, { depths: [1, 2] }, { providers, manifest, clock: new FakeClock() }, io);
    expect(result.exit).toBe(EXIT.ceilingReached);
    expect(result.summary.paid.usd).toBeLessThanOrEqual(limit);
    expect(result.summary.paid.usd).toBeGreaterThan(0);
    expect(io.text()).toMatch(/the cost ceiling is reached: \$[\d.]+ paid and up to \$[\d.]+ in flight, and the next call could cost \$[\d.]+, against max_cost_usd \$[\d.]+; nothing more is dispatched/);
    expect(await openFilesUnder(dir)).toEqual([]);
  }, HEAVY);

  it('refuses max_cost_usd with a model that has no price, before anything is written (exit 2)', async () => {
    const manifest = await manifestVariant(path.join(tmp, 'm'), 'cost-unpriced', [['max_sessions: 400', 'max_sessions: 400\nmax_cost_usd: 5']]);
    const p = await providersFile(path.join(tmp, 'p-unpriced'), server.url, { prices: null });
    const dir = path.join(tmp, 'cost-unpriced');
    const error = await recordHttp(dir, { depths: [1] }, { providers: p, manifest, clock: new FakeClock() }).catch((e: unknown) => e);
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect((error as Error).message.replace(p, '<providers>').replace(manifest, '<manifest>')).toMatchInlineSnapshot(`"max_cost_usd: <manifest> sets a cost ceiling, but models.sim-executor and models.sim-reviewer have no price_usd_per_million in <providers>; give them prices (0 for a flat-rate server) or remove max_cost_usd"`);
    await expect(readFile(path.join(dir, 'journal.jsonl'))).rejects.toThrow(/ENOENT/);
  });

  it('gives every leaf of a plan wider than projected_branching its full allocation', async () => {
    const manifest = await manifestVariant(path.join(tmp, 'm'), 'wide', [
      ['branching: { 2: 1 }', 'branching: { 4: 1 }'],
      ['max_sessions: 400', 'max_sessions: 400\nbudget: { leaf_tokens: 300000, assembly_tokens: 500000 }'],
    ]);
    // The server plants what its own manifest says: the wider tree needs a server started with it.
    const wide = await startServer(undefined, manifest);
    const dir = path.join(tmp, 'wide');
    const result = await recordHttp(dir, { depths: [1] }, { providers: await providersFile(path.join(tmp, 'p-wide'), wide.url), manifest, clock: new FakeClock() }).finally(() => wide.stop());
    expect(result.exit).toBe(EXIT.ok);
    const root = JSON.parse(await readFile(path.join(dir, 'cells/cap1-rep1-gated/result.json'), 'utf8'));
    expect(root.children.map((c: { allocation: number }) => c.allocation)).toEqual([300_000, 300_000, 300_000, 300_000]);
    expect(root.allocation).toBe(500_000 + 4 * 300_000);
    const header = (await journalOf(dir))[0]!;
    expect(header.type === 'header' && header.pins.budget).toEqual({ leafTokens: 300_000, assemblyTokens: 500_000 });
    expect(JSON.parse(await readFile(path.join(dir, 'report/report.json'), 'utf8')).caveats.map((c: { kind: string }) => c.kind)).not.toContain('cut_short');
  }, HEAVY);

  it('a leaf starved by a small declared budget is counted, and its cell carries the caveat in summary.json, report.json and report.md', async () => {
    const manifest = await manifestVariant(path.join(tmp, 'm'), 'starved', [['max_sessions: 400', 'max_sessions: 400\nbudget: { leaf_tokens: 20000, assembly_tokens: 400000 }']]);
    const dir = path.join(tmp, 'starved');
    const io = bufferIo();
    const result = await recordHttp(dir, { depths: [1] }, { providers, manifest, clock: new FakeClock() }, io);
    const finished = (await journalOf(dir)).filter((e) => e.type === 'cell_finished');
    const measured = finished.flatMap((e) => (e.type === 'cell_finished' && e.outcome.status === 'measured' ? [e.outcome.result] : []));
    expect(measured.length).toBeGreaterThan(0);
    for (const m of measured) expect(m.cutShort?.filter((c) => c.kind === 'leaf').length).toBeGreaterThan(0);
    expect(result.summary.caveats.some((c) => c.startsWith('CUT SHORT:'))).toBe(true);
    const report = JSON.parse(await readFile(path.join(dir, 'report/report.json'), 'utf8'));
    expect(report.caveats.find((c: { kind: string }) => c.kind === 'cut_short').text).toMatch(/^CUT SHORT: in \d+ cells? \(cap1-rep1-gated/);
    expect(await readFile(path.join(dir, 'report/report.md'), 'utf8')).toContain('CUT SHORT: in ');
  }, HEAVY);
});

describe('routing over HTTP: roles never cross pairs, and only a provider failure moves a call', () => {
  it("with the executor's model down and no roles in the provider file, no call reaches the reviewer's model, and the node stops naming the executor's model", async () => {
    const dead = await startServer();
    const deadUrl = dead.url;
    await dead.stop();
    const live = await startServer();
    try {
      const p = await providersFile(path.join(tmp, 'p-down'), live.url, { patienceS: 20, executorUrl: deadUrl });
      // The warm-up reaches the executor's endpoint first, finds it down for its whole patience: exit 3, before anything is written.
      const error = await recordHttp(path.join(tmp, 'executor-down'), { depths: [1] }, { providers: p, clock: new FakeClock() }).catch((e: unknown) => e);
      expect(exitCodeFor(error)).toBe(EXIT.environment);
      expect((error as Error).message).toMatch(/^model sim-executor \(SIMULATED\) is unavailable: provider sim-http-executor has been failing for 2\d(\.\d)? s, which spends its patience of 20 s/);
      expect(live.stats().received).toBe(0);
    } catch (error) {
      await live.stop();
      throw error;
    }
    try {
      const p = await providersFile(path.join(tmp, 'p-down2'), live.url, { patienceS: 20, executorUrl: deadUrl });
      const dir = path.join(tmp, 'executor-down-no-warmup');
      const io = bufferIo();
      const result = await recordHttp(dir, { depths: [1] }, { providers: p, clock: new FakeClock(), skipWarmup: true }, io);
      expect(result.exit).toBe(EXIT.environment);
      // Every call the engine made went to the executor's dead endpoint: the reviewer's model was never asked to plan, build or merge.
      expect(live.stats().received).toBe(0);
      const finished = (await journalOf(dir)).filter((e) => e.type === 'cell_finished');
      expect(finished.map((e) => e.type === 'cell_finished' && e.outcome.status === 'unavailable' && e.outcome.detail)).toEqual([
        expect.stringMatching(/^node root was stopped by its provider \(model_unavailable, sim-executor \(SIMULATED\)\)/),
        expect.stringMatching(/^node root was stopped by its provider \(model_unavailable, sim-executor \(SIMULATED\)\)/),
      ]);
    } finally {
      await live.stop();
    }
  }, HEAVY);

  it('a thrown programming error is a bug: the sweep ends with it (exit 1, its stack), with no fallback and the journal intact', async () => {
    const dir = path.join(tmp, 'bug');
    const error = await recordHttp(dir, { depths: [1] }, { providers, clock: new FakeClock(), bugAt: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(exitCodeFor(error)).toBe(EXIT.internal);
    const events = await journalOf(dir);
    expect(events[0]!.type).toBe('header');
    expect(events.filter((e) => e.type === 'cell_finished')).toEqual([]);
  }, HEAVY);
});
