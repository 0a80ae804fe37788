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
 * split three wide (branching {3: 1}) under max_children: 2, each arm planning its own tree
 * (pairing: independent), so every split is refused and asked again; seed 11 makes both arms'
 * planners repeat the wide plan, and the engine cuts it. No node is built with three children,
 * and `harness plan`'s session bound holds on the journal. Cap 1 only, to stay fast: deeper
 * caps and the replan that needs no cut are shown in process (tests/engine/tree/width-rule.test.ts,
 * and the sim's own tree model in tests/harness/sim/width-bound.test.ts).
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

const cells = ['cap1-rep1-gated', 'cap1-rep1-ungated'];
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
  const result = await recordHttp(dir, { depths: [1] }, { providers, manifest, clock: new FakeClock() });
  run = { dir, result, journal: (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events };
}, HEAVY);

afterAll(async () => {
  await server?.stop();
});

describe('max_children: 2 over HTTP (SIMULATED population planning three wide)', () => {
  it('measures both cells, and no node of either arm has three children', async () => {
    expect(run.result.exit).toBe(EXIT.ok);
    expect(run.result.summary.counts).toMatchObject({ staged: 2, measured: 2 });
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
    // Seed 11: both arms' planners repeat the wide plan, so the rule cuts it: the trailing piece merged into the second.
    expect(bounded.map((e) => e.type === 'width_bounded' && [e.cell, e.nodeId, e.answered, e.cut])).toEqual([
      ['cap1-rep1-gated', 'root', 3, true],
      ['cap1-rep1-ungated', 'root', 3, true],
    ]);
    // Each re-ask was a real call in a planner session of its own, charged in its arm.
    for (const cell of cells) {
      const charged = (await eventsOf(cell)).filter((e) => e.type === 'charge' && e.role === 'planner').map((e) => e.type === 'charge' && e.sessionId);
      expect(new Set(charged), cell).toEqual(new Set(['root/planner/1', 'root/planner/2']));
    }
    expect(run.journal.some((e) => e.type === 'session_started' && e.sessionId === 'root/planner/2')).toBe(true);
  });

  it("holds to harness plan's session bound: sessions recorded <= the bound printed", async () => {
    const io = bufferIo();
    expect(await runCli(['plan', manifest, '--depths', '1', '--json'], io)).toBe(0);
    const plan = JSON.parse(io.stdout());
    expect(plan.projection.maxChildren).toBe(2);
    expect(plan.projection.branching).toBe(2);
    const recorded = run.journal.filter((e) => e.type === 'session_started' && !e.reopened).length;
    expect(recorded).toBeGreaterThan(0);
    expect(recorded).toBeLessThanOrEqual(plan.projection.total.sessions);
    const text = bufferIo();
    await runCli(['plan', manifest, '--depths', '1'], text);
    expect(text.stdout()).toContain('Sessions AT MOST: no node has more than max_children = 2 children');
  });

  it('refuses to resume the journal under another bound, naming max_children, and writes nothing', async () => {
    const other = await manifestVariant(path.join(tmp, 'm'), 'other-bound', [...EDITS.slice(0, 1), ['projected_branching: 2', 'projected_branching: 3\nmax_children: 3'], ...EDITS.slice(2)]);
    const before = await readFile(path.join(run.dir, 'journal.jsonl'));
    const providers = await providersFile(path.join(tmp, 'p2'), server.url);
    await expect(recordHttp(run.dir, { depths: [1] }, { providers, manifest: other, clock: new FakeClock() })).rejects.toThrow(
      /^the branching bound changed since this journal began \(max_children 2 → 3\): a tree built under one bound is not the tree of another; record into a new --out, or restore max_children: 2 in the manifest$/,
    );
    expect(await readFile(path.join(run.dir, 'journal.jsonl'))).toEqual(before);
  });
});
