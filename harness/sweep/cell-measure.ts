import { flatten, placeModel, type Arm, type ModelSpec, type NodeResult } from '../../engine/index.js';
import { resolveClaim } from '../cell/claim-resolution.js';
import type { GradeResult } from '../grading/grading-report.js';
import type { Requirement } from '../grading/spec-requirements.js';
import type { CellMeasurement, MeasuredLeaf, MeasuredMerge, Spend } from './cell-measurement.js';
import type { SessionTokens } from './session-tokens.js';

/**
 * From an arm's finished root tree and its grade to the CellMeasurement the journal keeps.
 * Claims resolve from criterion text to a requirement id by the one rule the harness has
 * (cell/claim-resolution.ts): exactly one known id named, or none; a claim that resolves to
 * nothing is kept with `requirement: null` (dropped from the metric, counted).
 */

/**
 * Delivered: the leaf reached no outside stop and its own checks (imports, compiles, its own
 * tests) pass in its own tree. The engine records no per-leaf diff, so "changed something it
 * declared" is read as "its declared checks ran on a tree that passes them".
 */
export function delivered(node: NodeResult): boolean {
  return node.stop === null && node.checkResults.length > 0 && node.checkResults.every((c) => c.passed);
}

export interface SessionSpend {
  sessionId: string;
  nodeId: string;
  /** The arm whose merge phase this session served; absent for the build (planning and leaves). */
  mergeArm?: Arm;
  tokens: SessionTokens;
  costUsd: number | null;
}

function spendOf(sessions: readonly SessionSpend[]): Spend {
  const unpriced = sessions.filter((s) => s.costUsd === null).length;
  return {
    sessions: sessions.length,
    tokens: sessions.reduce((t, s) => ({ input: t.input + s.tokens.input, cached: t.cached + s.tokens.cached, output: t.output + s.tokens.output }), { input: 0, cached: 0, output: 0 }),
    costUsd: unpriced > 0 ? null : sessions.reduce((sum, s) => sum + (s.costUsd ?? 0), 0),
    unpricedSessions: unpriced,
  };
}

export interface MeasureInput {
  cap: number;
  arm: Arm;
  repetition: number;
  pairing: 'shared' | 'independent';
  root: NodeResult;
  grade: GradeResult;
  requirements: readonly Pick<Requirement, 'id'>[];
  roster: readonly ModelSpec[];
  /** Every session this cell paid for (the pair's shared ones and this arm's own). */
  sessions: readonly SessionSpend[];
}

export function measureCell(input: MeasureInput): CellMeasurement {
  const ids: ReadonlySet<string> = new Set(input.requirements.map((r) => r.id));
  const nodes = flatten(input.root);
  const identity = (model: string) => ({ model, family: placeModel(model, [...input.roster]).family });
  const leaves: MeasuredLeaf[] = nodes
    .filter((n) => n.children.length === 0)
    .map((n) => ({
      path: n.id,
      level: n.depth,
      room: n.depth < input.cap,
      delivered: delivered(n),
      claims: n.claims.map((criterion) => ({ criterion: criterion || '(empty claim)', requirement: resolveClaim(criterion, ids) })),
    }));
  const merges: MeasuredMerge[] = nodes
    .filter((n) => n.children.length > 0)
    .map((n) => {
      const attempts = n.merge?.attempts ?? [];
      const contributors = n.contributorModels.length > 0 ? n.contributorModels.map(identity) : [identity(input.roster[0]?.model ?? 'unknown')];
      return {
        path: n.id,
        level: n.depth,
        children: n.children.length,
        attempts: Math.max(1, attempts.length),
        reviews: attempts.map((a) => ({
          attempt: a.attempt,
          kind: a.reviewer.kind,
          reviewer: { model: a.reviewer.model ?? 'none', family: a.reviewer.family },
          contributors,
          verdict: a.accept === true ? ('approve' as const) : a.accept === false ? ('reject' as const) : ('escalate' as const),
        })),
      };
    });
  const leafIds = new Set(leaves.map((l) => l.path));
  const shared = input.sessions.filter((s) => !s.mergeArm);
  return {
    cap: input.cap,
    arm: input.arm,
    repetition: input.repetition,
    pairing: input.pairing,
    leaves,
    merges,
    grade: { passing: input.grade.requirements.filter((r) => r.pass).map((r) => r.id), total: input.grade.total, testsCarried: input.grade.testFiles },
    escalations: nodes.flatMap((n) =>
      (n.merge?.attempts ?? []).filter((a) => a.accept === null).map((a) => ({ nodePath: n.id, source: 'review' as const, text: a.findings.join('; ') || `attempt ${a.attempt} escalated` })),
    ),
    spend: {
      leaf: spendOf(shared.filter((s) => leafIds.has(s.nodeId))),
      planning: spendOf(shared.filter((s) => !leafIds.has(s.nodeId))),
      merge: spendOf(input.sessions.filter((s) => s.mergeArm === input.arm)),
    },
  };
}
