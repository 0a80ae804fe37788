import { z } from 'zod';
import { Check } from '../base/check.js';

/** What each role must return. Parsed at the edge (askStructured); trusted after. */

export const SubtaskReply = z.object({
  slug: z.string().min(1).max(60),
  goal: z.string().min(1),
  kind: z.enum(['work', 'decision']).default('work'),
  prerequisite: z.boolean().default(false),
  artifacts: z.array(z.string()).default([]),
  criteria: z.array(z.string()).default([]),
  /** Objective acceptance criteria (text) this unit claims to satisfy. */
  claims: z.array(z.string()).default([]),
});
export type SubtaskReply = z.infer<typeof SubtaskReply>;

export const PlanReply = z.object({
  mode: z.enum(['execute', 'split']),
  assumptions: z.array(z.string()).default([]),
  layout: z.string().nullable().default(null),
  subtasks: z.array(SubtaskReply).default([]),
});
export type PlanReply = z.infer<typeof PlanReply>;

/** A node decides DONE on 3 to 5 checks: fewer prove too little, more are refused. */
export const MIN_CHECKS = 3;
export const MAX_CHECKS = 5;

export const ChecksReply = z.object({
  assumptions: z.array(z.string()).default([]),
  // Fewer than MIN_CHECKS is not refused here: falsification may drop some anyway, and the stage asks for more.
  checks: z.array(Check).min(1).max(MAX_CHECKS),
});
export type ChecksReply = z.infer<typeof ChecksReply>;

export const AdequacyReply = z.object({
  adequate: z.boolean(),
  reason: z.string().default(''),
  missing: z.array(z.string()).default([]),
});
export type AdequacyReply = z.infer<typeof AdequacyReply>;

export const OpinionReply = z.object({
  verdict: z.enum(['DONE', 'NOT_DONE', 'CHECKS_INADEQUATE']),
  findings: z.array(z.string()).default([]),
});
export type OpinionReply = z.infer<typeof OpinionReply>;

export const DriftReply = z.object({
  drift: z.number().min(0).max(10),
  impossible: z.boolean().default(false),
  reason: z.string().default(''),
});

export const ReviewReply = z.object({
  accept: z.boolean(),
  findings: z.array(z.string()).default([]),
});
export type ReviewReply = z.infer<typeof ReviewReply>;
