import { z } from 'zod';

/** The report the in-container runner writes. The harness reads a verdict from nothing else. */
export const RunnerReport = z.object({
  version: z.literal(2),
  spec: z.string(),
  /** `fork`: cases forked from a pre-started interpreter; `exec`: one interpreter per case. */
  mode: z.enum(['fork', 'exec']),
  cases: z.array(
    z.object({
      id: z.string(),
      req: z.string(),
      pass: z.boolean(),
      reason: z.string().nullable(),
      exit: z.number().int().nullable(),
      ms: z.number().int(),
      /** CPU time the program (and the children it reaped) used; null when it was never reaped. */
      cpu_ms: z.number().int().nullable(),
      /** Set when the case ran out of wall-clock time among the others and was run again alone (the row is the re-run's). */
      rerun: z
        .object({
          first_ms: z.number().int(),
          first_reason: z.string().nullable(),
          ms: z.number().int(),
          cpu_ms: z.number().int().nullable(),
          cpu_limit_s: z.number().int(),
          /** `passed`, or the re-run's failure reason (`ran out of CPU time`, `timed out, also when run alone`, ...). */
          outcome: z.string(),
        })
        .nullable(),
    }),
  ),
  requirements: z.record(z.string(), z.object({ pass: z.boolean(), passed: z.number().int(), total: z.number().int() })),
  /** The byte-compile step, run as a user of its own after the expectations are gone. */
  compile: z.object({ ok: z.boolean(), ms: z.number().int(), note: z.string().nullable() }).nullable(),
  /** Only with --reveal: the programs' own output of failing cases, for a terminal diff. */
  revealed: z.record(z.string(), z.object({ stdout: z.string(), stderr: z.string() })).nullable(),
  integrity: z.object({ expectations_deleted: z.boolean(), checks: z.number().int(), violation: z.string().nullable() }),
  elapsed_ms: z.number().int(),
});
export type RunnerReport = z.infer<typeof RunnerReport>;

/**
 * The engine's scaffolding in a graded tree (WORKSPACE_SCAFFOLDING: a merge's `.children/`
 * copies, nested as deep as the tree): not the deliverable, so never staged or graded, and
 * counted here apart. `partial`: the count stopped at SCAFFOLDING_MEASURE_LIMIT entries.
 */
export const ScaffoldingSize = z.object({
  /** Directory entries of every kind, the scaffolding's own root entries included. */
  entries: z.number().int(),
  /** Regular files, and their bytes. */
  files: z.number().int(),
  bytes: z.number().int(),
  /** Test files among them (test_*.py, *_test.py): copies of the children's, never tests carried. */
  testFiles: z.number().int(),
  partial: z.boolean(),
});
export type ScaffoldingSize = z.infer<typeof ScaffoldingSize>;

/**
 * A graded tree, as `harness grade --json` prints it and as sweeps record it (`grade.json`).
 * It is published, so it never quotes the oracle: a failure reason names the kind of
 * difference only (see oracle/<task>/judge.py), never expected output or case arguments.
 *
 * Version 2 adds `skipped`, `skippedCount`, `undeliverable`, `mode` and `compile` to the
 * fields of version 1, whose meaning is unchanged (failure reasons no longer quote output).
 */
export const GradeResult = z.object({
  version: z.literal(2),
  spec: z.string(),
  tree: z.string(),
  /** Requirements whose every case passed. */
  satisfied: z.number().int(),
  total: z.number().int(),
  casesPassed: z.number().int(),
  casesTotal: z.number().int(),
  /**
   * Test files the graded tree carries (test_*.py, *_test.py): a score says nothing about this by
   * itself. Counted in the deliverable only; grades from before `scaffolding` counted the
   * scaffolding's copies too.
   */
  testFiles: z.number().int(),
  /** The engine's scaffolding, measured apart from the deliverable. Absent in grades from before it. */
  scaffolding: ScaffoldingSize.optional(),
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
  /** Entries of the tree left out of the graded copy, and why (at most 50 listed). */
  skipped: z.array(z.object({ path: z.string(), why: z.string() })),
  skippedCount: z.number().int(),
  /** Why the tree was not graded at all (past a size limit); it then scores 0. */
  undeliverable: z.string().nullable(),
  /** How cases were started: `fork` (the fast path) or `exec` (one interpreter each); null when not graded. */
  mode: z.enum(['fork', 'exec']).nullable(),
  /** The byte-compile step: a failure is the tree's, noted here, and costs only speed. */
  compile: z.object({ ok: z.boolean(), note: z.string().nullable() }).nullable(),
  /** Integrity checks the runner made (one before every spawn) plus the harness's own afterwards. */
  integrityChecks: z.number().int(),
  /**
   * Cases that ran out of wall-clock time among the others and were run again alone, with a
   * CPU-time limit, before they could count as failed (the load of the machine never fails a
   * case). Absent in grades from before re-runs; empty when no case timed out.
   */
  reruns: z
    .array(
      z.object({
        case: z.string(),
        /** The first run's wall-clock ms (it ran out of its limit) and the re-run's. */
        firstMs: z.number().int(),
        ms: z.number().int(),
        /** CPU time of the re-run, and its limit in seconds. */
        cpuMs: z.number().int().nullable(),
        cpuLimitS: z.number().int(),
        /** `passed`, or why the re-run failed too. */
        outcome: z.string(),
      }),
    )
    .optional(),
  elapsedMs: z.number().int(),
});
export type GradeResult = z.infer<typeof GradeResult>;
