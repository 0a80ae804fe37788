import { z } from 'zod';
import { Arm, MergeReviewer } from '../base/arm.js';
import { Check, CheckResult } from '../base/check.js';
import { Usage } from '../base/usage.js';
import { Verdict } from '../base/verdict.js';
import { Role } from './model-client.js';

/** Format version carried on every event line; bump on any incompatible change. */
export const EVENT_VERSION = 3;

const base = {
  version: z.literal(EVENT_VERSION),
  /** ISO time from the engine's Clock. */
  ts: z.string(),
  nodeId: z.string(),
  /** The arm whose phase emitted the event (an arm's merges, or a build serving one arm alone); absent on shared work. */
  arm: Arm.optional(),
};

const Subtask = z.object({
  slug: z.string(),
  goal: z.string(),
  kind: z.enum(['work', 'decision']),
  prerequisite: z.boolean(),
  claims: z.array(z.string()),
});

/**
 * Everything the engine does that a reviewer may want to see, as a discriminated union on
 * `type`. The harness journals these; the site draws a node's whole life from them.
 */
export const EngineEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('node_started'), ...base, parentId: z.string().nullable(), depth: z.number().int(), goal: z.string(), allocation: z.number().int() }),
  z.object({
    type: z.literal('node_planned'),
    ...base,
    mode: z.enum(['execute', 'split']),
    /** Why a requested split was refused by a brake (depth, one-file rule, budget), or null. */
    forcedExecute: z.string().nullable(),
    assumptions: z.array(z.string()),
    openQuestions: z.array(z.string()),
    layout: z.string().nullable(),
    subtasks: z.array(Subtask),
    atomicity: z.array(z.object({ slug: z.string(), oversized: z.boolean(), reasons: z.array(z.string()) })),
  }),
  /**
   * A plan split wider than the tree's max_children: it was refused and the planner asked once
   * more with the bound stated (`reasked`); `answered` is the second plan's width (0 when it chose
   * to execute), `kept` the children the node then has, `cut` whether the written rule had to
   * merge trailing pieces (engine/tree/width-rule.ts).
   */
  z.object({
    type: z.literal('width_bounded'),
    ...base,
    maxChildren: z.number().int(),
    asked: z.number().int(),
    reasked: z.boolean(),
    answered: z.number().int(),
    kept: z.number().int(),
    cut: z.boolean(),
  }),
  z.object({ type: z.literal('checks_written'), ...base, revision: z.number().int(), reason: z.enum(['initial', 'falsified', 'inadequate', 'seam']), checks: z.array(Check) }),
  z.object({ type: z.literal('check_falsified'), ...base, checkId: z.string(), outcome: z.enum(['ok', 'tautology', 'malformed']), detail: z.string(), exitCode: z.number().int().nullable() }),
  z.object({ type: z.literal('tool_call'), ...base, role: Role, step: z.number().int(), tool: z.string(), args: z.string(), ok: z.boolean(), result: z.string() }),
  z.object({ type: z.literal('monitor_flag'), ...base, kind: z.enum(['repeat', 'oscillation', 'no_progress', 'drift']), detail: z.string(), endsAttempt: z.boolean() }),
  z.object({ type: z.literal('checks_run'), ...base, by: z.enum(['worker', 'verifier', 'seam', 'reviewer', 'self_reviewer']), results: z.array(CheckResult) }),
  z.object({ type: z.literal('meta_verified'), ...base, adequate: z.boolean(), reason: z.string(), model: z.string() }),
  z.object({ type: z.literal('verifier_opinion'), ...base, verdict: z.enum(['DONE', 'NOT_DONE', 'CHECKS_INADEQUATE']), model: z.string(), family: z.string(), findings: z.array(z.string()) }),
  z.object({
    type: z.literal('verdict'),
    ...base,
    verdict: Verdict,
    reasons: z.array(z.string()),
    checksPassed: z.number().int(),
    checksTotal: z.number().int(),
    verifiedBy: z.array(z.string()),
    openQuestions: z.array(z.string()),
    attempt: z.number().int(),
  }),
  z.object({ type: z.literal('override'), ...base, from: Verdict, to: Verdict, rule: z.string(), detail: z.string() }),
  z.object({
    type: z.literal('charge'),
    ...base,
    sessionId: z.string(),
    role: Role,
    /** The model that actually answered. */
    model: z.string(),
    family: z.string(),
    /** The node's attempt the call belonged to. */
    attempt: z.number().int(),
    usage: Usage,
    costUsd: z.number(),
    /** Why the usage is an estimate or was corrected; null when the endpoint's figures were used. */
    usageNote: z.string().nullable(),
  }),
  z.object({ type: z.literal('model_fallback'), ...base, role: Role, from: z.string(), to: z.string().nullable(), reason: z.string() }),
  z.object({ type: z.literal('assembled'), ...base, children: z.array(z.string()), interfaceChanges: z.array(z.string()) }),
  z.object({ type: z.literal('repair_round'), ...base, attempt: z.number().int(), accepted: z.boolean(), independent: z.boolean(), score: z.number(), stop: z.string().nullable() }),
  z.object({
    type: z.literal('merge_review'),
    ...base,
    attempt: z.number().int(),
    ...MergeReviewer.shape,
    accept: z.boolean().nullable(),
    findings: z.array(z.string()),
    /** Whether the node's verdict is taken from this review (never for a self-review). */
    verdictUsed: z.boolean(),
  }),
]);
export type EngineEvent = z.infer<typeof EngineEvent>;
export type EngineEventType = EngineEvent['type'];

/** Where events go. The harness journals them; tests collect them. Must not throw. */
export interface EventSink {
  emit(event: EngineEvent): void;
}

/** Keeps every event in memory, in order. */
export class MemoryEventSink implements EventSink {
  readonly events: EngineEvent[] = [];
  emit(event: EngineEvent): void {
    this.events.push(event);
  }
  ofType<T extends EngineEventType>(type: T): Array<Extract<EngineEvent, { type: T }>> {
    return this.events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
  }
}

/** The fields every event carries: the format version, the time, and the node it is about. */
export function stamp(clock: { now(): Date }, nodeId: string): { version: typeof EVENT_VERSION; ts: string; nodeId: string } {
  return { version: EVENT_VERSION, ts: clock.now().toISOString(), nodeId };
}
