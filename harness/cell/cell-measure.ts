import { flatten, maySplitAtDepth, placeModel, priceOf, type Usage, type Arm, type EngineEvent, type MergeAttempt, type ModelResponse, type ModelSpec, type NodeResult } from '../../engine/index.js';
import type { GradeResult } from '../grading/grading-report.js';
import { CellMeasurement, withEstimated, type MeasuredLeaf, type MeasuredMerge, type MeasuredReview, type Spend } from '../journal/cell-measurement.js';
import type { SessionTokens } from '../journal/session-tokens.js';
import { resolveClaim } from './claim-resolution.js';
import { withMergeGrades } from './merge-grades.js';
import type { NodeGrade } from './node-grading.js';

/**
 * From an arm's finished root tree and its grade to the CellMeasurement the journal keeps: the
 * one measurement `harness record` journals and `harness solve` prints. Claims resolve from
 * criterion text to a requirement id by the one rule the harness has (claim-resolution.ts);
 * a claim that resolves to nothing is kept with `requirement: null` (dropped from the metric, counted).
 */

/** What one session cost, and where in the tree it served. */
export interface SessionSpend {
  sessionId: string;
  nodeId: string;
  /** The arm whose merge phase this session served; absent for the build (planning and leaves). */
  mergeArm?: Arm;
  /** The arm whose own build this session served (independent pairing); absent for a build both arms share, and for merges. */
  buildArm?: Arm;
  tokens: SessionTokens;
  /** Null when a model that answered in it has no known price. */
  costUsd: number | null;
  /** Its calls charged the worst case: replies whose usage could not be read, and attempts lost on the way back. Absent: none. */
  flagged?: { unreadableUsage: number; unreceivedAttempts: number };
  /** Its calls whose usage was estimated or corrected (the client's note says how). Absent: none. */
  estimatedCalls?: number;
}

/** The reason the oracle's runner gives a case that ran past its limit (oracle/runner/runner.py). */
export const TIMED_OUT = 'timed out';

/** Oracle cases of a grade that timed out: counted as failures by the grade, so the cell says how many. */
export function timedOutCases(grade: Pick<GradeResult, 'requirements'>): number {
  return new Set(grade.requirements.flatMap((r) => r.failures.filter((f) => f.reason === TIMED_OUT).map((f) => f.case))).size;
}

export interface MeasureInput {
  cap: number;
  arm: Arm;
  repetition: number;
  pairing: 'shared' | 'independent';
  /** The arm's assembled root (leaves included, byte for byte the build's). */
  root: NodeResult;
  /** The oracle's grade of `root.workspace`. */
  grade: GradeResult;
  /** The roster the run used: the families of contributors and reviewers. */
  roster: readonly ModelSpec[];
  /** Every session this cell paid for: the pair's shared build and this arm's own merges. */
  sessions: readonly SessionSpend[];
  /** With merges graded: the grade of every merged node below the root, by node id. Default: merges were not graded. */
  mergeGrades?: ReadonlyMap<string, NodeGrade>;
  /** With leaves graded: the grade of every leaf's own tree below the root, by node id (a root that executed whole is graded as the cell). Default: leaves were not graded. */
  leafGrades?: ReadonlyMap<string, NodeGrade>;
}

/**
 * Adds one answered call to its session: its tokens always, and its price by the roster entry
 * the engine asked for. A model without a price leaves the session unpriced (null), never $0.
 */
export function addCall(spend: SessionSpend, roster: readonly ModelSpec[], model: string, usage: Usage): void {
  spend.tokens = { input: spend.tokens.input + usage.inputTokens, cached: spend.tokens.cached + usage.cachedTokens, output: spend.tokens.output + usage.outputTokens };
  const spec = roster.find((m) => m.model === model && m.prices !== undefined);
  spend.costUsd = spend.costUsd === null || !spec ? null : spend.costUsd + priceOf(spec, usage);
}

/**
 * Adds one answered call to its session, as `addCall`, with the attempts the client lost on the
 * way back (charged at their worst case) and the flags the report counts.
 */
export function addResponse(spend: SessionSpend, roster: readonly ModelSpec[], model: string, response: Pick<ModelResponse, 'usage' | 'usageUnreadable' | 'unreceived' | 'usageNote'>): void {
  addCall(spend, roster, model, response.usage);
  if (response.usageNote || response.usageUnreadable) spend.estimatedCalls = (spend.estimatedCalls ?? 0) + 1;
  if (response.unreceived) addCall(spend, roster, model, response.unreceived.usage);
  const unreadable = response.usageUnreadable ? 1 : 0;
  const lost = response.unreceived?.attempts ?? 0;
  if (unreadable + lost === 0) return;
  const flagged = spend.flagged ?? { unreadableUsage: 0, unreceivedAttempts: 0 };
  spend.flagged = { unreadableUsage: flagged.unreadableUsage + unreadable, unreceivedAttempts: flagged.unreceivedAttempts + lost };
}

type Charge = Extract<EngineEvent, { type: 'charge' }>;

/** Sessions from the engine's `charge` events: one per session id, priced only when every model that answered in it has a price. */
export function sessionsOfCharges(charges: readonly Charge[], roster: readonly ModelSpec[]): SessionSpend[] {
  const priced = new Set(roster.filter((m) => m.prices !== undefined).map((m) => m.model));
  const sessions = new Map<string, SessionSpend>();
  for (const c of charges) {
    const s = sessions.get(c.sessionId) ?? { sessionId: c.sessionId, nodeId: c.nodeId, ...(c.arm ? { mergeArm: c.arm } : {}), tokens: { input: 0, cached: 0, output: 0 }, costUsd: 0 };
    s.tokens = { input: s.tokens.input + c.usage.inputTokens, cached: s.tokens.cached + c.usage.cachedTokens, output: s.tokens.output + c.usage.outputTokens };
    s.costUsd = s.costUsd === null || !priced.has(c.model) ? null : s.costUsd + c.costUsd;
    if (c.usageNote !== null) s.estimatedCalls = (s.estimatedCalls ?? 0) + 1;
    sessions.set(c.sessionId, s);
  }
  return [...sessions.values()];
}

/**
 * Delivered: the leaf reached no outside stop and its own checks (imports, compiles, its own
 * tests) pass in its own tree. The engine records no per-leaf diff, so "changed something it
 * declared" is read as "its declared checks ran on a tree that passes them".
 */
export function delivered(node: NodeResult): boolean {
  return node.stop === null && node.checkResults.length > 0 && node.checkResults.every((c) => c.passed);
}

/** A leaf's grade as the journal keeps it: the requirements its own tree passes, or why it was not graded. */
function leafGradeOf(grade: NodeGrade | undefined): NonNullable<MeasuredLeaf['grade']> {
  if (grade === undefined) return { status: 'not_gradable', reason: 'not graded' };
  if (grade.status === 'not_gradable') return grade;
  return { status: 'graded', passing: grade.grade.requirements.filter((r) => r.pass).map((r) => r.id).sort() };
}

function spendOf(unordered: readonly SessionSpend[]): Spend {
  // Summed in session order, not the order they finished in: a float sum depends on its order,
  // and the same cell recorded twice (or replayed) must journal the same figure, to the last bit.
  const sessions = [...unordered].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  const unpriced = sessions.filter((s) => s.costUsd === null).length;
  return {
    sessions: sessions.length,
    tokens: sessions.reduce((t, s) => ({ input: t.input + s.tokens.input, cached: t.cached + s.tokens.cached, output: t.output + s.tokens.output }), { input: 0, cached: 0, output: 0 }),
    costUsd: unpriced > 0 ? null : sessions.reduce((sum, s) => sum + (s.costUsd ?? 0), 0),
    unpricedSessions: unpriced,
    ...withEstimated(sessions.reduce((n, s) => n + (s.estimatedCalls ?? 0), 0)),
  };
}

/**
 * An assembling node's merge, or null when it never reached one (it stopped before merging).
 * A review needs a reviewer that answered and the subtree's contributors; with either missing
 * there is no review to measure, and the merge's verdict says why. Families come from the
 * engine's one placement rule; a model it cannot place has family null, which the
 * independence audit reads as "unknown", never as a family of its own.
 */
function mergeOf(node: NodeResult, roster: readonly ModelSpec[]): MeasuredMerge | null {
  const attempts = node.merge?.attempts ?? [];
  if (attempts.length === 0) return null;
  const identity = (model: string) => {
    const placed = placeModel(model, roster);
    return { model, family: placed.placed ? placed.family : null };
  };
  const contributors = node.contributorModels.map(identity);
  const reviews: MeasuredReview[] = [];
  const unjudged: Array<{ attempt: number; reason: string }> = [];
  for (const a of attempts) {
    if (a.reviewer.model === null || contributors.length === 0) {
      // Kept, never dropped: an audit that skipped it could read 100% over a missing judgement.
      unjudged.push({ attempt: a.attempt, reason: a.reviewer.model === null ? `no ${a.reviewer.kind === 'self' ? 'self-review' : 'reviewer'} answered` : 'the subtree had no contributor to judge' });
      continue;
    }
    reviews.push({
      attempt: a.attempt,
      kind: a.reviewer.kind,
      reviewer: identity(a.reviewer.model),
      contributors,
      verdict: a.verdict === 'NEEDS_HUMAN' || a.accept === null ? 'escalate' : a.accept ? 'approve' : 'reject',
    });
  }
  return { path: node.id, level: node.depth, children: node.children.length, attempts: attempts.length, reviews, ...(unjudged.length ? { unjudged } : {}) };
}

/** A reviewer that answered "a person must decide" is a review escalation, one per attempt; a node that ended NEEDS_HUMAN without one escalated an assumption. */
function escalationsOf(node: NodeResult): CellMeasurement['escalations'] {
  const escalated = (a: MergeAttempt) => a.reviewer.model !== null && (a.accept === null || a.verdict === 'NEEDS_HUMAN');
  const reviews = (node.merge?.attempts ?? []).filter(escalated).map((a) => ({ nodePath: node.id, source: 'review' as const, text: a.findings.join('; ') || `attempt ${a.attempt} escalated` }));
  if (reviews.length > 0 || node.verdict !== 'NEEDS_HUMAN') return reviews;
  return [{ nodePath: node.id, source: 'assumption', text: node.openQuestions.join(' | ') || node.reasons.join(' | ') || 'escalated' }];
}

/**
 * One arm's CellMeasurement. Leaves are the finished nodes without children; merges are the
 * nodes that ran a merge loop in this arm; spend splits by where a session served (a leaf, a
 * planning node in the build, or this arm's merge phase). Parsed before it is returned, so a
 * bad measurement fails here rather than in the journal.
 */
export function measureCell(input: MeasureInput): CellMeasurement {
  const nodes = flatten(input.root);
  const known: ReadonlySet<string> = new Set(input.grade.requirements.map((r) => r.id));
  const leaves: MeasuredLeaf[] = nodes
    .filter((n) => n.children.length === 0)
    .map((n) => ({
      path: n.id,
      level: n.depth,
      // A forced execute at the cap is the cap's doing; any other leaf had room and executed by choice.
      room: maySplitAtDepth(n.depth, input.cap),
      delivered: delivered(n),
      claims: n.claims.map((criterion) => ({ criterion: criterion || '(empty claim)', requirement: resolveClaim(criterion, known) })),
      ...(n.seeds ? { seeds: n.seeds } : {}),
      ...(input.leafGrades ? { grade: leafGradeOf(n === input.root ? { status: 'graded', grade: input.grade } : input.leafGrades.get(n.id)) } : {}),
    }));
  const leafIds = new Set(leaves.map((l) => l.path));
  const allMerges = nodes.flatMap((n) => (n.children.length > 0 ? (mergeOf(n, input.roster) ?? []) : []));
  const graded = input.mergeGrades ? withMergeGrades(input.root, { root: { id: input.root.id, grade: input.grade }, others: input.mergeGrades }, leaves, allMerges) : { leaves, merges: allMerges };
  const build = input.sessions.filter((s) => s.mergeArm === undefined);
  // Cut short: a node whose own calls a budget refused or the length limit cut, or that a budget stopped.
  const cutShort = nodes
    .filter((n) => (n.cuts?.length ?? 0) + (n.cuts?.budget ?? 0) > 0 || n.stop?.by === 'budget')
    .map((n) => ({ path: n.id, kind: n.children.length > 0 ? ('merge' as const) : ('leaf' as const), length: n.cuts?.length ?? 0, budget: n.cuts?.budget ?? 0, stopped: n.stop?.by === 'budget' }));
  const mine = input.sessions.filter((s) => s.mergeArm === undefined || s.mergeArm === input.arm);
  const flagged = mine.reduce((f, s) => ({ unreadableUsage: f.unreadableUsage + (s.flagged?.unreadableUsage ?? 0), unreceivedAttempts: f.unreceivedAttempts + (s.flagged?.unreceivedAttempts ?? 0) }), { unreadableUsage: 0, unreceivedAttempts: 0 });
  const timedOut = timedOutCases(input.grade);
  return CellMeasurement.parse({
    cap: input.cap,
    arm: input.arm,
    repetition: input.repetition,
    pairing: input.pairing,
    leaves: graded.leaves,
    merges: graded.merges,
    grade: { passing: input.grade.requirements.filter((r) => r.pass).map((r) => r.id), total: input.grade.total, testsCarried: input.grade.testFiles, ...(timedOut ? { timedOutCases: timedOut } : {}), ...(input.grade.scaffolding ? { scaffolding: { files: input.grade.scaffolding.files, bytes: input.grade.scaffolding.bytes } } : {}) },
    escalations: nodes.flatMap(escalationsOf),
    ...(cutShort.length ? { cutShort } : {}),
    ...(flagged.unreadableUsage + flagged.unreceivedAttempts > 0 ? { flaggedCalls: flagged } : {}),
    spend: {
      leaf: spendOf(build.filter((s) => leafIds.has(s.nodeId))),
      planning: spendOf(build.filter((s) => !leafIds.has(s.nodeId))),
      merge: spendOf(input.sessions.filter((s) => s.mergeArm === input.arm)),
    },
  });
}
