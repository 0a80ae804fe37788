import { z } from 'zod';
import { Arm, familyName } from '../manifest/manifest.js';
import type { CellTally, Pairing as StatsPairing } from '../stats/survival-stats.js';
import { SessionTokens } from './session-tokens.js';

/**
 * What one measured cell contributes to the report: the payload of a journal's `cell_finished`
 * event when its status is `measured`. `harness record` writes exactly this, once the root tree
 * is graded; `harness report` and `plan --from` read nothing else about a cell's outcome. Pure
 * (zod only), so the results site can import it.
 *
 * Everything the report counts is derived from it by the functions below (the survival tally,
 * the counts): the payload keeps the facts (who claimed what, at which level, what passed) and
 * never a figure computed from them, so the two can never disagree.
 */

const Count = z.int().nonnegative();
const Text = z.string().min(1);

/**
 * The stats' Pairing, restated so this module stays zod-only (harness/stats/survival-stats.ts
 * reaches the engine through its error class); the type check below keeps the two equal.
 */
const Pairing = z.enum(['shared', 'independent']);
const samePairing: [StatsPairing, z.infer<typeof Pairing>] extends [z.infer<typeof Pairing>, StatsPairing] ? true : never = true;
void samePairing;

/** A model as the journal names it: the id sent to the endpoint, and its family (null when nobody declared one). */
export const ModelIdentity = z.strictObject({
  model: Text,
  /** Compared as a name (see familyName); null is never read as "different". */
  family: z.string().nullable(),
});
export type ModelIdentity = z.infer<typeof ModelIdentity>;

/** A node's tree as the oracle graded it: the requirements passing there, or why it could not be graded (never a failure). */
const NodeGradeFacts = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('graded'), passing: z.array(Text) }),
  z.strictObject({ status: z.literal('not_gradable'), reason: Text }),
]);

/** One acceptance criterion a leaf claimed, as text, with the requirement it names (null: it names none, so it is dropped from the metric and counted). */
export const LeafClaim = z.strictObject({
  criterion: Text,
  requirement: Text.nullable(),
  /**
   * With merges graded (`grade_merges`): the path of the shallowest node on the way from the
   * leaf to the root whose graded tree passes the requirement, i.e. where the claim last passed
   * (the root itself when it survives); null when it passed at none. Absent: merges were not
   * graded, the claim resolved to nothing, or its leaf did not deliver.
   */
  lastPassed: z.string().nullable().optional(),
});
export type LeafClaim = z.infer<typeof LeafClaim>;

export const MeasuredLeaf = z.strictObject({
  /** The node's path as the engine names it; unique in the cell. */
  path: z.string(),
  /** Depth index of the leaf in its tree, root = 0. Never the cap: a tree need not use its cap. */
  level: Count,
  /** True when the cap still left this node room to split and it executed by choice; false when the depth cap stopped it. `plan --from` learns which levels may split from it. */
  room: z.boolean(),
  /** The session changed something it declared and its own tests pass in its own tree. An undelivered leaf's claims leave the denominator. */
  delivered: z.boolean(),
  claims: z.array(LeafClaim),
  /** The nodes (paths) whose finished files were copied into this leaf's tree before it worked: prerequisites. Absent: none. */
  seeds: z.array(z.string()).min(1).optional(),
  /**
   * With leaves graded (`grade_leaves`): the oracle's grade of this leaf's own tree, every
   * requirement it passes (`passing`), claimed or not; or why it could not be graded (its tree
   * lacks the deliverable's entry points). Absent: leaves were not graded.
   */
  grade: NodeGradeFacts.optional(),
});
export type MeasuredLeaf = z.infer<typeof MeasuredLeaf>;

/** One review of one merge attempt: the gated arm's judge, or the ungated arm's self-review (whose verdict is not used). */
export const MeasuredReview = z.strictObject({
  attempt: z.int().positive(),
  kind: z.enum(['independent', 'self']),
  reviewer: ModelIdentity,
  /** Every model that produced work in the reviewed subtree (the node's `contributorModels`): the families that may not judge it. */
  contributors: z.array(ModelIdentity).min(1),
  verdict: z.enum(['approve', 'reject', 'escalate']),
});
export type MeasuredReview = z.infer<typeof MeasuredReview>;

/** An assembling node: it split into `children` and merged them. */
export const MeasuredMerge = z.strictObject({
  path: z.string(),
  level: Count,
  children: z.int().positive(),
  /** Merge attempts spent (the gated arm stops at an approval; the ungated arm spends all). */
  attempts: z.int().positive(),
  reviews: z.array(MeasuredReview),
  /**
   * Attempts with no review to measure: no reviewer answered, or the subtree had no
   * contributor to judge. Each is an exception in the independence audit, never read as fine.
   * Absent: none (and in journals from before they were kept).
   */
  unjudged: z.array(z.strictObject({ attempt: z.int().positive(), reason: Text })).min(1).optional(),
  /**
   * With merges graded: the oracle's grade of this node's merged tree, for the requirements
   * claimed under it (`passing` lists those that pass), or why it could not be graded here
   * (its tree lacks the deliverable's entry point): never read as a death. Absent: merges were not graded.
   */
  grade: NodeGradeFacts.optional(),
});
export type MeasuredMerge = z.infer<typeof MeasuredMerge>;

/** A NEEDS_HUMAN escalation parked (never resolved: there is no person in a sweep); the merge stood. */
export const Escalation = z.strictObject({
  nodePath: z.string(),
  /** `review`: a reviewer escalated; `assumption`: a plan declared an assumption only a person can settle. */
  source: z.enum(['review', 'assumption']),
  text: z.string(),
});
export type Escalation = z.infer<typeof Escalation>;

/**
 * Spend of a set of sessions. `costUsd` is null when any of them had no known price (never
 * read as free); a simulated session's price is known to be 0.
 */
export const Spend = z
  .strictObject({
    sessions: Count,
    tokens: SessionTokens,
    costUsd: z.number().nonnegative().nullable(),
    unpricedSessions: Count,
    /** Calls whose usage is an estimate or was corrected (the endpoint's own figures were missing or malformed), charged as estimated. Absent: none. */
    estimatedCalls: Count.optional(),
  })
  .refine((s) => s.unpricedSessions <= s.sessions, { message: 'more unpriced sessions than sessions', path: ['unpricedSessions'] })
  .refine((s) => (s.costUsd === null) === (s.unpricedSessions > 0), { message: 'costUsd is null exactly when some session had no known price', path: ['costUsd'] });
export type Spend = z.infer<typeof Spend>;

export const CellMeasurement = z
  .strictObject({
    cap: z.int().positive(),
    arm: Arm,
    repetition: z.int().positive(),
    pairing: Pairing,
    leaves: z.array(MeasuredLeaf).min(1),
    merges: z.array(MeasuredMerge),
    /** The oracle's grade of the root tree. */
    grade: z.strictObject({
      /** Requirement ids passing in the graded root tree. */
      passing: z.array(Text),
      /** Requirements in the spec the cell was graded on (its requirements.yaml, any number): the spec fraction is passing / total. */
      total: z.int().positive(),
      /** Test files the graded tree carries: a score says nothing about this by itself. */
      testsCarried: Count,
      /** Oracle cases that timed out: they count as failures, so a cell with any carries a caveat. Absent: none (and in journals from before they were counted). */
      timedOutCases: Count.optional(),
      /** The engine's scaffolding (`.children/` copies), never graded: its size apart. Absent: not measured (journals from before it). */
      scaffolding: z.strictObject({ files: Count, bytes: Count }).optional(),
    }),
    escalations: z.array(Escalation),
    /**
     * Nodes cut short: a leaf or merge whose own calls a budget refused (`budget`) or the length
     * limit cut (`length`, paid in full, incomplete), or that its allocation stopped. Such a cell
     * is measured, with a caveat on every artifact. Absent: none (and in journals from before it).
     */
    cutShort: z
      .array(z.strictObject({ path: z.string(), kind: z.enum(['leaf', 'merge']), length: Count, budget: Count, stopped: z.boolean() }))
      .min(1)
      .optional(),
    /** The cell's calls charged their worst case because their usage was unreadable, or lost on the way back. Absent: none. */
    flaggedCalls: z.strictObject({ unreadableUsage: Count, unreceivedAttempts: Count }).optional(),
    /**
     * The cell's sessions, by the node they served: `leaf` (any session at a leaf), `planning`
     * (the planner at an assembling node) and `merge` (merges and reviews at an assembling
     * node). Under shared pairing `leaf` and `planning` are the pair's shared phase, paid once
     * and reported in both arms; `merge` is this arm's own.
     */
    spend: z.strictObject({ leaf: Spend, planning: Spend, merge: Spend }),
  })
  .superRefine((m, ctx) => {
    const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const paths = new Set<string>();
    m.leaves.forEach((leaf, i) => {
      if (paths.has(leaf.path)) issue(['leaves', i, 'path'], `node ${JSON.stringify(leaf.path)} appears twice`);
      paths.add(leaf.path);
      // The engine lets a node at depth d < cap split, so leaves sit at most at the cap.
      if (leaf.level > m.cap) issue(['leaves', i, 'level'], `a leaf at level ${leaf.level} is deeper than cap ${m.cap} allows`);
    });
    const leafPaths = new Set(m.leaves.map((l) => l.path));
    m.leaves.forEach((leaf, i) => {
      // A prerequisite is built whole, so a seed is always a leaf of the same tree.
      leaf.seeds?.forEach((seed, j) => {
        if (!leafPaths.has(seed) || seed === leaf.path) issue(['leaves', i, 'seeds', j], `seed ${JSON.stringify(seed)} is not another leaf of this cell`);
      });
    });
    m.merges.forEach((merge, i) => {
      if (paths.has(merge.path)) issue(['merges', i, 'path'], `node ${JSON.stringify(merge.path)} appears twice`);
      paths.add(merge.path);
      if (merge.level >= m.cap) issue(['merges', i, 'level'], `a node at level ${merge.level} cannot split under cap ${m.cap}`);
      merge.reviews.forEach((review, j) => {
        if (review.attempt > merge.attempts) issue(['merges', i, 'reviews', j, 'attempt'], `review of attempt ${review.attempt}, but the merge spent ${merge.attempts}`);
      });
    });
    const passing = new Set(m.grade.passing);
    if (passing.size !== m.grade.passing.length) issue(['grade', 'passing'], 'lists a requirement twice');
    if (passing.size > m.grade.total) issue(['grade', 'passing'], `${passing.size} passing of ${m.grade.total} requirements`);
  });
export type CellMeasurement = z.infer<typeof CellMeasurement>;

/**
 * The cell's survival tally per achieved level: per delivered leaf, each requirement its
 * resolved claims name (once per leaf, however many criteria name it) is claimed at the
 * leaf's level, and survives when it passes in the graded root tree. Every level holding a
 * leaf is listed, with 0 claims where none counted.
 */
/** The requirements a leaf's claims count for: each requirement its resolved claims name, once; none when it did not deliver. */
export function countedRequirements(leaf: MeasuredLeaf): string[] {
  return leaf.delivered ? claimedRequirements(leaf) : [];
}

/** The requirements a leaf's resolved claims name, each once, whether or not it delivered. */
export function claimedRequirements(leaf: Pick<MeasuredLeaf, 'claims'>): string[] {
  return [...new Set(leaf.claims.flatMap((c) => (c.requirement === null ? [] : [c.requirement])))];
}

/**
 * What a graded leaf's own tree passes beyond its claims (`grade_leaves`): requirements passing
 * there that the leaf did not claim (resolved, whatever its delivery), and that no seed it was
 * handed (a prerequisite's files) claims or passes in its own graded tree. Undefined when the leaf
 * was not graded. A model that writes the whole deliverable from memory at every leaf shows here,
 * however the tree split: depth then measures the merges, not the division of work.
 */
export function beyondClaims(leaf: MeasuredLeaf, cell: Pick<CellMeasurement, 'leaves'>): string[] | undefined {
  if (leaf.grade?.status !== 'graded') return undefined;
  const credited = new Set(claimedRequirements(leaf));
  for (const seed of leaf.seeds ?? []) {
    const node = cell.leaves.find((l) => l.path === seed);
    for (const r of node ? claimedRequirements(node) : []) credited.add(r);
    if (node?.grade?.status === 'graded') for (const r of node.grade.passing) credited.add(r);
  }
  return leaf.grade.passing.filter((r) => !credited.has(r));
}

export function survivalTally(m: CellMeasurement): CellTally {
  const passing = new Set(m.grade.passing);
  const byLevel = new Map<number, { level: number; claimed: number; surviving: number }>();
  for (const leaf of m.leaves) {
    const tally = byLevel.get(leaf.level) ?? { level: leaf.level, claimed: 0, surviving: 0 };
    byLevel.set(leaf.level, tally);
    for (const requirement of countedRequirements(leaf)) {
      tally.claimed++;
      if (passing.has(requirement)) tally.surviving++;
    }
  }
  return { cap: m.cap, repetition: m.repetition, arm: m.arm, levels: [...byLevel.values()].sort((a, b) => a.level - b.level) };
}

/** Counts that change what a cell's numbers mean. */
export interface CellCounts {
  leaves: number;
  /** Leaves whose own tests failed, or that changed nothing they declared. */
  leavesNotDelivered: number;
  /** Claims (over every leaf) whose text named no requirement: dropped from the metric. */
  claimsDropped: number;
  escalations: number;
  /** Level of the deepest leaf (root = 0): how deep the tree actually went. */
  deepestLevel: number;
  /** Requirements passing / requirements in the spec. */
  specFraction: number;
}

export function cellCounts(m: CellMeasurement): CellCounts {
  return {
    leaves: m.leaves.length,
    leavesNotDelivered: m.leaves.filter((l) => !l.delivered).length,
    claimsDropped: m.leaves.reduce((n, l) => n + l.claims.filter((c) => c.requirement === null).length, 0),
    escalations: m.escalations.length,
    deepestLevel: Math.max(...m.leaves.map((l) => l.level)),
    specFraction: m.grade.passing.length / m.grade.total,
  };
}

/** How a review stands against independence, judged on families (fail closed: an undeclared family is never independent). */
export type ReviewRelation = 'independent' | 'self' | 'unknown';

export function reviewRelation(review: MeasuredReview): ReviewRelation {
  if (review.reviewer.family === null || review.contributors.some((c) => c.family === null)) return 'unknown';
  const judge = familyName(review.reviewer.family);
  return review.contributors.some((c) => familyName(c.family!) === judge) ? 'self' : 'independent';
}

/** The spend of all three kinds together (costUsd null when any is). */
export function totalSpend(spends: readonly Spend[]): Spend {
  const unpriced = spends.reduce((n, s) => n + s.unpricedSessions, 0);
  return {
    sessions: spends.reduce((n, s) => n + s.sessions, 0),
    tokens: {
      input: spends.reduce((n, s) => n + s.tokens.input, 0),
      cached: spends.reduce((n, s) => n + s.tokens.cached, 0),
      output: spends.reduce((n, s) => n + s.tokens.output, 0),
    },
    costUsd: unpriced > 0 ? null : spends.reduce((n, s) => n + s.costUsd!, 0),
    unpricedSessions: unpriced,
    ...withEstimated(spends.reduce((n, s) => n + (s.estimatedCalls ?? 0), 0)),
  };
}

/** `estimatedCalls` only when there are any: a spend without estimates keeps the shape it always had. */
export function withEstimated(calls: number): { estimatedCalls?: number } {
  return calls > 0 ? { estimatedCalls: calls } : {};
}
