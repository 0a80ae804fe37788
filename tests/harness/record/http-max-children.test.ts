import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFiles, EXIT, readSweepJournal, runCli, type RecordResult, type SimServer, type SweepEvent } from '../../../harness/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { manifestVariant, providersFile, recordHttp, startServer } from './http-fixture.js';
import { bufferIo } from '../../../harness/testing.js';

const { EngineEvent } = runFiles;
type EngineEvent = runFiles.EngineEvent;

/**
 * max_children over HTTP: the SIMULATED population served by `harness sim serve` plans every
 * split three wide (branching {3: 1}) under max_children: 2, independently in each arm, so
 * every split is refused and asked again; seed 11 makes its planner repeat the wide plan at
 * cap 1 (the engine cuts it) and replan within the bound at cap 2. No node is built with three
 * children, and `harness plan`'s session bound holds on the journal.
 */

const HEAVY = 1_200_000;
const EDITS: Array<[string, string]> = [
  ['branching: { 2: 1 }', 'branching: { 3: 1 }'],
  ['projected_branching: 2', 'projected_branching: 3\nmax_children: 2'],
  ['pairing: shared', 'pairing: independent'],
];

let tmp: string;
let server: SimServer;
let manifest: string;
let run: { dir: string; result: RecordResult; journal: readonly SweepEvent[] };

const cells = ['cap1-rep1-gated', 'cap1-rep1-ungated', 'cap2-rep1-gated', 'cap2-rep1-ungated'];
const eventsOf = async (cell: string): Promise<EngineEvent[]> =>
  (await readFile(path.join(run.dir, 'cells', cell, 'events.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => EngineEvent.parse(JSON.parse(l)));
/** The widest node of a result tree. */
const widest = (node: { children?: unknown[] }): number => Math.max(node.children?.length ?? 0, ...(node.children ?? []).map((c) => widest(c as { children?: unknown[] })));

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-http-max-children-'));
  manifest = await manifestVariant(path.join(tmp, 'm'), 'bounded', EDITS);
  // The server plants what its own manifest says, the bound included.
  server = await startServer(undefined, manifest);
  const providers = await providersFile(path.join(tmp, 'p'), server.url);
  const dir = path.join(tmp, 'run');
  const result = await recordHttp(dir, { depths: [1, 2] }, { providers, manifest, clock: new FakeClock() });
  run = { dir, result, journal: (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events };
}, HEAVY);

afterAll(async () => {
  await server?.stop();
});

describe('max_children: 2 over HTTP (SIMULATED population planning three wide)', () => {
  it('measures every cell, and no node of either arm, at either cap, has three children', async () => {
    expect(run.result.exit).toBe(EXIT.ok);
    expect(run.result.summary.counts).toMatchObject({ staged: 4, measured: 4 });
    for (const cell of cells) {
      const root = JSON.parse(await readFile(path.join(run.dir, 'cells', cell, 'result.json'), 'utf8'));
      expect(widest(root), cell).toBe(2);
      const planned = (await eventsOf(cell)).filter((e) => e.type === 'node_planned' && e.mode === 'split');
      expect(planned.length, cell).toBeGreaterThan(0);
      expect(planned.every((e) => e.type === 'node_planned' && e.subtasks.length === 2), cell).toBe(true);
    }
  });

  it('refuses every three-wide plan and asks again, in both arms; cuts what stays wide, and journals each with the widths', async () => {
    const bounded = (await Promise.all(cells.map(async (cell) => (await eventsOf(cell)).filter((e) => e.type === 'width_bounded').map((e) => ({ cell, ...e }))))).flat();
    for (const arm of ['gated', 'ungated']) expect(bounded.some((e) => e.cell.endsWith(arm))).toBe(true);
    expect(bounded.every((e) => e.type === 'width_bounded' && e.maxChildren === 2 && e.asked === 3 && e.reasked && e.kept === 2)).toBe(true);
    // Seed 11: the planner repeats the wide plan at cap 1 (cut), and replans within the bound at cap 2.
    const outcome = (capPrefix: string) => new Set(bounded.filter((e) => e.cell.startsWith(capPrefix)).map((e) => e.type === 'width_bounded' && e.cut));
    expect(outcome('cap1')).toEqual(new Set([true]));
    expect(outcome('cap2')).toEqual(new Set([false]));
    // Each re-ask was a session of its own, journalled and counted.
    const reasks = run.journal.filter((e) => e.type === 'session_started' && e.role === 'planner' && e.sessionId.endsWith('/planner/2'));
    expect(reasks.length).toBe(bounded.length);
  });

  it("holds to harness plan's session bound: sessions recorded <= the bound printed", async () => {
    const io = bufferIo();
    expect(await runCli(['plan', manifest, '--json'], io)).toBe(0);
    const plan = JSON.parse(io.stdout());
    expect(plan.projection.maxChildren).toBe(2);
    expect(plan.projection.branching).toBe(2);
    const recorded = run.journal.filter((e) => e.type === 'session_started' && !e.reopened).length;
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThanOrEqual(plan.projection.total.sessions);
    const text = bufferIo();
    await runCli(['plan', manifest], text);
    expect(text.stdout()).toContain('Sessions AT MOST: no node has more than max_children = 2 children');
  });

  it('refuses to resume the journal under another bound, naming max_children, and writes nothing', async () => {
    const other = await manifestVariant(path.join(tmp, 'm'), 'other-bound', [...EDITS.slice(0, 1), ['projected_branching: 2', 'projected_branching: 3\nmax_children: 3'], ...EDITS.slice(2)]);
    const before = await readFile(path.join(run.dir, 'journal.jsonl'));
    const providers = await providersFile(path.join(tmp, 'p2'), server.url);
    await expect(recordHttp(run.dir, { depths: [1, 2] }, { providers, manifest: other, clock: new FakeClock() })).rejects.toThrow(
      /^the branching bound changed since this journal began \(max_children 2 → 3\): a tree built under one bound is not the tree of another; record into a new --out, or restore max_children: 2 in the manifest$/,
    );
    expect(await readFile(path.join(run.dir, 'journal.jsonl'))).toEqual(before);
  });
});
