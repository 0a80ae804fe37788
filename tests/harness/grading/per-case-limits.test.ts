import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpecOracle, sandboxImageTag, specDir } from '../../../harness/index.js';
import { runGradingContainer, stageScratch } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, REFERENCE, smallOracle, removeScratch, scratchDir } from './hostile-trees.js';

afterAll(removeScratch);

/** Clock advance before every program start: far past any deadline a grading could have. */
const DAY_S = 86_400;

/**
 * Starts the real runner.py with every clock of Python's `time` module (monotonic, time,
 * perf_counter and their _ns twins) pushed a day ahead before each program starts, and never
 * while one runs. Each case still sees its own seconds as they are, so a per-case limit is
 * unaffected; a limit on the whole grading sees days pass after the first case, and charges
 * every case after it. The clocks are patched before runner.py is imported, so
 * `from time import monotonic` is caught as well as `time.monotonic()`.
 */
const CLOCK_WARP = `
import sys, time
offset = [0.0]
for name in ("monotonic", "time", "perf_counter"):
    real = getattr(time, name)
    setattr(time, name, lambda real=real: real() + offset[0])
for name in ("monotonic_ns", "time_ns", "perf_counter_ns"):
    real = getattr(time, name)
    setattr(time, name, lambda real=real: real() + int(offset[0] * 1e9))
sys.path.insert(0, "/grade/oracle")
import runner
run_program = runner.run_program
def warped(*args, **kwargs):
    offset[0] += ${DAY_S}.0
    return run_program(*args, **kwargs)
runner.run_program = warped
runner.main()
`;

/** A Docker client whose containers start `script` (under /grade) in place of oracle/runner.py, with the same arguments. */
function startingInstead(docker: Docker, script: string): Docker {
  const client = Object.create(docker) as Docker;
  client.createContainer = ((options: Docker.ContainerCreateOptions) =>
    docker.createContainer({ ...options, Cmd: options.Cmd!.map((arg) => (arg === '/grade/oracle/runner.py' ? `/grade/${script}` : arg)) })) as Docker['createContainer'];
  return client;
}

describe.skipIf(!HAS_DOCKER)('item 4: per-case limits only, no whole-grading deadline', { timeout: DOCKER_TIMEOUT }, () => {
  it('a grading whose clock reads days long still runs and credits every case, since each case kept within its own limit', async () => {
    const specOracle = await loadSpecOracle('sqlcsv', { oracleDir: await smallOracle(), specDir: specDir('sqlcsv') });
    const { oracle } = specOracle;
    const scratch = await scratchDir('rdh-grade-clock-');
    await stageScratch(scratch, REFERENCE, specOracle);
    // Beside the report, where nothing of the tree can reach and the oracle's allowlist is not checked.
    await writeFile(path.join(scratch, 'out', 'clock_warp.py'), CLOCK_WARP);
    const report = await runGradingContainer(startingInstead(new Docker(), 'out/clock_warp.py'), {
      image: sandboxImageTag(),
      scratch,
      cases: oracle.cases.length,
      caseTimeoutMs: 20_000,
      // One at a time: the clock only jumps between programs, never during one.
      workers: 1,
      mode: 'fork',
      reveal: false,
      runId: 'grade-test',
      judgeFiles: oracle.judgeFiles,
    });
    // The warp took effect: the runner's own clock saw a day pass per program (the compile step's included).
    expect(report.elapsed_ms).toBeGreaterThanOrEqual(oracle.cases.length * DAY_S * 1000);
    expect(report.integrity.violation).toBeNull();
    expect(report.cases.filter((c) => !c.pass).map((c) => `${c.id}: ${c.reason}`)).toEqual([]);
    expect(report.cases.length).toBe(oracle.cases.length);
  });
});
