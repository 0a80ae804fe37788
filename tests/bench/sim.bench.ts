import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelClient, ModelRequest, SandboxProvider } from '../../engine/index.js';
import { REPO_ROOT, SimParams, loadManifest, simSetup } from '../../harness/index.js';
import { oracleGrader, runPair, specObjective } from '../../harness/testing.js';
import { testProvider } from '../support/docker.js';
import { figure, sample, type Figure } from './stats.js';

/** Times every call the engine makes to a client, so model-side time can be set against wall time. */
class TimedClient implements ModelClient {
  ms = 0;
  calls = 0;
  constructor(private readonly inner: ModelClient) {}
  async complete(req: ModelRequest) {
    const t = performance.now();
    try {
      return await this.inner.complete(req);
    } finally {
      this.ms += performance.now() - t;
      this.calls++;
    }
  }
}

/** Counts the sandboxes (containers) the engine creates. */
class CountingSandboxes implements SandboxProvider {
  created = 0;
  constructor(private readonly inner: SandboxProvider) {}
  create(options: Parameters<SandboxProvider['create']>[0]) {
    this.created++;
    return this.inner.create(options);
  }
}

/**
 * The SIMULATED population's own cost, without Docker: one sim call's latency (the heaviest
 * reply, a leaf's first worker turn that writes the whole corpus, and a root planner's reply),
 * then one full sim solve at `cap` (default 2, `BENCH_SIM_CAP` to change; 0 skips it), both
 * arms under shared pairing, graded by the oracle: wall time, sessions, containers, and the
 * model-side share of the wall time (goal: under 5%; Docker dominates).
 */
export async function simBench(): Promise<Figure[]> {
  const manifest = (await loadManifest(path.join(REPO_ROOT, 'manifests', 'smoke.yaml'))).manifest;
  const specDir = path.join(REPO_ROOT, 'spec', 'sqlcsv');
  const objective = await specObjective(specDir);
  const cap = Number(process.env.BENCH_SIM_CAP ?? 2);
  const params = SimParams.parse(manifest.simulated);
  const setup = await simSetup({ specDir, params, maxDepth: Math.max(cap, 1), mergeAttempts: manifest.merge_attempts, requirements: objective.requirements });
  const sim = setup.clients.sim!;
  const model = setup.roster[0]!.model;
  const leaf = setup.world.tree(null).phase.leaves[0]!.path.split('.').map((p, i) => (i === 0 ? p : String(Number(p) + 1))).join('.');
  const ask = (role: ModelRequest['role'], nodeId: string): ModelRequest => ({
    model, role, nodeId, sessionId: `bench/${nodeId}/${role}`, attempt: 1, messages: [{ role: 'system', content: 'bench' }, { role: 'user', content: '## Task: bench' }],
  });
  const worker = await sample(200, () => sim.complete(ask('worker', leaf)), 5);
  const planner = await sample(200, () => sim.complete(ask('planner', 'root')), 5);
  const calls = [figure('sim call: leaf worker turn 1 (writes the corpus)', worker, undefined, 'no Docker'), figure('sim call: root planner', planner, undefined, 'no Docker')];
  if (cap === 0) return calls;

  const timed = new TimedClient(sim);
  const sandboxes = new CountingSandboxes(testProvider());
  const work = await mkdtemp(path.join(tmpdir(), 'rdh-bench-sim-'));
  const sessions = new Set<string>();
  const started = performance.now();
  const pair = await runPair({
    cell: { cap, repetition: 1 },
    engine: {
      goal: objective.goal, budget: 20_000_000, mergeAttempts: manifest.merge_attempts, roster: setup.roster, clients: { sim: timed }, sandboxes, workRoot: work, runId: 'bench-sim',
      objective: { context: objective.context, criteria: objective.criteria },
      events: { emit: (e) => (e.type === 'charge' ? sessions.add(e.sessionId) : undefined) },
    },
    grade: oracleGrader({ specDir, runId: 'bench-sim', limits: { caseTimeoutMs: 10_000 } }),
  });
  const wall = performance.now() - started;
  await rm(work, { recursive: true, force: true });
  const graded = new Set(pair.arms.map((a) => a.root.workspace)).size;
  const share = (100 * timed.ms) / wall;
  return [
    ...calls,
    figure(`sim solve cap ${cap}, both arms (shared), graded`, [wall], undefined,
      `${sessions.size} sessions, ${timed.calls} sim calls, ${sandboxes.created + graded} containers (${graded} gradings); model side ${(timed.ms / 1000).toFixed(1)} s = ${share.toFixed(2)}% of wall (goal < 5%); oracle ${pair.arms.map((a) => `${a.arm} ${a.grade.satisfied}/${a.grade.total}`).join(', ')}`),
  ];
}
