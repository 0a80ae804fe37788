import { z } from 'zod';

/**
 * What `harness task check` measured and concluded. A GradedTree is one grading, reduced to
 * what the pure checks read; a PropertyResult is one row of the printed table.
 */

const RequirementId = z.string().regex(/^R\d{2}$/);

export const TreeKind = z.enum(['reference', 'empty', 'constant', 'mutants', 'corpus', 'peer']);
export type TreeKind = z.infer<typeof TreeKind>;

export const GradedTree = z.strictObject({
  name: z.string().min(1).describe('Unique within a check: what the progress lines and failures call the tree.'),
  kind: TreeKind,
  members: z.array(z.string()).describe('The mutants or planted defects the tree carries, in the order applied; a peer tree: the peer; empty otherwise.'),
  mode: z.enum(['fork', 'exec']).describe('How the grader started each case.'),
  satisfied: z.number().int().min(0),
  total: z.number().int().min(0),
  failing: z.array(RequirementId).describe('Requirements the tree failed, sorted.'),
  passing: z.array(RequirementId).describe('Requirements the tree passed, sorted.'),
  failedCases: z.array(z.strictObject({ case: z.string(), req: RequirementId, reason: z.string() })).describe('Every failing case, sorted by id.'),
  cases: z.array(z.string()).optional().describe('The ids of the cases graded, when a subset settled the property (task check --quick); absent: every case.'),
});
export type GradedTree = z.infer<typeof GradedTree>;

export const PropertyStatus = z.enum(['pass', 'fail', 'skip']);

export const PropertyResult = z.strictObject({
  property: z.string().regex(/^[a-z][a-z0-9-]*$/).describe('Stable name, what CI keys on.'),
  status: PropertyStatus.describe('skip: the check did not run (its part was left out, or the task declares nothing to check); never a failure.'),
  detail: z.string().describe('One line: what was checked, or why it failed.'),
  failures: z.array(z.string()).describe('Each named failure (a mutant, a case, a defect, a sentence), one line each.'),
});
export type PropertyResult = z.infer<typeof PropertyResult>;

export const CheckReport = z.strictObject({
  version: z.literal(1),
  task: z.string(),
  exhaustive: z.strictObject({ mutants: z.boolean(), corpus: z.boolean() }),
  pass: z.boolean().describe('True when no property failed.'),
  gradings: z.number().int().min(0),
  elapsedMs: z.number().int().min(0),
  properties: z.array(PropertyResult),
});
export type CheckReport = z.infer<typeof CheckReport>;

/** A property's row from its named failures: it passes when there are none. */
export function propertyOf(property: string, failures: string[], passDetail: string, failDetail = `${failures.length} failure(s)`): PropertyResult {
  return { property, status: failures.length ? 'fail' : 'pass', detail: failures.length ? failDetail : passDetail, failures };
}

/** A property that did not run, with why. */
export function skipped(property: string, why: string): PropertyResult {
  return { property, status: 'skip', detail: why, failures: [] };
}

/** Requirement ids in `a` not in `b`, sorted. */
export function minus(a: Iterable<string>, b: Iterable<string>): string[] {
  const drop = new Set(b);
  return [...new Set(a)].filter((x) => !drop.has(x)).sort();
}
