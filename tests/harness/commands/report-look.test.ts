import { readFile, stat, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellId, Hypothesis, hypothesisPin, readSweepJournal, runCli, SWEEP_JOURNAL, type SweepEventInput } from '../../../harness/index.js';
import { bufferIo, isolatedDefects } from '../../../harness/testing.js';
import { efficacyBoundaries } from '../../../harness/index.js';
import { runFiles, simRun } from '../report/run-fixture.js';
import { simCells, type SimDesign } from '../report/sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/**
 * A staged SIMULATED sweep ruled on in looks: stage 1 records the first three repetitions of
 * each cap (half the primary's pairs), `report --look` takes look 1; stage 2 adds repetitions
 * 4-6 (a resume's invocation appended to the same journal), `report --look` takes look 2 at
 * the boundary left after look 1 spent its share; a third look is refused. The cells are the
 * pure sampler's draws (the decisions a sim cell makes), journalled as record writes them.
 */

const defects = isolatedDefects(SPEC_IDS);
const DESIGN: SimDesign = { params: { seed: 3, seam_defect_rate: 0.8, judge_recall: 0.95, self_review_recall: 0.05, repair_rate: 0.95 }, caps: [1, 2], repetitions: 6, mergeAttempts: 2, defects };
const SEQUENTIAL = { primary: { level: 1 }, smallest_difference: 0.05, alpha: 0.05, power: 0.8, sequential: { looks: 2, spending: 'obrien_fleming' } };
const cells = simCells(DESIGN);

async function stagedRun(hypothesis: Record<string, unknown>) {
  const { pins } = await runFiles(DESIGN, { hypothesis });
  const pinned = { ...pins, hypothesis: hypothesisPin(Hypothesis.parse(hypothesis)) as never };
  return simRun(DESIGN, cells.filter((c) => c.repetition <= 3), { manifestOver: { hypothesis }, pins: pinned });
}

/** Stage 2: a resumed invocation recording repetitions 4-6, appended as record appends it. */
async function addRepetitions(dir: string): Promise<void> {
  const file = path.join(dir, 'journal.jsonl');
  const { events } = await readSweepJournal(file);
  const inputs: SweepEventInput[] = [{ type: 'run_started', resume: true, depths: [1, 2], concurrency: 4, code: (events[0] as Extract<(typeof events)[number], { type: 'header' }>).pins.code, harnessVersion: '0.1.0', caveats: [] }];
  for (const cell of cells.filter((c) => c.repetition > 3)) inputs.push({ type: 'cell_started', cellId: cellId(cell) }, { type: 'cell_finished', cellId: cellId(cell), outcome: { status: 'measured', result: cell } });
  inputs.push({ type: 'sweep_stopped', reason: 'completed', detail: 'every cell was recorded', unmeasured: [] });
  const last = events.at(-1)!;
  const lines = inputs.map((input, i) => JSON.stringify({ ...input, version: SWEEP_JOURNAL.versions.get(input.type), seq: last.seq + i + 1, at: new Date(Date.parse(last.at) + (i + 1) * 1000).toISOString() }));
  await appendFile(file, `${lines.join('\n')}\n`);
}

async function report(dir: string, ...flags: string[]) {
  const io = bufferIo();
  const code = await runCli(['report', dir, ...flags], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const looksIn = async (dir: string) => (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events.filter((e) => e.type === 'look_taken');
const reportJson = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'report', 'report.json'), 'utf8'));
const round = (x: number) => Number(x.toFixed(3));

describe('harness report --look: a staged sweep ruled on in sequential looks', () => {
  it('journals each look, rules look 2 at the boundary left after look 1, and refuses a look past K with nothing written', async () => {
    const { dir } = await stagedRun(SEQUENTIAL);
    // Plain report never spends a look.
    expect((await report(dir)).code).toBe(0);
    expect(await looksIn(dir)).toEqual([]);
    expect((await reportJson(dir)).ruling.comparisons[0].ruledAt).toBe('no look taken yet (harness report --look takes look 1 of 2)');

    const first = await report(dir, '--look');
    expect({ code: first.code, err: first.err }).toEqual({ code: 0, err: '' });
    await addRepetitions(dir);
    const second = await report(dir, '--look');
    expect(second.code).toBe(0);
    const looks = await looksIn(dir);
    expect(looks.map((l) => ({ look: l.look, fraction: l.fraction, pairs: l.pairs, z: round(l.boundary!.z), final: l.boundary!.final, ruling: l.ruling }))).toEqual([
      { look: 1, fraction: 0.5, pairs: { measured: 6, planned: 12, withClaims: 3 }, z: 2.963, final: false, ruling: 'CONTINUE' },
      { look: 2, fraction: 1, pairs: { measured: 12, planned: 12, withClaims: 6 }, z: 1.969, final: true, ruling: 'STOP: SUPPORTED' },
    ]);
    // The spent boundary: look 2's is the one left after look 1 spent alpha at fraction 0.5, not the fixed 1.960.
    expect(looks[1]!.boundary!.z).toBeCloseTo(efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.5, 1] }).z[1]!, 6);
    // On the t scale of the look's degrees of freedom, and the adjusted interval read at its nominal p.
    expect(looks[1]!.boundary!.t).toBeGreaterThan(looks[1]!.boundary!.z);
    expect(looks[1]!.interval).toMatchObject({ kind: 't', confidence: 1 - looks[1]!.boundary!.nominalP });
    expect(second.out.split('\n').filter((l) => l.startsWith('Look taken') || /^\s+(look 2|boundary)/.test(l)).slice(-3).map((l) => l.replace(/\d+\.\d{4,}/g, (m) => Number(m).toFixed(3)))).toMatchInlineSnapshot(`
      [
        "Look taken now, and journalled:",
        "  look 2 of 2 (obrien_fleming), level 1: STOP: SUPPORTED",
        "    boundary |t| > 2.587 (z 1.969, nominal p 0.049, alpha spent 0.05, the final look: the rest spent)",
      ]
    `);

    // report.json and report.md show every look; the primary's ruling is the last look's.
    const json = await reportJson(dir);
    expect(json.ruling.looks.map((l: { look: number; ruling: string }) => `${l.look}: ${l.ruling}`)).toEqual(['1: CONTINUE', '2: STOP: SUPPORTED']);
    expect(json.ruling.comparisons[0]).toMatchObject({ ruling: 'SUPPORTED', ruledAt: 'look 2 of 2: STOP: SUPPORTED' });
    expect(await readFile(path.join(dir, 'report', 'report.md'), 'utf8')).toContain('### Looks taken');

    // A third look: refused with the reason, exit 2, the journal and the report untouched.
    const journal = path.join(dir, 'journal.jsonl');
    const before = { journal: await readFile(journal, 'utf8'), report: (await stat(path.join(dir, 'report', 'report.json'))).mtimeMs };
    const third = await report(dir, '--look');
    expect({ code: third.code, err: third.err.trim() }).toMatchInlineSnapshot(`
      {
        "code": 2,
        "err": "harness: report --look: look 3 would be past the 2 the hypothesis declares (sequential.looks: 2); every look has been taken and look 2's ruling (STOP: SUPPORTED) stands; nothing was written",
      }
    `);
    expect({ journal: await readFile(journal, 'utf8'), report: (await stat(path.join(dir, 'report', 'report.json'))).mtimeMs }).toEqual(before);
  });

  it("refuses a second look on no new pairs, and rules a fixed design's repeated look with REPEATED LOOKS, NOT ADJUSTED", async () => {
    const { sequential: _s, ...fixed } = SEQUENTIAL;
    const { dir } = await stagedRun(fixed);
    expect((await report(dir, '--look')).code).toBe(0);
    await addRepetitions(dir);
    const again = await report(dir, '--look');
    expect(again.code).toBe(0);
    const looks = await looksIn(dir);
    expect(looks.map((l) => [l.look, l.design, l.boundary, l.caveat?.slice(0, 60) ?? null])).toEqual([
      [1, null, null, null],
      [2, null, null, 'REPEATED LOOKS, NOT ADJUSTED: look 1 ruled on 12 cells and t'],
    ]);
    expect((await reportJson(dir)).ruling.caveat).toMatch(/^REPEATED LOOKS, NOT ADJUSTED: look 1 ruled on 12 cells and this ruling reads 24/);

    const seq = await stagedRun(SEQUENTIAL);
    expect((await report(seq.dir, '--look')).code).toBe(0);
    const same = await report(seq.dir, '--look');
    expect({ code: same.code, err: same.err.trim() }).toMatchInlineSnapshot(`
      {
        "code": 2,
        "err": "harness: report --look: no pair of the primary comparison was added since look 1 (6 of 12 pairs then and now); record more before looking again; nothing was written",
      }
    `);
    expect(await looksIn(seq.dir)).toHaveLength(1);
  });
});
