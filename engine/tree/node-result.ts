import { z } from 'zod';
import { Check, CheckResult } from '../base/check.js';
import { Usage } from '../base/usage.js';
import { Verdict } from '../base/verdict.js';

export const OverrideRecord = z.object({ from: Verdict, to: Verdict, rule: z.string(), detail: z.string() });

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
  checkRewrites: z.number().int(),
  monitorFlags: z.array(z.string()),
  overrides: z.array(OverrideRecord),
  interfaceChanges: z.array(z.string()),
  allocation: z.number().int(),
  tokens: z.number().int(),
  usage: Usage,
  costUsd: z.number(),
  workspace: z.string(),
  get children() {
    return z.array(NodeResult);
  },
});
export type NodeResult = z.infer<typeof NodeResult>;

/** Every node of a result tree, depth first. */
export function flatten(node: NodeResult): NodeResult[] {
  return [node, ...node.children.flatMap(flatten)];
}
