import { describe, expect, it } from 'vitest';
import type { ModelSpec, NodeResult } from '../../../engine/index.js';
import { reviewRelation, type GradeResult } from '../../../harness/index.js';
import { addCall, measureCell, sessionsOfCharges } from '../../../harness/testing.js';

/**
 * The one measurement `record` journals and `solve` prints, on hand-made trees: the
 * audit must never read an unplaceable model as a family of its own, a node that stopped
 * before merging is no merge, and spend splits by where each session served.
 */
const ROSTER: ModelSpec[] = [
  { name: 'w', model: 'worker-1', family: 'alpha', prices: { input: 1, output: 2, cachedInput: 0.5 } },
  { name: 'j', model: 'judge-1', family: 'beta' },
] as ModelSpec[];

function node(id: string, over: Partial<NodeResult> = {}): NodeResult {
  return {
    id, slug: id, goal: id, depth: id.split('/').length - 1, kind: 'work', mode: 'leaf', forcedExecute: null, verdict: 'DONE', reasons: [], assumptions: [], openQuestions: [],
    claims: ['R01 parses the query'], artifacts: [], checks: [], checkResults: [{ id: 'c1', passed: true, exitCode: 0, timedOut: false, output: '' }], verifiedBy: ['beta'],
    contributorModels: ['worker-1'], contributorFamilies: ['alpha'], attempts: 1, repairStop: null, merge: null, stop: null, checkRewrites: 0, monitorFlags: [], overrides: [],
    interfaceChanges: [], allocation: 0, tokens: 0, usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0 }, costUsd: 0, estimatedUsageCalls: 0, workspace: `/w/${id}`, children: [],
    ...over,
  } as NodeResult;
}

const grade = { version: 2, spec: 'sqlcsv', tree: '/w/root', satisfied: 1, total: 2, casesPassed: 1, casesTotal: 2, testFiles: 0, requirements: [{ id: 'R01', title: '', pass: true, passed: 1, total: 1, failures: [] }, { id: 'R02', title: '', pass: false, passed: 0, total: 1, failures: [] }], skipped: [], skippedCount: 0, undeliverable: null } as unknown as GradeResult;

const attempt = (model: string | null, accept: boolean | null, verdict: 'DONE' | 'NEEDS_HUMAN' | 'NOT_DONE' = 'DONE') => ({
  attempt: 1, reviewer: { kind: 'independent' as const, model, family: null, independent: true }, accept, findings: [], verdict, seamChecks: { passed: 1, total: 1 },
});

const measure = (root: NodeResult, sessions = [] as Parameters<typeof measureCell>[0]['sessions']) =>
  measureCell({ cap: 2, arm: 'gated', repetition: 1, pairing: 'shared', root, grade, roster: ROSTER, sessions });

describe('measureCell', () => {
  it('reads a reviewer nobody can place as unknown to the audit, never as an independent family', () => {
    const root = node('root', { mode: 'split', children: [node('root/a'), node('root/b')], merge: { arm: 'gated', attempts: [attempt('gateway/judge-x', true)], stop: 'accept' } });
    const [review] = measure(root).merges[0]!.reviews;
    expect(review!.reviewer).toEqual({ model: 'gateway/judge-x', family: null });
    expect(reviewRelation(review!)).toBe('unknown');
    // A dated snapshot of a roster id is placed, as the engine places it.
    const dated = node('root', { mode: 'split', children: [node('root/a')], merge: { arm: 'gated', attempts: [attempt('judge-1-2025-01-31', true)], stop: 'accept' } });
    expect(reviewRelation(measure(dated).merges[0]!.reviews[0]!)).toBe('independent');
  });

  it('counts no merge for a node that stopped before merging, and keeps an attempt nobody answered as unjudged, never as a review', () => {
    const stopped = node('root', { mode: 'split', verdict: 'NOT_DONE', children: [node('root/a')], merge: null });
    expect(measure(stopped).merges).toEqual([]);
    const unanswered = node('root', { mode: 'split', verdict: 'NOT_DONE', children: [node('root/a')], merge: { arm: 'gated', attempts: [attempt(null, null, 'NOT_DONE')], stop: 'max_attempts' } });
    expect(measure(unanswered).merges).toEqual([{ path: 'root', level: 0, children: 1, attempts: 1, reviews: [], unjudged: [{ attempt: 1, reason: 'no reviewer answered' }] }]);
    expect(measure(unanswered).escalations).toEqual([]);
  });

  it('parks a reviewer’s escalation per attempt, and a NEEDS_HUMAN node without one as an assumption', () => {
    const escalated = node('root', { mode: 'split', children: [node('root/a')], merge: { arm: 'gated', attempts: [attempt('judge-1', null, 'NEEDS_HUMAN')], stop: 'settled' } });
    expect(measure(escalated).escalations).toEqual([{ nodePath: 'root', source: 'review', text: 'attempt 1 escalated' }]);
    const assumed = node('root', { verdict: 'NEEDS_HUMAN', openQuestions: ['which dialect?'] });
    expect(measure(assumed).escalations).toEqual([{ nodePath: 'root', source: 'assumption', text: 'which dialect?' }]);
  });

  it('splits spend by where each session served, and prices a session only when every model in it has a price', () => {
    const root = node('root', { mode: 'split', children: [node('root/a')], merge: { arm: 'gated', attempts: [attempt('judge-1', true)], stop: 'accept' } });
    const usage = { inputTokens: 10, outputTokens: 5, cachedTokens: 0 };
    const charge = (sessionId: string, nodeId: string, model: string, arm?: 'gated' | 'ungated', usageNote: string | null = null) => ({ type: 'charge' as const, sessionId, nodeId, model, usage, costUsd: 0.25, role: 'worker', usageNote, ...(arm ? { arm } : {}) });
    const sessions = sessionsOfCharges(
      [charge('s1', 'root/a', 'worker-1'), charge('s1', 'root/a', 'worker-1', undefined, 'the reply reported no usage; charged 15'), charge('s2', 'root', 'worker-1'), charge('s3', 'root', 'judge-1', 'gated'), charge('s4', 'root', 'judge-1', 'ungated')] as never,
      ROSTER,
    );
    const { spend } = measure(root, sessions);
    // The call whose usage the endpoint did not report is counted as estimated, in the cell's Spend.
    expect(spend.leaf).toEqual({ sessions: 1, tokens: { input: 20, cached: 0, output: 10 }, costUsd: 0.5, unpricedSessions: 0, estimatedCalls: 1 });
    expect(spend.planning.sessions).toBe(1);
    // judge-1 has no price: its session is unpriced, never $0; the other arm's session is not this cell's.
    expect(spend.merge).toEqual({ sessions: 1, tokens: { input: 10, cached: 0, output: 5 }, costUsd: null, unpricedSessions: 1 });
  });
});

describe('addCall', () => {
  it('prices a call by the roster entry asked for, and leaves a session with an unpriced model unpriced for good', () => {
    const spend = { sessionId: 's', nodeId: 'root', tokens: { input: 0, cached: 0, output: 0 }, costUsd: 0 as number | null };
    addCall(spend, ROSTER, 'worker-1', { inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 0 });
    // 1M input at $1 and 0.5M output at $2 per million.
    expect(spend).toEqual({ sessionId: 's', nodeId: 'root', tokens: { input: 1_000_000, cached: 0, output: 500_000 }, costUsd: 2 });
    addCall(spend, ROSTER, 'judge-1', { inputTokens: 10, outputTokens: 1, cachedTokens: 0 });
    addCall(spend, ROSTER, 'worker-1', { inputTokens: 10, outputTokens: 1, cachedTokens: 0 });
    expect(spend.costUsd).toBeNull();
    expect(spend.tokens).toEqual({ input: 1_000_020, cached: 0, output: 500_002 });
  });
});
