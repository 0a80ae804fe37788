import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, readSweepJournal } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { recordInChild, type Invocation } from './record-child.js';
import type { SimRecordOptions } from './record-fixture.js';

/**
 * No container outlives its run (real Docker). Two sweeps at once, in two run folders both named
 * `t1`, each SIGKILLed inside a leaf (its sandboxes left running); then the first is resumed and
 * SIGKILLed inside a grading (its grading container and scratch folder left), and resumed again
 * to the end. Each resume removes its own run's leftovers, by the run id its journal pins, and
 * says how many; the other sweep's containers survive every one of them.
 */

const HEAVY = 1_800_000;
const docker = new Docker();

let tmp: string;
const dirs = { a: '', b: '' };
const runIds = { a: '', b: '' };
const steps: Record<string, Invocation> = {};
const seen: Record<string, { a: number; b: number; scratchA: number }> = {};

const runIdOf = async (dir: string) => {
  const header = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events[0]!;
  return header.type === 'header' ? header.pins.runId! : '';
};
const containersOf = async (runId: string) => (await docker.listContainers({ all: true, filters: { label: [`io.rdh.run=${runId}`] } })).length;
const scratchOf = async (runId: string) => (await readdir(tmpdir())).filter((n) => n.startsWith(`rdh-grade-${runId}-`)).length;
const look = async (name: string) => (seen[name] = { a: await containersOf(runIds.a), b: await containersOf(runIds.b), scratchA: await scratchOf(runIds.a) });
const invoke = (dir: string, name: string, options: SimRecordOptions) =>
  recordInChild(dir, { flags: { depths: [1] }, options: { dockerSandboxes: true, countFile: path.join(tmp, `${name}.calls`), ...options } });

beforeAll(async () => {
  if (!HAS_DOCKER) return;
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-leftovers-'));
  dirs.a = path.join(tmp, 'a', 't1');
  dirs.b = path.join(tmp, 'b', 't1');
  const insideLeaf: SimRecordOptions = { killAt: { type: 'session_started', n: 12 } };
  [steps.a1, steps.b1] = await Promise.all([invoke(dirs.a, 'a1', insideLeaf), invoke(dirs.b, 'b1', insideLeaf)]);
  runIds.a = await runIdOf(dirs.a);
  runIds.b = await runIdOf(dirs.b);
  await look('killed in a leaf');
  steps.a2 = await invoke(dirs.a, 'a2', { killInGrading: true });
  await look('a killed in a grading');
  steps.a3 = await invoke(dirs.a, 'a3', { realGrade: true });
  await look('a resumed to the end');
  steps.b2 = await invoke(dirs.b, 'b2', {});
  await look('b resumed to the end');
}, HEAVY);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!HAS_DOCKER)('no container outlives its run', () => {
  it('gives two run folders of the same name their own run ids', () => {
    expect(runIds.a).toMatch(/^r[0-9a-z]+-[0-9a-f]{8}$/);
    expect(runIds.b).toMatch(/^r[0-9a-z]+-[0-9a-f]{8}$/);
    expect(runIds.a).not.toBe(runIds.b);
  });

  it('a kill inside a leaf leaves sandboxes running; a kill inside a grading leaves its container and scratch folder', () => {
    expect([steps.a1!.exit, steps.b1!.exit, steps.a2!.exit]).toEqual([-1, -1, -1]);
    expect(seen['killed in a leaf']!.a).toBeGreaterThan(0);
    expect(seen['killed in a leaf']!.b).toBeGreaterThan(0);
    expect(seen['a killed in a grading']!.scratchA).toBe(1);
    expect(seen['a killed in a grading']!.a).toBeGreaterThan(0);
  });

  it('each resume removes its own run’s leftovers and says how many; the other sweep’s containers survive', () => {
    // The second invocation of a (killed before it could print) removed the first's sandboxes: only its own grading container was left.
    expect(seen['a killed in a grading']!.a).toBe(1);
    expect(steps.a3!.output).toMatch(new RegExp(`harness: removed what an earlier invocation of run ${runIds.a} left behind: [1-9]\\d* container\\(s\\), \\d+ workspace volume\\(s\\), 1 grading scratch folder\\(s\\)`));
    expect(steps.a3!.exit).toBe(EXIT.ok);
    expect(seen['a killed in a grading']!.b).toBe(seen['killed in a leaf']!.b);
    expect(seen['a resumed to the end']).toEqual({ a: 0, b: seen['killed in a leaf']!.b, scratchA: 0 });
    expect(steps.b2!.exit).toBe(EXIT.ok);
    expect(seen['b resumed to the end']!.b).toBe(0);
  });
});
