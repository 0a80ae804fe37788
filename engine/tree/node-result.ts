import { z } from 'zod';
import { Arm, MergeReviewer } from '../base/arm.js';
import { Check, CheckResult } from '../base/check.js';
import { Usage } from '../base/usage.js';
import { Verdict } from '../base/verdict.js';

export const OverrideRecord = z.object({ from: Verdict, to: Verdict, rule: z.string(), detail: z.string() });

/**
 * What ended a node that did not reach a verdict of its own, so a sweep can tell the
 * provider's failures from the work's: `provider` (a model kept failing), `budget`,
 * `independence` (no family left that contributed nothing), `unreadable_output`,
 * `prerequisite` (a sibling it depended on failed), `contract` (a root split without a
 * layout), `workspace` (its files could not be read).
 */
export const StopCause = z.enum(['provider', 'budget', 'independence', 'unreadable_output', 'prerequisite', 'contract', 'workspace']);
export type StopCause = z.infer<typeof StopCause>;

export const NodeStop = z.object({
  by: StopCause,
  /** The model that failed, for a provider stop. */
  model: z.string().nullable(),
  /** The error code behind it (e.g. `model_rate_limited`). */
  code: z.string(),
});
export type NodeStop = z.infer<typeof NodeStop>;

/** Which stop ended a repair or merge loop (a merge loop never stops for `no_progress`). */
export const LoopStop = z.enum(['accept', 'max_attempts', 'budget', 'no_progress', 'settled']);

/** One attempt of a merge loop: who reviewed it, what they found, and what came of it. */
export const MergeAttempt = z.object({
  attempt: z.number().int(),
  reviewer: MergeReviewer,
  accept: z.boolean().nullable(),
  findings: z.array(z.string()),
  /** Gated: the gate's verdict on this attempt. Ungated: the self-review's verdict is never used. */
  verdict: z.union([Verdict, z.literal('self-review, not used')]),
  seamChecks: z.object({ passed: z.number().int(), total: z.number().int() }),
});
export type MergeAttempt = z.infer<typeof MergeAttempt>;

/** A merge node's loop in one arm: every attempt, and the stop that ended it. */
export const MergeRecord = z.object({
  arm: Arm,
  attempts: z.array(MergeAttempt),
  /** Null when the loop was stopped from outside (a budget or provider stop mid-attempt). */
  stop: LoopStop.nullable(),
});
export type MergeRecord = z.infer<typeof MergeRecord>;

/**
 * Everything a node ended with: what `solve` returns and what a trace saves. Recursive
 * through `children`.
 */
export const NodeResult = z.object({
  id: z.string(),
  slug: z.string(),
  goal: z.string(),
  depth: z.number().int(),
  kind: z.enum(['work', 'decision']),
  mode: z.enum(['leaf', 'split']),
  /** A brake that refused the planner's split, if one did. */
  forcedExecute: z.string().nullable(),
  verdict: Verdict,
  /** A plain account of why, one line each. */
  reasons: z.array(z.string()),
  assumptions: z.array(z.string()),
  /** Questions only a person can settle, this node's and its children's. */
  openQuestions: z.array(z.string()),
  claims: z.array(z.string()),
  artifacts: z.array(z.string()),
  checks: z.array(Check),
  checkResults: z.array(CheckResult),
  /** Families, none of them contributors, whose verifier signed off (said DONE) on this node. */
  verifiedBy: z.array(z.string()),
  contributorModels: z.array(z.string()),
  contributorFamilies: z.array(z.string()),
  attempts: z.number().int(),
  /** Which stop of the repair loop fired; null when the loop never ran (stopped before, or no usable checks). */
  repairStop: LoopStop.nullable(),
  /** A merge node's loop in the arm that assembled it; null for a leaf or a node stopped before it merged. */
  merge: MergeRecord.nullable(),
  /** Why the node stopped outside the court's own verdicts; null when it reached one. */
  stop: NodeStop.nullable(),
  checkRewrites: z.number().int(),
  monitorFlags: z.array(z.string()),
  overrides: z.array(OverrideRecord),
  interfaceChanges: z.array(z.string()),
  allocation: z.number().int(),
  tokens: z.number().int(),
  usage: Usage,
  costUsd: z.number(),
  /** Calls on this node or below charged an estimate because their usage was missing or malformed. */
  estimatedUsageCalls: z.number().int(),
  /**
   * This node's own calls cut short, when any were: refused by a budget (its allocation, an
   * ancestor's, a phase cap, the session ceiling) or answered with `finish_reason: length`.
   * Absent when none were, so trees recorded before the count existed read the same.
   */
  cuts: z.strictObject({ length: z.number().int().nonnegative(), budget: z.number().int().nonnegative() }).optional(),
  workspace: z.string(),
  /**
   * The nodes (ids) whose finished files were copied into this node's workspace before it worked:
   * the prerequisites run before it, here or above. What a leaf's tree passes beyond its claims is
   * only its own when these are subtracted. Absent when none were (and in trees recorded before it).
   */
  seeds: z.array(z.string()).min(1).optional(),
  get children() {
    return z.array(NodeResult);
  },
});
export type NodeResult = z.infer<typeof NodeResult>;

/** Every node of a result tree, depth first. */
export function flatten(node: NodeResult): NodeResult[] {
  return [node, ...node.children.flatMap(flatten)];
}
