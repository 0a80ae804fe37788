import { flatten, maySplitAtDepth, type Arm, type EngineEvent, type ModelSpec, type NodeResult } from '../../engine/index.js';
import type { GradeResult } from '../grading/grading-report.js';
import { CellMeasurement, type MeasuredLeaf, type MeasuredMerge, type MeasuredReview, type Spend } from '../sweep/cell-measurement.js';
import { resolveClaim } from './claim-resolution.js';

type Charge = Extract<EngineEvent, { type: 'charge' }>;

export interface MeasureInput {
  cap: number;
  repetition: number;
  arm: Arm;
  pairing: 'shared' | 'independent';
  /** The arm's assembled root (leaves included, byte for byte the build's). */
  root: NodeResult;
  /** The oracle's grade of `root.workspace`. */
  grade: GradeResult;
  /**
   * Every `charge` event of this arm's cell: the shared build's (no arm) and this arm's own.
   * Under shared pairing the build's are reported in both arms, as CellMeasurement says.
   */
  charges: readonly Charge[];
  /** The roster the run used: families of contributors, and which models had a known price. */
  roster: readonly ModelSpec[];
}

/** Leaves by the metric's rule: delivered when the node changed what it declared and its own tests (its checks) pass in its own tree. */
function leafOf(node: NodeResult, cap: number, known: ReadonlySet<string>): MeasuredLeaf {
  const delivered = node.checkResults.length > 0 && node.checkResults.every((r) => r.passed);
  return {
    path: node.id,
    level: node.depth,
    // A forced execute at the cap is the cap's doing; any other leaf had room and executed by choice (or by a brake the sim never trips).
    room: maySplitAtDepth(node.depth, cap),
    delivered,
    claims: node.claims.map((criterion) => ({ criterion, requirement: resolveClaim(criterion, known) })),
  };
}

function mergeOf(node: NodeResult, familyOf: (model: string) => string | null): MeasuredMerge | null {
  const merge = node.merge;
  if (!merge || merge.attempts.length === 0) return null;
  const contributors = node.contributorModels.map((model) => ({ model, family: familyOf(model) }));
  const reviews: MeasuredReview[] = [];
  for (const a of merge.attempts) {
    // Nobody eligible answered: there is no review to measure (the merge's verdict says why).
    if (a.reviewer.model === null || a.accept === null || contributors.length === 0) continue;
    reviews.push({
      attempt: a.attempt,
      kind: a.reviewer.kind,
      reviewer: { model: a.reviewer.model, family: a.reviewer.family },
      contributors,
      verdict: a.verdict === 'NEEDS_HUMAN' ? 'escalate' : a.accept ? 'approve' : 'reject',
    });
  }
  return { path: node.id, level: node.depth, children: node.children.length, attempts: merge.attempts.length, reviews };
}

/** Sessions of a set of charges: distinct session ids, their tokens, and a price only when every model that answered had one. */
function spendOf(charges: readonly Charge[], priced: (model: string) => boolean): Spend {
  const sessions = new Map<string, boolean>();
  const tokens = { input: 0, cached: 0, output: 0 };
  let cost = 0;
  for (const c of charges) {
    sessions.set(c.sessionId, (sessions.get(c.sessionId) ?? true) && priced(c.model));
    tokens.input += c.usage.inputTokens;
    tokens.cached += c.usage.cachedTokens;
    tokens.output += c.usage.outputTokens;
    cost += c.costUsd;
  }
  const unpriced = [...sessions.values()].filter((p) => !p).length;
  return { sessions: sessions.size, tokens, costUsd: unpriced > 0 ? null : cost, unpricedSessions: unpriced };
}

/**
 * One arm's CellMeasurement from what the engine returned and what the oracle graded: the
 * payload `harness record` journals as `cell_finished`. Leaves are the finished nodes without
 * children; merges are the nodes that ran a merge loop in this arm; spend is split by the node
 * a session served (a leaf; the planner of an assembling node; everything else there, which
 * is this arm's merge phase). Parsed before it is returned, so a bad measurement fails here.
 */
export function measureCell(input: MeasureInput): CellMeasurement {
  const nodes = flatten(input.root);
  const known = new Set(input.grade.requirements.map((r) => r.id));
  const byModel = new Map(input.roster.map((s) => [s.model, s]));
  const familyOf = (model: string) => byModel.get(model)?.family ?? null;
  const priced = (model: string) => byModel.get(model)?.prices !== undefined;
  const leafIds = new Set(nodes.filter((n) => n.children.length === 0).map((n) => n.id));
  const kinds = { leaf: [] as Charge[], planning: [] as Charge[], merge: [] as Charge[] };
  for (const c of input.charges) {
    if (c.arm !== undefined && c.arm !== input.arm) continue;
    if (leafIds.has(c.nodeId)) kinds.leaf.push(c);
    else if (c.role === 'planner') kinds.planning.push(c);
    else kinds.merge.push(c);
  }
  const escalations = nodes
    .filter((n) => n.verdict === 'NEEDS_HUMAN')
    .map((n) => ({ nodePath: n.id, source: n.merge?.attempts.some((a) => a.verdict === 'NEEDS_HUMAN') ? ('review' as const) : ('assumption' as const), text: n.openQuestions.join(' | ') || n.reasons.join(' | ') }));
  return CellMeasurement.parse({
    cap: input.cap,
    arm: input.arm,
    repetition: input.repetition,
    pairing: input.pairing,
    leaves: nodes.filter((n) => n.children.length === 0).map((n) => leafOf(n, input.cap, known)),
    merges: nodes.flatMap((n) => mergeOf(n, familyOf) ?? []),
    grade: { passing: input.grade.requirements.filter((r) => r.pass).map((r) => r.id), total: input.grade.total, testsCarried: input.grade.testFiles },
    escalations,
    spend: { leaf: spendOf(kinds.leaf, priced), planning: spendOf(kinds.planning, priced), merge: spendOf(kinds.merge, priced) },
  });
}
