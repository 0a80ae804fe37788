import { afterAll, describe, expect, it } from 'vitest';
import { GradeResult, gradeTree, loadSpecOracle, specDir } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, referenceWith, smallOracle, removeScratch } from './hostile-trees.js';

afterAll(removeScratch);

/**
 * Load never fails a case: a case that runs out of wall-clock time among the others is run again
 * alone, with a CPU-time limit, and fails on time only if it runs out of CPU time or of time again
 * alone. The tree is the sqlcsv reference with three cases planted (a case's index is its uid's
 * offset in the grading's uid block, so the tree can tell them apart):
 *   case 1 is slow under load: while another case's program runs beside it, it stalls past its limit;
 *   case 2 spins forever (it must run out of CPU time);
 *   case 3 sleeps forever (it must time out alone too).
 * The full proof under a CPU hog on every core, both modes and both tasks, is `npm run bench -- grade-load`.
 */
const PLANTED = `
import os, runpy, sys, time

def others():
    """Whether a process of another case (a uid of this grading's block but not this one) is alive."""
    me = os.getuid()
    for p in os.listdir("/proc"):
        try:
            with open(f"/proc/{p}/status") as f:
                uid = next(int(l.split()[1]) for l in f if l.startswith("Uid:"))
        except (OSError, StopIteration, ValueError):
            continue
        if uid != me and uid // 1024 == me // 1024 and uid % 1024:
            return True
    return False

index = os.getuid() % 1024 - 1
if index == 1:
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        if others():
            time.sleep(30)   # starved by the others: far past the limit while they run
        time.sleep(0.05)
elif index == 2:
    while True:
        pass
elif index == 3:
    time.sleep(3600)
else:
    time.sleep(0.6)          # every other case is slow enough to overlap case 1
runpy.run_module("sqlcsv.real_main", run_name="__main__")
`;
const REAL_MAIN = 'import sys\n\nfrom sqlcsv.cli import main\n\nsys.exit(main(sys.argv[1:]))\n';

describe.skipIf(!HAS_DOCKER)('a case that runs out of time among the others', { timeout: DOCKER_TIMEOUT }, () => {
  it('is run again alone: passes when it was only slow under load, fails when it runs out of CPU time or idles alone', async () => {
    const tree = await referenceWith({ 'sqlcsv/__main__.py': PLANTED, 'sqlcsv/real_main.py': REAL_MAIN });
    const result = GradeResult.parse(await gradeTree({ spec: 'sqlcsv', tree, caseTimeoutMs: 2000, workers: 2, oracleDir: await smallOracle(), specDir: specDir('sqlcsv') }));
    // On a busy machine other cases may run out of time too; each of them must then pass alone.
    const reruns = result.reruns ?? [];
    const { oracle } = await loadSpecOracle('sqlcsv', { oracleDir: await smallOracle(), specDir: specDir('sqlcsv') });
    const outcomeOf = (i: number) => reruns.find((r) => r.case === oracle.cases[i]!.id)?.outcome;
    expect([1, 2, 3].map(outcomeOf)).toEqual(['passed', 'ran out of CPU time', 'timed out, also when run alone']);
    const outcomes = [...new Set(reruns.map((r) => r.outcome))].sort();
    expect(outcomes).toEqual(['passed', 'ran out of CPU time', 'timed out, also when run alone']);
    expect(reruns.filter((r) => r.outcome !== 'passed').length).toBe(2);
    expect(reruns.every((r) => r.firstMs >= 2000 && r.cpuLimitS === 2)).toBe(true);
    expect(result.casesPassed).toBe(result.casesTotal - 2);
    const failures = result.requirements.flatMap((r) => r.failures.map((f) => f.reason)).sort();
    expect(failures).toEqual(['ran out of CPU time', 'timed out, also when run alone']);
  });
});
