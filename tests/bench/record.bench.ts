import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, runRecord } from '../../harness/index.js';
import { figure, type Figure } from './stats.js';

/** Goal: the smoke sweep end to end (preflight, both caps on the simulated population in Docker, grading, summary, report) in at most 3 min on 2 cores. */
export const SMOKE_SWEEP_TARGET_MS = 180_000;

/** `harness record manifests/smoke.yaml` once, exactly as `npm start` runs it, into a scratch folder. */
export async function recordBench(): Promise<Figure[]> {
  const out = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-record-bench-')), 'smoke');
  try {
    const t = performance.now();
    const result = await runRecord(path.join(REPO_ROOT, 'manifests/smoke.yaml'), { out }, { out: () => undefined, err: () => undefined, isTty: false });
    const ms = performance.now() - t;
    const measured = result.summary.cells.filter((c) => c.status === 'measured').length;
    return [figure('record: smoke sweep end to end (sim, Docker)', [ms], undefined, `goal <= ${SMOKE_SWEEP_TARGET_MS / 1000} s; ${measured}/${result.summary.cells.length} cells measured, ${result.summary.sessions.counted} sessions`)];
  } finally {
    await rm(path.dirname(out), { recursive: true, force: true });
  }
}
