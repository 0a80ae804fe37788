import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryEventSink, flatten, type ModelClient, type ModelRequest, type ModelResponse } from '../../../engine/index.js';
import { REPO_ROOT, SimParams, predictCell, simSetup, type SimSetup } from '../../../harness/index.js';
import { findMarkers, oracleGrader, runPair, specObjective, type PairRun } from '../../../harness/testing.js';
import { HAS_DOCKER, testProvider } from '../../support/docker.js';
import { witnessCaseIds } from '../../support/witness-oracle.js';

/**
 * One real pair, shared by every test below: the SIMULATED population drives the real engine
 * court (checks falsified on an empty workspace, leaves built in Docker, the independent
 * verifier, both merge loops) at cap 1, and the real grader grades both roots in Docker with the
 * oracle's witness cases (tests/support/witness-oracle.ts).
 * Planted so that the arms must differ: every seam breaks, the judge finds everything and the
 * self-review nothing, every found defect is repaired.
 */
const PARAMS = SimParams.parse({
  seed: 5, branching: { 2: 1 }, early_leaf_rate: 0, leaf_defect_rate: 0, seam_defect_rate: 1, judge_recall: 1, self_review_recall: 0, repair_rate: 1,
  unresolved_claim_rate: 0.1, non_delivery_rate: 0,
});
const MERGE_ATTEMPTS = 3;
const HOSTILE = 'printf "raise SystemExit(3)\\n" > sqlcsv/__main__.py && rm -rf tests';
const HOSTILE_ID = 'hostile_write';

/**
 * A reviewer that also tries to break the tree it reviews: on its first turn it runs HOSTILE in
 * its sandbox beside its reads. The simulated reviewer never sees that call (it is stripped
 * from what it is asked), so its decisions stay the pure model's.
 */
class HostileReviewers implements ModelClient {
  hostileCalls = 0;
  constructor(private readonly inner: ModelClient) {}
  async complete(req: ModelRequest): Promise<ModelResponse> {
    if (req.role !== 'reviewer' && req.role !== 'self_reviewer') return this.inner.complete(req);
    const messages = req.messages
      .filter((m) => !(m.role === 'tool' && m.toolCallId === HOSTILE_ID))
      .map((m) => (m.role === 'assistant' && m.toolCalls ? { ...m, toolCalls: m.toolCalls.filter((c) => c.id !== HOSTILE_ID) } : m));
    const reply = await this.inner.complete({ ...req, messages });
    if (messages.some((m) => m.role === 'assistant')) return reply;
    this.hostileCalls++;
    return { ...reply, toolCalls: [...reply.toolCalls, { id: HOSTILE_ID, name: 'run_command', arguments: JSON.stringify({ command: HOSTILE }) }] };
  }
}

async function treeDigest(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).filter((f) => !f.startsWith('.children') && !f.includes('__pycache__')).sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f}\0`).update(await readFile(path.join(dir, f))).update('\0');
  return hash.digest('hex');
}

describe.runIf(HAS_DOCKER)('one simulated pair through the real engine court, graded by the real grader in Docker', () => {
  let pair: PairRun;
  let setup: SimSetup;
  let hostile: HostileReviewers;
  const events = new MemoryEventSink();
  const digests: Record<string, string> = {};
  let work = '';

  beforeAll(async () => {
    const objective = await specObjective(path.join(REPO_ROOT, 'spec', 'sqlcsv'));
    setup = await simSetup({ specDir: path.join(REPO_ROOT, 'spec', 'sqlcsv'), params: PARAMS, maxDepth: 1, repetition: 1, mergeAttempts: MERGE_ATTEMPTS, requirements: objective.requirements });
    hostile = new HostileReviewers(setup.clients.sim!);
    work = await mkdtemp(path.join(tmpdir(), 'rdh-sim-pair-'));
    // The oracle's witness cases, the few that decide a SIMULATED tree's verdicts (witness-oracle.ts).
    const witnesses = await witnessCaseIds('sqlcsv');
    const grade = oracleGrader({ specDir: path.join(REPO_ROOT, 'spec', 'sqlcsv'), runId: 'test-sim-pair', limits: { caseTimeoutMs: 10_000 }, caseIds: witnesses });
    pair = await runPair({
      cell: { cap: 1, repetition: 1 },
      pairing: 'shared',
      engine: {
        goal: objective.goal, budget: 20_000_000, mergeAttempts: MERGE_ATTEMPTS, roster: setup.roster, clients: { sim: hostile }, sandboxes: testProvider(),
        workRoot: work, runId: 'test-sim-pair', events, objective: { context: objective.context, criteria: objective.criteria },
      },
      // Record what is graded, byte for byte, as the oracle receives it.
      grade: async (workspace, arm) => {
        digests[arm] = await treeDigest(workspace);
        return grade(workspace, arm);
      },
    });
  }, 1_800_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('builds exactly the tree the pure model predicts for the same seed, and the oracle grades it so, in both arms', async () => {
    const predicted = predictCell(setup.world);
    for (const outcome of pair.arms) {
      const root = outcome.root.workspace;
      const files = Object.fromEntries(
        await Promise.all(
          (await readdir(path.join(root, 'sqlcsv'))).filter((f) => f.endsWith('.py')).map(async (f) => [`sqlcsv/${f}`, await readFile(path.join(root, 'sqlcsv', f), 'utf8')] as const),
        ),
      );
      // The planted defects in the graded tree are the model's, exactly.
      const planted = [...new Set(findMarkers(files).map((m) => m.requirement))].sort();
      expect([outcome.arm, planted]).toEqual([outcome.arm, [...predicted[outcome.arm].present.keys()].sort()]);
      const passing = new Set(outcome.measurement.grade.passing);
      const expected = new Set(predicted[outcome.arm].passing);
      // Every planted defect really breaks its requirement under the oracle.
      expect([outcome.arm, [...passing].filter((r) => !expected.has(r))]).toEqual([outcome.arm, []]);
      // Anything else that failed may only have failed for the machine's load (a case timed out or never ran), never for its behaviour.
      const extra = outcome.grade.requirements.filter((r) => expected.has(r.id) && !r.pass);
      const load = (reason: string) => reason === 'timed out' || reason.startsWith('not run:');
      expect(extra.filter((r) => !r.failures.every((f) => load(f.reason))).map((r) => [r.id, r.failures])).toEqual([]);
      if (extra.length) console.warn(`!!! ${outcome.arm}: ${extra.map((r) => r.id).join(', ')} failed only by timeouts under load; the behaviour graded as predicted elsewhere`);
    }
    // The arms differ only at merges: the gated judge found and repaired both seams, the self-review nothing.
    expect(pair.arms.map((a) => [a.arm, a.measurement.merges.length, predicted[a.arm].present.size])).toEqual([['gated', 1, 0], ['ungated', 1, 2]]);
  });

  it('neither reviewer can change the graded tree: a reviewer that breaks its copy leaves the graded tree as merged', async () => {
    expect(hostile.hostileCalls).toBeGreaterThanOrEqual(4);
    for (const outcome of pair.arms) {
      expect(await treeDigest(outcome.root.workspace)).toBe(digests[outcome.arm]);
      // Had the hostile command reached the graded tree, its entry point would exit 3 and every requirement would fail.
      expect(await readFile(path.join(outcome.root.workspace, 'sqlcsv', '__main__.py'), 'utf8')).not.toContain('SystemExit(3)');
    }
  });

  it('the ungated arm spends every attempt; the gated arm stops at an approval', () => {
    const [gated, ungated] = pair.arms.map((a) => a.root.merge!);
    expect(gated!.attempts.map((a) => a.accept)).toEqual([false, true]);
    expect(gated!.stop).toBe('accept');
    expect(ungated!.attempts).toHaveLength(MERGE_ATTEMPTS);
    expect(ungated!.stop).toBe('max_attempts');
    expect(pair.arms.map((a) => a.measurement.merges.map((m) => m.attempts))).toEqual([[2], [3]]);
  });

  it('at an ungated merge no other family judges the merge, and a self-review is never reported as independent', () => {
    const ungatedReviews = events.ofType('merge_review').filter((e) => e.arm === 'ungated');
    expect(ungatedReviews).toHaveLength(MERGE_ATTEMPTS);
    expect(ungatedReviews.every((e) => e.kind === 'self' && !e.independent && !e.verdictUsed && e.family === 'sim-alpha')).toBe(true);
    // At an ungated merge node the reviewer's family answers one thing only: the meta-verifier's
    // one session per node, which judges the seam checks (as at a leaf), not the merge.
    const mergeNodes = flatten(pair.arms[1]!.root).filter((n) => n.merge).map((n) => n.id);
    const others = events.ofType('charge').filter((c) => c.arm === 'ungated' && mergeNodes.includes(c.nodeId) && c.family !== 'sim-alpha');
    expect([...new Set(others.map((c) => `${c.role} ${c.sessionId} ${c.family}`))]).toEqual(mergeNodes.map((id) => `verifier ungated/${id}/verifier/1 sim-beta`));
    expect(events.ofType('meta_verified').filter((e) => e.arm === 'ungated' && mergeNodes.includes(e.nodeId)).map((e) => e.nodeId)).toEqual(mergeNodes);
    expect(pair.arms[1]!.measurement.merges.flatMap((m) => m.reviews.map((r) => r.kind))).toEqual(['self', 'self', 'self']);
    expect(pair.arms[0]!.measurement.merges.flatMap((m) => m.reviews.map((r) => [r.kind, r.reviewer.family]))).toEqual([['independent', 'sim-beta'], ['independent', 'sim-beta']]);
    expect(pair.arms[1]!.root.verdict).toBe('SELF_REVIEWED');
  });

  it('under shared pairing both arms carry the same leaves, byte for byte, paid once', async () => {
    expect(pair.builds).toHaveLength(1);
    const leavesOf = (i: number) => flatten(pair.arms[i]!.root).filter((n) => n.children.length === 0);
    expect(leavesOf(0)).toEqual(leavesOf(1));
    for (const leaf of leavesOf(0)) expect(leaf.workspace).toBe(leavesOf(1).find((l) => l.id === leaf.id)!.workspace);
    const leafIds = new Set(leavesOf(0).map((l) => l.id));
    const leafCharges = events.ofType('charge').filter((c) => leafIds.has(c.nodeId));
    // Charged once, by the build (no arm), never per arm.
    expect(leafCharges.length).toBeGreaterThan(0);
    expect(leafCharges.filter((c) => c.arm !== undefined)).toEqual([]);
    expect(pair.arms[0]!.measurement.spend.leaf).toEqual(pair.arms[1]!.measurement.spend.leaf);
    expect(new Set(leafCharges.filter((c) => c.role === 'worker').map((c) => c.sessionId)).size).toBe(leafIds.size);
  });

  it('measures the cell: claims resolved as the sim drew them, synthetic tokens at $0, every model SIMULATED', () => {
    const drawn = setup.world.tree(null).phase.leaves.flatMap((l) => l.claims.map((c) => (c.resolved ? c.requirement : null)));
    for (const outcome of pair.arms) {
      expect(outcome.measurement.leaves.flatMap((l) => l.claims.map((c) => c.requirement))).toEqual(drawn);
      expect(outcome.measurement.leaves.every((l) => l.delivered && l.level === 1 && !l.room)).toBe(true);
      expect(outcome.measurement.spend.merge.costUsd).toBe(0);
      expect(outcome.measurement.spend.merge.tokens.output).toBeGreaterThan(0);
    }
    expect(drawn.filter((r) => r === null).length).toBeGreaterThan(0);
    expect(events.ofType('charge').every((c) => c.model.includes('(SIMULATED)') && c.costUsd === 0)).toBe(true);
  });
});
