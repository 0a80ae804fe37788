import { z } from 'zod';

/** The report the in-container runner writes. The harness reads a verdict from nothing else. */
export const RunnerReport = z.object({
  version: z.literal(1),
  spec: z.string(),
  cases: z.array(
    z.object({
      id: z.string(),
      req: z.string(),
      pass: z.boolean(),
      reason: z.string().nullable(),
      exit: z.number().int().nullable(),
      ms: z.number().int(),
    }),
  ),
  requirements: z.record(z.string(), z.object({ pass: z.boolean(), passed: z.number().int(), total: z.number().int() })),
  integrity: z.object({ expectations_deleted: z.boolean(), checks: z.number().int(), violation: z.string().nullable() }),
  elapsed_ms: z.number().int(),
});
export type RunnerReport = z.infer<typeof RunnerReport>;

/** A graded tree, as `harness grade --json` prints it and as sweeps record it. */
export const GradeResult = z.object({
  version: z.literal(1),
  spec: z.string(),
  tree: z.string(),
  /** Requirements whose every case passed. */
  satisfied: z.number().int(),
  total: z.number().int(),
  casesPassed: z.number().int(),
  casesTotal: z.number().int(),
  /** Test files the graded tree carries (test_*.py, *_test.py): a score says nothing about this by itself. */
  testFiles: z.number().int(),
  requirements: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      pass: z.boolean(),
      passed: z.number().int(),
      total: z.number().int(),
      failures: z.array(z.object({ case: z.string(), reason: z.string() })),
    }),
  ),
  /** Integrity checks the runner made (one before every spawn) plus the harness's own afterwards. */
  integrityChecks: z.number().int(),
  elapsedMs: z.number().int(),
});
export type GradeResult = z.infer<typeof GradeResult>;
