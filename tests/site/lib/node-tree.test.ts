import { describe, expect, it } from 'vitest';
import { runFiles } from '../../../harness/index.js';

const { ClaimRow, EVENT_VERSION, EngineEvent, NodeResult } = runFiles;
type ClaimRow = runFiles.ClaimRow;
type EngineEvent = runFiles.EngineEvent;
type NodeResult = runFiles.NodeResult;
type Report = runFiles.Report;
import { cellStories, type CellRead } from '../../../site/src/lib/cell-story.js';
import { cellTree, mergeAnchor, nodeAnchor, nodeName, requirementAnchor, sessionLabel, type NodeView } from '../../../site/src/lib/node-tree.js';
import type { SessionView } from '../../../site/src/lib/site-data.js';

/**
 * The cell page's story as data: each claim marked from the report's claims, the pair's shared
 * sessions linked in the partner cell, each merge attempt with its reviewer and findings, and
 * one unique label per session.
 */

const usage = { inputTokens: 0, cachedTokens: 0, outputTokens: 0 };
function node(id: string, slug: string, children: NodeResult[] = [], extra: Partial<NodeResult> = {}): NodeResult {
  return NodeResult.parse({
    id, slug, goal: `goal of ${id}`, depth: id.split('.').length - 1, kind: 'work', mode: children.length ? 'split' : 'leaf', forcedExecute: null, verdict: 'DONE',
    reasons: [], assumptions: [], openQuestions: [], claims: [], artifacts: [], checks: [], checkResults: [], verifiedBy: [], contributorModels: [], contributorFamilies: [],
    attempts: 1, repairStop: null, merge: null, stop: null, checkRewrites: 0, monitorFlags: [], overrides: [], interfaceChanges: [], allocation: 1, tokens: 0, usage, costUsd: 0,
    estimatedUsageCalls: 0, workspace: `/w/${id}`, children, ...extra,
  });
}
const tree = () => node('root', 'sqlcsv', [node('root.1', 'r01-r02'), node('root.2', 'r03')]);
const event = (e: Record<string, unknown>) => EngineEvent.parse({ version: EVENT_VERSION, ts: '2026-01-01T00:00:00.000Z', ...e });
const claim = (cellId: string, leaf: string, requirement: string, survived: boolean, diedAt: string | null = null) =>
  ClaimRow.parse({ cellId, cap: 1, arm: cellId.endsWith('-ungated') ? 'ungated' : 'gated', repetition: 1, leaf, level: 1, requirement, survived, diedAt, lastPassed: null, inFigures: true });
function find(root: NodeView, id: string): NodeView {
  const walk = (n: NodeView): NodeView | undefined => (n.id === id ? n : n.children.map(walk).find(Boolean));
  const found = walk(root);
  if (!found) throw new Error(`no node ${id}`);
  return found;
}
function session(cell: string, sessionId: string, nodeId: string, attempt = 1): SessionView {
  const role = sessionId.split('/').at(-2)!;
  return {
    run: 'r', cell, slug: sessionId, sessionId, nodeId, role, attempt, calls: 1, models: ['m'], costUsd: 0, file: `x/${sessionId}`, packs: [1], pack: 1, ordinal: 1, torn: false, review: null,
    totals: { calls: 1, toolCalls: 0, errors: 0, models: ['m'], usage, firstAt: null, lastAt: null } as unknown as SessionView['totals'],
  };
}

describe('the cell page\'s node tree', () => {
  it('marks every claim survived or killed, on its leaf and at the merge where it died, with links to the oracle row, the leaf and the merge', () => {
    const claims = [claim('cap1-rep1-ungated', 'root.1', 'R01', true), claim('cap1-rep1-ungated', 'root.1', 'R02', false, 'root'), claim('cap1-rep1-ungated', 'root.2', 'R03', false)];
    const t = cellTree(tree(), [], [], claims);
    const leaf = find(t.root, 'root.1');
    expect(leaf.claimMarks.map((m) => [m.requirement, m.survived])).toEqual([['R01', true], ['R02', false]]);
    const killed = leaf.claimMarks[1]!;
    expect(killed).toMatchObject({ leafName: 'root.1 · r01-r02', leafAnchor: nodeAnchor('root.1'), diedAt: 'root', diedAtName: 'root · sqlcsv', diedAnchor: mergeAnchor('root') });
    expect(t.root.killedHere.map((m) => m.requirement)).toEqual(['R02']);
    // Killed without a located merge (merges not graded): marked, with nowhere to link.
    expect(find(t.root, 'root.2').claimMarks).toMatchObject([{ requirement: 'R03', survived: false, diedAt: null, diedAnchor: null }]);
    expect(requirementAnchor('R05')).toBe('req-R05');
    expect(requirementAnchor('R 5')).toBe('req-R~20~5');
  });

  it('names each node by its id and slug, the same wherever it appears', () => {
    const t = cellTree(tree(), [], []);
    expect(t.root.name).toBe('root · sqlcsv');
    expect(find(t.root, 'root.1').name).toBe(nodeName('root.1', 'r01-r02'));
    expect(nodeName('root', 'root')).toBe('root');
  });

  it('shows each merge attempt with its reviewer, family, verdict, findings and the repair round that followed', () => {
    const events = [
      event({ type: 'merge_review', nodeId: 'root', arm: 'gated', attempt: 1, kind: 'independent', model: 'rev', family: 'beta', independent: true, accept: false, findings: ['seam R02 broken'], verdictUsed: true }),
      event({ type: 'repair_round', nodeId: 'root', arm: 'gated', attempt: 1, accepted: false, independent: true, score: 0.5, stop: null }),
      event({ type: 'merge_review', nodeId: 'root', arm: 'gated', attempt: 2, kind: 'independent', model: 'rev', family: 'beta', independent: true, accept: true, findings: [], verdictUsed: true }),
    ];
    const assembled = event({ type: 'assembled', nodeId: 'root', arm: 'gated', children: ['r01-r02', 'r03'], interfaceChanges: [] });
    const t = cellTree(tree(), [assembled, ...events, assembled], []);
    // Told once, each child by its one name.
    expect(t.root.assemblies).toEqual([{ children: ['root.1 · r01-r02', 'root.2 · r03'], interfaceChanges: [] }]);
    const reviews = t.root.mergeReviews;
    expect(reviews.map((r) => [r.attempt, r.model, r.family, r.accept, r.findings, r.repair?.score ?? null])).toEqual([
      [1, 'rev', 'beta', false, ['seam R02 broken'], 0.5],
      [2, 'rev', 'beta', true, [], null],
    ]);
    // A run recorded without events still shows its merges, from result.json's merge record.
    const merged = node('root', 'sqlcsv', [node('root.1', 'a')], {
      merge: { arm: 'ungated', stop: 'max_attempts', attempts: [{ attempt: 1, reviewer: { kind: 'self', model: 'm', family: 'alpha', independent: false }, accept: true, findings: ['looks fine'], verdict: 'self-review, not used', seamChecks: { passed: 1, total: 2 } }] },
    });
    expect(cellTree(merged, [], []).root.mergeReviews).toMatchObject([{ kind: 'self', findings: ['looks fine'], verdictUsed: null, seamChecks: { passed: 1, total: 2 } }]);
  });

  it('labels every session of a node uniquely (drift_judge 1 and 2 of one attempt are two links)', () => {
    const sessions = ['gated/root/drift_judge/1', 'gated/root/drift_judge/2', 'gated/root/merger/1'].map((id) => ({ ...session('cap1-rep1-gated', id, 'root'), cell: 'cap1-rep1-gated', shared: false }));
    const labels = cellTree(tree(), [], sessions).root.sessions.map((s) => s.label);
    expect(labels).toEqual(['drift_judge 1, attempt 1', 'drift_judge 2, attempt 1', 'merger 1, attempt 1']);
    expect(sessionLabel('root.1/worker/1', 'root.1', 2)).toBe('worker 1, attempt 2');
  });

  it('links a pair\'s shared sessions from both cells, kept under the first arm, and counts shared and own sessions as the report does', () => {
    const shared = new Set(['root.1/worker/1', 'root/planner/1']);
    const read = (id: string, sessions: SessionView[], reported: number): CellRead => ({
      key: { cap: 1, repetition: 1, arm: id.endsWith('ungated') ? 'ungated' : 'gated' }, id, run: 'r', result: tree(), grade: null,
      row: { id, spend: { sessions: reported } } as unknown as CellRead['row'], sessions, events: [], sharedCharged: shared, torn: [],
    });
    const gated = read('cap1-rep1-gated', [session('cap1-rep1-gated', 'root/planner/1', 'root'), session('cap1-rep1-gated', 'root.1/worker/1', 'root.1'), session('cap1-rep1-gated', 'gated/root/merger/1', 'root')], 3);
    const ungated = read('cap1-rep1-ungated', [session('cap1-rep1-ungated', 'ungated/root/merger/1', 'root'), session('cap1-rep1-ungated', 'ungated/root/self_reviewer/1', 'root')], 4);
    const report = { claims: [claim('cap1-rep1-ungated', 'root.1', 'R01', false, 'root')] } as unknown as Report;
    const [g, u] = cellStories([gated, ungated], report);
    expect(u!.sessionCounts).toEqual({ reported: 4, shared: 2, sharedUnder: ['cap1-rep1-gated'], own: 2 });
    expect(g!.sessionCounts).toEqual({ reported: 3, shared: 2, sharedUnder: ['cap1-rep1-gated'], own: 1 });
    // The ungated leaf links the worker session in the gated cell's folder, marked shared.
    expect(find(u!.tree!.root, 'root.1').sessions).toMatchObject([{ sessionId: 'root.1/worker/1', cell: 'cap1-rep1-gated', shared: true }]);
    expect(find(u!.tree!.root, 'root').sessions.map((s) => [s.sessionId, s.cell, s.shared])).toEqual([
      ['root/planner/1', 'cap1-rep1-gated', true],
      ['ungated/root/merger/1', 'cap1-rep1-ungated', false],
      ['ungated/root/self_reviewer/1', 'cap1-rep1-ungated', false],
    ]);
    // Never the partner's own merges.
    expect(find(u!.tree!.root, 'root').sessions.some((s) => s.sessionId.startsWith('gated/'))).toBe(false);
    // Claims come from the report, for this cell only.
    expect(u!.claims.map((c) => c.requirement)).toEqual(['R01']);
    expect(g!.claims).toEqual([]);
  });
});
