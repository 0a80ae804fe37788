import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that grade dozens of trees in Docker or record whole sweeps, longest first. A fresh
 * clone has no timing cache, and vitest would then start large files first, which leaves these
 * (short files, long runs) for the end, alone on one worker. Started first, the other worker
 * works through everything else beside them. An ordering hint only: a file missing here still runs.
 */
const HEAVY = [
  // Longest first, every file over 20 s in .ci/run's times of 2026-12-07 afternoon (RDH_TEST_TIMES, 2 workers),
  // with docker-stop's case folded into several-hosts.
  'tests/harness/record/http-docker.test.ts',
  'tests/site/site.browser.test.ts',
  'tests/harness/record/several-hosts.test.ts',
  'tests/harness/grading/oracle-mutants.test.ts',
  'tests/site/site-watch.test.ts',
  'tests/harness/record/leftovers.test.ts',
  'tests/engine/adapters/docker-host-pool.test.ts',
  'tests/engine/adapters/docker-sandbox.test.ts',
  'tests/harness/record/http-staged-looks.test.ts',
  'tests/harness/record/record.test.ts',
  'tests/harness/cell/sim-recovery.test.ts',
  'tests/harness/record/commonmark-smoke.test.ts',
  'tests/harness/replay/replay.test.ts',
  'tests/harness/record/http-record.test.ts',
  'tests/harness/sim/corpus-validity.test.ts',
  'tests/harness/record/cache-layout.test.ts',
  'tests/site/make-site.test.ts',
  'tests/engine/tree/solve-leaf.test.ts',
  'tests/harness/grading/grader.test.ts',
  'tests/harness/task/toy-task.test.ts',
  'tests/harness/providers/rate-control-http.test.ts',
  'tests/harness/task/task-check-faults-commonmark.test.ts',
  'tests/harness/cell/sim-pair.test.ts',
  'tests/harness/record/independent-pairing.test.ts',
  'tests/harness/record/rate-watch-http.test.ts',
];

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = HEAVY.findIndex((h) => f.moduleId.endsWith(h));
      return i === -1 ? HEAVY.length : i;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}
