import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import PQueue from 'p-queue';
import {
  DockerUnavailableError,
  ModelQuotaExhaustedError,
  NoSandboxHostError,
  SandboxImageMissingError,
  RdhError,
  isRetryableSandboxError,
  flatten,
  type Arm,
  type BuildOptions,
  type BuiltTree,
  type SessionLimiter,
  type ModelClient,
  type NodeResult,
  type RequestLayout,
} from '../../engine/index.js';
import { runPair, type PairHooks } from '../cell/pair-run.js';
import type { GradeResult } from '../grading/grading-report.js';
import type { Requirement } from '../grading/spec-requirements.js';
import type { Manifest } from '../manifest/manifest.js';
import type { Journal } from '../journal/journal.js';
import { PairEventFiles } from './pair-events.js';
import { PairSessions, sessionKey, spentOf } from './pair-sessions.js';
import { cellId, pairId, runPaths, type CellId, type RunPaths } from '../journal/run-folder.js';
import { SessionGate, SessionRefusedError } from './session-gate.js';
import type { CellOutcome, StopReason, SweepEvent, SweepEventInput } from '../journal/sweep-events.js';
import { readTranscriptsByArm } from '../journal/transcripts.js';

/**
 * The cell runner of `harness record`: every (cap, repetition) pair of the invocation in plan
 * order (caps ascending, then repetition, then arm), each pair's build shared by its arms under
 * `pairing: shared`, every session admitted by the one SessionGate before dispatch, every
 * durable step journalled, every root tree graded, and one `cell_finished` per cell.
 *
 * Resume: a pair whose cells all finished (measured or unavailable) is skipped; any other pair
 * is run again from the top with a RecordedCallClient in front of the live clients, so every
 * call that completed and was transcribed is answered from its transcript, not paid again.
 * A pair whose sandbox host was lost (a retryable sandbox error from a host pool) is re-run
 * the same way within the invocation, on the hosts left (`hostRetries`).
 */

/** The models of one pair: the sim builds a population per (cap, repetition); real providers reuse theirs. */
export interface PairModels {
  roster: BuildOptions['roster'];
  clients: Record<string, ModelClient>;
}

export interface SweepPlanCell {
  cap: number;
  repetition: number;
  arms: readonly Arm[];
}

export interface RecordSweepOptions {
  runDir: string;
  manifest: Manifest;
  /** Pairs in recording order. */
  pairs: readonly SweepPlanCell[];
  journal: Journal<SweepEvent>;
  /** Everything the journal held before this invocation. */
  history: readonly SweepEvent[];
  /** The one limit on sessions in flight for the whole sweep: every cell, level and arm. */
  limiter: SessionLimiter;
  /** How many pairs run at once (each is bounded by the limiter anyway). Default 1. */
  pairConcurrency?: number;
  gate: SessionGate;
  modelsFor(cap: number, repetition: number): Promise<PairModels>;
  sandboxes: BuildOptions['sandboxes'];
  objective: { goal: string; context: string; criteria: string[] };
  requirements: readonly Requirement[];
  grade(tree: string, cell: CellId): Promise<GradeResult>;
  /** True when a failure is true of every remaining cell (Docker gone): checked after a pair fails. */
  environmentGone?(): Promise<string | undefined>;
  keepWorkspaces: boolean;
  /** Grade every merged subtree too (`grade_merges`; see PairRunOptions.gradeMerges). Default: only roots. */
  gradeMerges?: { entryPoints: readonly string[] };
  /** Grade every leaf's own tree too (`grade_leaves`; see PairRunOptions.gradeLeaves). Default: leaves are not graded. */
  gradeLeaves?: { entryPoints: readonly string[] };
  /** The per-node allocations every tree's nodes receive (the manifest's `budget`). */
  budget: BuildOptions['budget'];
  /** What the run's containers and grading scratch folders are labelled with. */
  runId: string;
  secrets: string[];
  /**
   * How many times a pair is re-run because its sandbox host stopped answering (a retryable
   * sandbox error: the host pool has drained it, so the re-run lands on the hosts left). The
   * re-run is a resume of the pair: its completed calls are answered from its transcripts.
   * Default 0 (a single daemon: nothing to retry on).
   */
  hostRetries?: number;
  /** Run again the cells an earlier invocation left unavailable for a permanent reason (`--retry-unavailable`). Default false. */
  retryUnavailable?: boolean;
  /** Told of each such re-run, before it starts. Default: nothing. */
  onHostLost?(cellIds: CellId[], detail: string): void;
  /** The engine's request layout. Default: the engine's (shared-first). */
  requestLayout?: RequestLayout;
}

export interface SweepOutcome {
  reason: StopReason;
  detail: string;
  finished: Map<CellId, CellOutcome>;
  unmeasured: CellId[];
}

/** Node stops a later try may cure: the provider stayed unavailable, or rate limited, for its whole patience. */
const TRANSIENT_STOPS: ReadonlySet<string> = new Set(['model_unavailable', 'model_rate_limited']);

class QuotaStop extends Error {}
class FatalStop extends Error {}
/** The pair's sandbox host was lost; its sessions are finished and its transcripts closed, ready for a re-run. */
class HostLost extends Error {}

export async function recordSweep(o: RecordSweepOptions): Promise<SweepOutcome> {
  return new SweepRecorder(o).run();
}

/** What one pair's run holds while it runs: its cells and their files, its sessions and events. */
interface PairRun {
  pair: SweepPlanCell;
  cells: Record<Arm, CellId>;
  ids: CellId[];
  cellPaths: Record<Arm, ReturnType<RunPaths['cell']>>;
  sessions: PairSessions;
  finishCell: (id: CellId, outcome: CellOutcome) => Promise<void>;
}

/**
 * One invocation's sweep, read top to bottom in {@link SweepRecorder.run}: every pair dispatched
 * (re-run on the hosts left when its host is lost), each pair opened, run and settled, then the
 * wind-down that journals why the sweep stopped. The state every pair shares lives here.
 */
class SweepRecorder {
  private readonly paths: RunPaths;
  /** Cells done: measured, or unavailable for a reason another try cannot cure (unless --retry-unavailable asks for one). */
  private readonly done = new Map<CellId, CellOutcome>();
  private readonly startedBefore: Set<string>;
  private readonly finished = new Map<CellId, CellOutcome>();
  private stop: { reason: StopReason; detail: string } | undefined;

  constructor(private readonly o: RecordSweepOptions) {
    this.paths = runPaths(o.runDir);
    // A cell is done when it is measured, or unavailable for a reason another try cannot cure
    // (unless --retry-unavailable asks for one); a transient one is run again by the same command.
    const finalOutcome = (outcome: CellOutcome) =>
      outcome.status === 'measured' || (outcome.status === 'unavailable' && !outcome.transient && !o.retryUnavailable);
    for (const e of o.history) {
      if (e.type !== 'cell_finished') continue;
      if (finalOutcome(e.outcome)) this.done.set(e.cellId, e.outcome);
      else this.done.delete(e.cellId);
    }
    this.startedBefore = new Set(o.history.flatMap((e) => (e.type === 'session_started' ? [sessionKey(e.cellIds, e.sessionId)] : [])));
  }

  /** Every pair dispatched, then the wind-down. */
  async run(): Promise<SweepOutcome> {
    const queue = new PQueue({ concurrency: this.o.pairConcurrency ?? 1 });
    const results = this.o.pairs.map((pair) => queue.add(() => this.dispatchPair(pair)));
    await Promise.all(results);
    return this.windDown();
  }

  private readonly append = (event: SweepEventInput) => {
    const p = this.o.journal.append(event);
    // Folded synchronously (seq and time do not matter to the ceiling), before any await.
    this.o.gate.note({ ...event, seq: 0, version: 1, at: '' } as unknown as SweepEvent);
    return p;
  };

  /** A failure true of every remaining cell (one of `fatal`, or Docker found gone) closes the gate and stops the sweep. */
  private async stopIfGone(error: unknown, fatal: ReadonlyArray<abstract new (...args: never[]) => Error>): Promise<void> {
    const gone = fatal.some((c) => error instanceof c) ? (error as Error).message : await this.o.environmentGone?.();
    if (!gone) return;
    this.o.gate.close({ reason: 'fatal', detail: gone });
    throw new FatalStop(gone);
  }

  /** One pair, re-run on the hosts left while its host is lost (at most hostRetries times); a quota or fatal stop ends the sweep. */
  private async dispatchPair(pair: SweepPlanCell): Promise<void> {
    const o = this.o;
    try {
      const hostRetries = o.hostRetries ?? 0;
      for (let rerun = 1; ; rerun++) {
        try {
          await this.runPairCells(pair, rerun <= hostRetries);
          break;
        } catch (error) {
          if (!(error instanceof HostLost)) throw error;
          const lostIds = pair.arms.map((arm) => cellId({ cap: pair.cap, arm, repetition: pair.repetition })) as [CellId, ...CellId[]];
          await this.append({ type: 'sandbox_host_lost', cellIds: lostIds, detail: error.message, rerun });
          o.onHostLost?.(lostIds, error.message);
        }
      }
    } catch (error) {
      if (error instanceof QuotaStop) this.stop ??= { reason: 'quota', detail: error.message };
      else if (error instanceof FatalStop) this.stop ??= { reason: 'fatal', detail: error.message };
      else throw error;
    }
  }

  /** One pair: opened (its cells started, its sessions and event files), run through the engine and graded, then settled. */
  private async runPairCells(pair: SweepPlanCell, mayRetry: boolean): Promise<void> {
    const o = this.o;
    const cells = Object.fromEntries(pair.arms.map((arm) => [arm, cellId({ cap: pair.cap, arm, repetition: pair.repetition })])) as Record<Arm, CellId>;
    const ids = pair.arms.map((a) => cells[a]);
    if (ids.every((id) => this.done.has(id))) return;
    if (o.gate.closed) return;
    for (const id of ids) if (!this.done.has(id)) await this.append({ type: 'cell_started', cellId: id });
    const cellPaths = Object.fromEntries(pair.arms.map((arm) => [arm, this.paths.cell(cells[arm])])) as Record<Arm, ReturnType<RunPaths['cell']>>;
    const recorded = await readTranscriptsByArm(pair.arms, (a) => cellPaths[a].transcripts);
    const models = await o.modelsFor(pair.cap, pair.repetition);
    const sessions = new PairSessions({
      arms: pair.arms, cells, transcriptDirs: Object.fromEntries(pair.arms.map((a) => [a, cellPaths[a].transcripts])) as Record<Arm, string>,
      recorded, secrets: o.secrets, roster: models.roster, gate: o.gate, startedBefore: this.startedBefore, append: this.append,
    });
    const clients = Object.fromEntries(Object.entries(models.clients).map(([name, c]) => [name, sessions.wrap(c)]));
    // The pair's events from the start: its shared build once, each arm's own in its cell (see PairEventFiles).
    const eventFiles = await PairEventFiles.open({
      pairFile: this.paths.pair(pairId(pair.cap, pair.repetition)).events,
      cellFiles: Object.fromEntries(pair.arms.map((a) => [a, this.done.has(cells[a]) ? null : cellPaths[a].events])),
    });
    try {
      const workRoot = path.join(this.paths.cell(ids[0]!).root, 'work');
      // A pair re-run after a kill starts from clean workspaces; its calls come back from the transcripts.
      await rm(workRoot, { recursive: true, force: true });
      const engine: Omit<BuildOptions, 'forArm' | 'maxDepth'> = {
        goal: o.objective.goal, budget: o.budget,
        mergeAttempts: o.manifest.merge_attempts, ...(o.manifest.max_children !== undefined ? { maxChildren: o.manifest.max_children } : {}), roster: models.roster, clients, sandboxes: o.sandboxes, workRoot,
        runId: o.runId, limiter: o.limiter, secrets: o.secrets, cooldownMs: 1000, events: eventFiles.sink,
        sessionCeilings: { tokens: o.manifest.unit.token_ceiling, costUsd: o.manifest.unit.cost_ceiling_usd }, maxTurns: o.manifest.unit.max_turns,
        objective: { context: o.objective.context, criteria: o.objective.criteria },
        ...(o.requestLayout ? { requestLayout: o.requestLayout } : {}),
      };
      const finishCell = async (id: CellId, outcome: CellOutcome) => {
        // Its arm's events are on disk before the journal says it finished: a resume keeps the file of a finished cell.
        await eventFiles.flush();
        await this.append({ type: 'cell_finished', cellId: id, outcome });
        this.finished.set(id, outcome);
        // Within one invocation every outcome is final: a transient one waits for the next.
        if (outcome.status !== 'unmeasured') this.done.set(id, outcome);
      };
      const run: PairRun = { pair, cells, ids, cellPaths, sessions, finishCell };
      try {
        await runPair({ cell: { cap: pair.cap, repetition: pair.repetition }, arms: pair.arms, pairing: o.manifest.pairing, engine, grade: (tree, arm) => o.grade(tree, cells[arm]), hooks: this.pairHooks(run), ...(o.gradeMerges ? { gradeMerges: o.gradeMerges } : {}), ...(o.gradeLeaves ? { gradeLeaves: o.gradeLeaves } : {}) });
      } catch (error) {
        return await this.pairFailed(run, error, mayRetry);
      }
      if (ids.some((id) => o.gate.refusedIn.has(id))) return await this.settleRefused(ids);
      await sessions.close();
      if (!o.keepWorkspaces) await rm(workRoot, { recursive: true, force: true }).catch(() => undefined);
    } finally {
      // A write that failed is thrown by the flush before each cell_finished; closing only releases the files.
      await eventFiles.close().catch(() => undefined);
      // Every path releases the transcripts' files, a ceiling's or a failure's too (a thrown pair has settled every
      // session: the engine waits for all of a node's children before it throws); after a clean pair this does nothing.
      await sessions.close().catch(() => undefined);
    }
  }

  /** What the pair runner is told at each step of a pair: the build journalled, each arm's assembly checked, graded or settled. */
  private pairHooks({ pair, cells, ids, cellPaths, sessions, finishCell }: PairRun): PairHooks {
    const o = this.o;
    const arms = pair.arms;
    // Each arm's root workspace, kept when its grading fails.
    const workspaces = new Map<Arm, string>();
    return {
      built: async (built, served) => {
        // A build's sessions end here, so each is journalled finished before any merge; under
        // independent pairing also before the next arm's build, whose sessions reuse the same engine ids.
        await sessions.finishAll('completed');
        await journalBuild(this.append, served.map((a) => cells[a]), built);
      },
      assembled: async (arm, run) => {
        // The runner grades only once every arm has assembled, so every merge session has ended:
        // journalled finished here, its spend is in the measurement.
        await sessions.finishAll('completed');
        const id = cells[arm];
        // A refused session anywhere in the pair: the cells went unmeasured (ceiling) or were cut (stop); nothing is graded.
        if (ids.some((c) => o.gate.refusedIn.has(c))) return 'refused';
        // A cell that finished before a kill keeps its outcome; only its partner is finished now.
        if (this.done.has(id)) return 'finished before';
        workspaces.set(arm, run.root.workspace);
        const cp = cellPaths[arm];
        await mkdir(cp.root, { recursive: true });
        await writeFile(cp.result, `${JSON.stringify(run.root, null, 2)}\n`);
        await journalMerges(this.append, id, arm, run.root);
        return this.providerStopped(id, run.root, finishCell);
      },
      gradeFailed: async (arm, error) => {
        // Grading runs on the local daemon, never on the pool: no host of it can be the cause.
        await this.stopIfGone(error, [DockerUnavailableError, SandboxImageMissingError]);
        await keepTree(workspaces.get(arm)!, cellPaths[arm].tree);
        await finishCell(cells[arm], { status: 'unavailable', reason: 'ungradable', detail: (error as Error).message });
      },
      sessions: (arm) => spentOf(sessions.spent, arm, arms),
      measured: async ({ arm, root, grade, measurement }) => {
        const cp = cellPaths[arm];
        await this.append({ type: 'grading_recorded', cellId: cells[arm], grade });
        await writeFile(cp.grade, `${JSON.stringify(grade, null, 2)}\n`);
        if (o.keepWorkspaces) await keepTree(root.workspace, cp.tree);
        await finishCell(cells[arm], { status: 'measured', result: measurement });
      },
    };
  }

  /** An arm's tree stopped by its provider: the quota (the sweep stops) or a provider failure (the cell unavailable); else nothing. */
  private async providerStopped(id: CellId, root: NodeResult, finishCell: PairRun['finishCell']): Promise<'quota' | 'provider' | undefined> {
    const o = this.o;
    const quota = flatten(root).find((n) => n.stop?.code === 'model_quota_exhausted');
    if (quota) {
      o.gate.close({ reason: 'quota', detail: `the provider's quota ran out in ${quota.id}` });
      await finishCell(id, { status: 'unavailable', reason: 'quota', detail: `the provider's quota ran out in ${quota.id} (${quota.stop!.model ?? 'a model'})` });
      return 'quota';
    }
    const byProvider = flatten(root).find((n) => n.stop?.by === 'provider');
    if (byProvider) {
      const { code, model } = byProvider.stop!;
      const detail = `node ${byProvider.id} was stopped by its provider (${code}${model ? `, ${model}` : ''}): ${byProvider.reasons[0] ?? ''}`.trim();
      const transient = TRANSIENT_STOPS.has(code);
      // The provider failed for its whole patience: every later call would too, so nothing more is dispatched.
      if (transient) o.gate.close({ reason: 'unreachable', detail });
      await finishCell(id, { status: 'unavailable', reason: 'provider', detail, transient });
      return 'provider';
    }
    return undefined;
  }

  /** A pair whose run threw: a quota or fatal stop ends the sweep, a lost host re-runs the pair, a refusal settles it, a classified failure ends its cells. */
  private async pairFailed({ ids, sessions, finishCell }: PairRun, error: unknown, mayRetry: boolean): Promise<void> {
    const o = this.o;
    await sessions.finishAll('error');
    if (error instanceof FatalStop) throw error;
    if (error instanceof ModelQuotaExhaustedError) {
      o.gate.close({ reason: 'quota', detail: error.message });
      for (const id of ids) if (!this.done.has(id)) await finishCell(id, { status: 'unavailable', reason: 'quota', detail: error.message });
      throw new QuotaStop(error.message);
    }
    if (error instanceof SessionRefusedError || o.gate.closed) return this.settleRefused(ids);
    if (mayRetry && isRetryableSandboxError(error)) {
      await sessions.close();
      throw new HostLost((error as Error).message);
    }
    await this.stopIfGone(error, [DockerUnavailableError, SandboxImageMissingError, NoSandboxHostError]);
    // Only the harness's own classified failures end a cell; anything else is a bug, never read as a result.
    if (!(error instanceof RdhError)) throw error;
    const detail = error.message;
    for (const id of ids) if (!this.done.has(id)) await finishCell(id, { status: 'unavailable', reason: 'error', detail });
  }

  private async settleRefused(ids: CellId[]): Promise<void> {
    const closure = this.o.gate.closed;
    // A ceiling leaves the cells unmeasured (a later invocation with room may start them); a stop leaves them to the resume.
    if (closure?.reason === 'ceiling') {
      for (const id of ids.filter((i) => !this.done.has(i))) {
        await this.append({ type: 'cell_finished', cellId: id, outcome: { status: 'unmeasured', reason: 'ceiling' } });
        this.finished.set(id, { status: 'unmeasured', reason: 'ceiling' });
      }
    }
  }

  /** The wind-down: why the sweep stopped, and which of its cells are left unmeasured, journalled last. */
  private async windDown(): Promise<SweepOutcome> {
    const o = this.o;
    const all = o.pairs.flatMap((p) => p.arms.map((arm) => cellId({ cap: p.cap, arm, repetition: p.repetition })));
    const unmeasured = all.filter((id) => !this.done.has(id));
    const closure = o.gate.closed;
    const measured = all.filter((id) => this.done.get(id)?.status === 'measured').length;
    const final = this.stop ?? (closure ? { reason: closure.reason, detail: closure.detail } : { reason: 'completed' as const, detail: `${measured} of ${all.length} cells measured` });
    await this.append({ type: 'sweep_stopped', reason: final.reason, detail: final.detail, unmeasured });
    return { ...final, finished: this.finished, unmeasured };
  }
}

async function keepTree(from: string, to: string): Promise<void> {
  const { cp } = await import('node:fs/promises');
  await cp(from, to, { recursive: true, force: true }).catch(() => undefined);
}

async function journalBuild(append: (e: SweepEventInput) => Promise<unknown>, ids: CellId[], built: BuiltTree): Promise<void> {
  const cellIds = ids as [CellId, ...CellId[]];
  await append({ type: 'planning_recorded', cellIds, tree: built.leaves.map((l) => ({ id: l.id, depth: l.depth, verdict: l.verdict })) });
  for (const leaf of built.leaves) {
    await append({ type: 'leaf_built', cellIds, nodePath: leaf.id, leaf: { verdict: leaf.verdict, claims: leaf.claims, artifacts: leaf.artifacts.length, stop: leaf.stop?.by ?? null } });
  }
}

async function journalMerges(append: (e: SweepEventInput) => Promise<unknown>, id: CellId, arm: Arm, root: NodeResult): Promise<void> {
  for (const node of flatten(root)) {
    for (const a of node.merge?.attempts ?? []) {
      await append({ type: 'merge_attempt', cellId: id, nodePath: node.id, attempt: a.attempt, merge: { seamChecks: a.seamChecks, interfaceChanges: node.interfaceChanges.length } });
      await append({
        type: 'review', cellId: id, nodePath: node.id, attempt: a.attempt, kind: a.reviewer.kind,
        verdict: a.accept === true ? 'approve' : a.accept === false ? 'reject' : 'escalate',
        review: { findings: a.findings, reviewer: a.reviewer.model, arm },
      });
    }
  }
}
