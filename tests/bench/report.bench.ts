import { hash } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { median } from 'simple-statistics';
import { buildReport, chartSpecs, readRecordedRun, renderSvg, writeReport } from '../../harness/index.js';
import { defectModelOf, streamDraws } from '../../harness/testing.js';
import { simRun } from '../harness/report/run-fixture.js';
import { simCells, type SimDesign } from '../harness/report/sim-sweep.js';
import { figure, type Figure } from './stats.js';
import { SPEC_IDS } from '../support/spec-ids.js';
import { sqlcsvDefectTable } from '../support/sim-corpus.js';

/** Target: the whole report of a 1,000-cell sweep (read, validate, build, render, write) in at most 5 s. */
export const REPORT_TARGET_MS = 5000;
const RUNS = 4;

/**
 * A SIMULATED sweep of 1,000 cells (caps 1-4, 125 pairs each, both arms), drawn from the pure
 * sampler and journalled as `harness record` writes it; then `harness report`'s work, timed
 * whole and by stage. Simulated, so the closed-form truth (the costliest pure step) is included.
 */
export async function reportBench(): Promise<Figure[]> {
  const defects = defectModelOf(await sqlcsvDefectTable());
  const design: SimDesign = { params: { seed: 1 }, caps: [1, 2, 3, 4], repetitions: 125, mergeAttempts: 2, defects };
  const cells = simCells(design, { draws: (cap, rep) => streamDraws(hash('sha256', `bench/${cap}/${rep}`, 'buffer').readUInt32BE(0)) });
  const { dir } = await simRun(design, cells, { name: 'bench-20260102T030000Z' });
  try {
    const whole: number[] = [];
    const cpu: number[] = [];
    const stages = { read: [] as number[], build: [] as number[], render: [] as number[] };
    for (let run = 0; run <= RUNS; run++) {
      const t = performance.now();
      const c = process.cpuUsage();
      await writeReport(dir);
      const used = process.cpuUsage(c);
      // The first run warms up (module loading, JIT); it is not counted.
      if (run === 0) continue;
      whole.push(performance.now() - t);
      cpu.push((used.user + used.system) / 1000);
      const t1 = performance.now();
      const recorded = await readRecordedRun(dir);
      const t2 = performance.now();
      const report = buildReport({ runName: recorded.name, events: recorded.events, manifest: recorded.manifest, defects, requirements: SPEC_IDS });
      const t3 = performance.now();
      for (const { spec } of chartSpecs(report)) await renderSvg(spec);
      const t4 = performance.now();
      stages.read.push(t2 - t1);
      stages.build.push(t3 - t2);
      stages.render.push(t4 - t3);
    }
    const mb = ((await stat(path.join(dir, 'journal.jsonl'))).size / 1024 / 1024).toFixed(1);
    const med = median(whole);
    return [
      figure(`report of a 1,000-cell sweep (${mb} MB journal)`, whole, undefined, `target <= ${REPORT_TARGET_MS} ms: ${med <= REPORT_TARGET_MS ? 'met' : 'MISSED'}; CPU ${Math.round(median(cpu))} ms; read, build, render 6 charts, write`),
      figure('  read and validate the journal and manifest', stages.read),
      figure('  build report.json (stats, closed-form truth, audit, cost)', stages.build),
      figure('  render the 6 charts to SVG', stages.render),
    ];
  } finally {
    await rm(path.dirname(dir), { recursive: true, force: true });
  }
}
