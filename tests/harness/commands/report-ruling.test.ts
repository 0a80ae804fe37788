import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Hypothesis, hypothesisPin, runCli } from '../../../harness/index.js';
import { bufferIo, isolatedDefects } from '../../../harness/testing.js';
import { runFiles, simRun } from '../report/run-fixture.js';
import { simCells, type SimDesign } from '../report/sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/** `harness report` says the ruling on the terminal, and says NOT PRE-REGISTERED when the run's journal does not pin the manifest's hypothesis. */

const defects = isolatedDefects(SPEC_IDS);
const DESIGN: SimDesign = { params: { seed: 3, seam_defect_rate: 0.8, judge_recall: 0.95, self_review_recall: 0.05, repair_rate: 0.95 }, caps: [1, 2], repetitions: 6, mergeAttempts: 2, defects };
const HYPOTHESIS = { primary: { level: 2 }, secondary: [{ level: 1 }], smallest_difference: 0.05, alpha: 0.05, power: 0.8 };

async function reported(pin: boolean) {
  const { pins } = await runFiles(DESIGN, { hypothesis: HYPOTHESIS });
  const { hypothesis: _none, ...unpinned } = pins;
  const { dir } = await simRun(DESIGN, simCells(DESIGN), { manifestOver: { hypothesis: HYPOTHESIS }, pins: pin ? { ...pins, hypothesis: hypothesisPin(Hypothesis.parse(HYPOTHESIS)) as never } : unpinned });
  const io = bufferIo();
  const code = await runCli(['report', dir], io);
  const out = io.stdout();
  return { code, stderr: io.stderr(), ruling: out.slice(out.lastIndexOf('wrote ')).split('\n').filter((l) => !/^\s+(report|charts)/.test(l) && !l.startsWith('wrote ')), md: await readFile(path.join(dir, 'report', 'report.md'), 'utf8') };
}

describe('harness report: the ruling', () => {
  it('prints the pre-registered ruling after the summary', async () => {
    const { code, stderr, ruling, md } = await reported(true);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(ruling).toMatchInlineSnapshot(`
      [
        "Pre-registered ruling (δ 0.050, alpha 0.05, secondaries Holm-adjusted):",
        "  level 2 (primary): SUPPORTED, gated − ungated +0.276 [+0.180, +0.367] (95% interval, 4 pairs, uncalibrated (4 pairs))",
        "  level 1 (secondary): SUPPORTED, gated − ungated +0.182 [+0.141, +0.222] (95% interval, 6 pairs)",
        "",
      ]
    `);
    expect(md).toContain('## Pre-registered ruling');
  });

  it("prints NOT PRE-REGISTERED when the run's manifest carries a hypothesis its journal's pin does not", async () => {
    const { code, ruling, md } = await reported(false);
    expect(code).toBe(0);
    expect(ruling).toMatchInlineSnapshot(`
      [
        "NOT PRE-REGISTERED: the manifest declares a hypothesis the journal's header does not pin, so it may have been written after cells were recorded; no ruling is given.",
        "",
      ]
    `);
    expect(md).toContain('**NOT PRE-REGISTERED:');
  });
});
