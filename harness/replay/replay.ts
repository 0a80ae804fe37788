import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import {
  DockerSandboxProvider,
  pruneSandboxes,
  sessionLimiter,
  type Arm,
  type SandboxProvider,
} from '../../engine/index.js';
import { specObjective } from '../cell/spec-objective.js';
import { EXIT, UsageError, type ExitCode } from '../exit-codes.js';
import { gradeTree } from '../grading/grader.js';
import type { GradeResult } from '../grading/grading-report.js';
import type { CliIo } from '../io.js';
import { count } from '../internal/figures.js';
import { shownPath } from '../internal/data-file.js';
import { REPO_ROOT, oracleDir } from '../paths.js';
import { nodeGradingsAsked, nodeGradingsOf } from '../grading/deliverable.js';
import { engineRoster, isSimulatedRoster, sweepRoster } from '../providers/sweep-roster.js';
import { readRecordedRun, type RecordedRun } from '../report/read-run.js';
import { sandboxImageTag } from '../sandbox/sandbox-image.js';
import { corpusDir } from '../sim/corpus-files.js';
import { readCodeIdentity } from '../journal/code-identity.js';
import { digestFolder } from '../journal/folder-digest.js';
import { comparePins, readHarnessVersion, type JournalPins } from '../journal/journal-header.js';
import { SWEEP_GRADING, type BaseGrade } from '../record/record.js';
import { cellId, parseCellId, runPaths, type CellId } from '../journal/run-folder.js';
import type { CellOutcome } from '../journal/sweep-events.js';
import { readTranscriptsByArm } from '../journal/transcripts.js';
import { fixedSessions } from '../manifest/concurrency.js';
import { canonicalForm, shown, treeDifference } from './replay-compare.js';
import { recordedLayout } from './replay-layout.js';
import { replayPair, type PairReplay } from './replay-pair.js';

/**
 * The fixed tree budget of journals recorded before the per-node allocations were pinned (a
 * SIMULATED sweep's: a real one from then cannot be replayed, its roster was not pinned). It
 * lives here, and only here, so such a journal replays with the budget of its time.
 */
const LEGACY_TREE_BUDGET = 20_000_000;

/**
 * `harness replay runs/NAME [--cell ID]`: re-executes a recorded run's measured cells in real
 * Docker with every model call answered from its transcripts (strict: a request the record
 * does not hold is a divergence, never a live call; no model client exists), grades each
 * root tree as record did, and compares, canonically (replay-compare.ts), with what the run
 * recorded: the node tree (result.json: every node, its checks and their results), the grade
 * the journal holds, and the cell's measurement in the journal. Prints `reproduced` per cell
 * or the first divergence. Exit 0 when every replayed cell reproduces, 7 when one diverges.
 *
 * Decisions:
 * - Pins: the spec, oracle and sim corpus must be the recorded ones, else refused (exit 2):
 *   they decide what a leaf writes and how it is graded, so a replay on others proves nothing.
 *   Other code is refused too (exit 2) unless `--allow-code-change`, which replays anyway with
 *   a CODE CHANGED caveat: a divergence may then be the code's, not the record's.
 * - The simulated population is never constructed: the sim's answers are in the transcripts
 *   like any model's, so "zero model calls" holds for the sim as for a real provider.
 * - The roster comes from the journal's pins (each model's id, provider name, family, rung,
 *   tier, roles, prices and fallbacks; never a key), so a run recorded on real providers
 *   replays without its provider configuration and opens no connection. A real-provider
 *   journal from before the roster was pinned is refused (exit 2): its roster is not on record.
 */

export interface ReplayFlags {
  /** Replay only this cell (its pair's shared build is replayed with it). Default: every measured cell. */
  cell?: string;
  /** Print the result as JSON. Default false. */
  json?: boolean;
  /** Replay a run recorded on other code, with a caveat. Default false. */
  allowCodeChange?: boolean;
}

/** What tests (and only tests) replace. */
export interface ReplaySeams {
  /** The engine's sandboxes; default Docker (a test's replacement also skips the Docker preflight). */
  sandboxes?: SandboxProvider;
  /** Grading override; `base` is the oracle in Docker, as record grades, and takes another oracle folder as record's does. */
  grade?: (tree: string, base: BaseGrade) => Promise<GradeResult>;
}

export type CellReplayStatus = 'reproduced' | 'diverged' | 'not replayed';

export interface CellReplay {
  cell: CellId;
  status: CellReplayStatus;
  /** Where and how it diverged, or why it was not replayed: lines for a person. */
  detail: string[];
}

export interface ReplayResult {
  exit: ExitCode;
  run: string;
  cells: CellReplay[];
  /** True when the recorded roster is a SIMULATED one (sweep-roster.ts's one definition). */
  simulated: boolean;
  /** Model calls answered from the transcripts, and made live (always 0: a live call is impossible). */
  calls: { served: number; live: number };
  caveats: string[];
}

/** The latest outcome of every cell the journal finished, in journal order. */
function outcomes(run: RecordedRun): Map<CellId, CellOutcome> {
  const latest = new Map<CellId, CellOutcome>();
  for (const e of run.events) if (e.type === 'cell_finished') latest.set(e.cellId, e.outcome);
  return latest;
}

/** The pins this checkout would write for the same run, for comparison with the recorded ones. */
async function currentPins(stored: JournalPins, runDir: string): Promise<JournalPins> {
  const folder = async (pinned: JournalPins['spec'], dir: string) => ({ path: pinned.path, content: await digestFolder(dir) });
  const specDir = path.resolve(REPO_ROOT, stored.spec.path);
  return {
    ...stored,
    spec: await folder(stored.spec, specDir),
    oracle: await folder(stored.oracle, oracleDir(path.basename(specDir))),
    // The corpus of the spec's task: its own folder, harness/sim/corpus/<task>/.
    simCorpus: await folder(stored.simCorpus, corpusDir(path.basename(specDir))),
    code: await readCodeIdentity(REPO_ROOT, { outputDirs: [path.join(REPO_ROOT, 'runs'), runDir] }),
    harnessVersion: await readHarnessVersion(REPO_ROOT),
  };
}

/** Refuses a replay whose spec, oracle, corpus or (without --allow-code-change) code differ from the recording's; returns its caveats. */
async function checkPins(run: RecordedRun, runDir: string, allowCodeChange: boolean): Promise<string[]> {
  const stored = run.header.pins;
  const result = comparePins(stored, await currentPins(stored, runDir), { allowCodeChange });
  // comparePins words its refusals for a resume; a replay keeps the what and gives its own fix.
  const what = (message: string) => message.replace(/since this journal began/, `since ${run.shownAs} was recorded`).replace(/\):\s.*$/, ')');
  if (!result.ok) {
    const fix = result.field === 'code' || result.field === 'harnessVersion'
      ? `check out the recorded commit${stored.code.state === 'git' ? ` ${stored.code.commit.slice(0, 12)}` : ''} to replay it exactly, or pass --allow-code-change to replay on this code with a caveat`
      : `check out the recorded commit${stored.code.state === 'git' ? ` ${stored.code.commit.slice(0, 12)}` : ''}: a replay on another ${result.field === 'simCorpus' ? 'sim corpus' : result.field} proves nothing`;
    throw new UsageError(`${what(result.message)}: ${fix}`);
  }
  return result.caveats.length > 0 ? [`CODE CHANGED: ${run.shownAs} was recorded on other code and replayed on this one (--allow-code-change); a divergence may come from the code, not the record.`] : [];
}

/** The cells to replay: every measured one, or the one --cell names (refused, naming the choices, when it cannot be replayed). */
function cellsToReplay(run: RecordedRun, latest: Map<CellId, CellOutcome>, wanted: string | undefined): CellId[] {
  const measured = [...latest.entries()].filter(([, o]) => o.status === 'measured').map(([id]) => id);
  const choices = measured.length > 0 ? `choose one of ${measured.join(', ')}` : 'it has no measured cell';
  if (wanted === undefined) {
    if (measured.length === 0) throw new UsageError(`${run.shownAs} has no measured cell, so there is nothing to replay; record one first (harness record)`);
    return measured;
  }
  if (!parseCellId(wanted)) throw new UsageError(`--cell ${JSON.stringify(wanted)} is not a cell id (cap<N>-rep<N>-gated|ungated); ${choices}`);
  const outcome = latest.get(wanted);
  if (!outcome) throw new UsageError(`--cell ${wanted}: ${run.shownAs} holds no such cell; ${choices}`);
  if (outcome.status !== 'measured') throw new UsageError(`--cell ${wanted} was not measured in ${run.shownAs} (${outcome.status}: ${outcome.reason}), so there is nothing to reproduce; ${choices}`);
  return [wanted];
}

/** Pairs in recording order (caps ascending, then repetition), each with the arms to replay. */
function pairsToReplay(wanted: readonly CellId[]): Array<{ cap: number; repetition: number; arms: Arm[] }> {
  const byPair = new Map<string, { cap: number; repetition: number; arms: Arm[] }>();
  for (const id of wanted) {
    const key = parseCellId(id)!;
    const pairKey = `${key.cap}-${key.repetition}`;
    const entry = byPair.get(pairKey) ?? { cap: key.cap, repetition: key.repetition, arms: [] };
    entry.arms.push(key.arm);
    byPair.set(pairKey, entry);
  }
  return [...byPair.values()].sort((a, b) => a.cap - b.cap || a.repetition - b.repetition);
}

/** The replay's sandboxes: a test's, else Docker's after its own readiness check (Docker answers, the sandbox image is there). */
async function replaySandboxes(docker: Docker, seams: ReplaySeams): Promise<SandboxProvider> {
  if (seams.sandboxes) return seams.sandboxes;
  const provider = new DockerSandboxProvider({ image: sandboxImageTag(), docker });
  await provider.ensureReady();
  return provider;
}

export async function runReplay(dir: string, flags: ReplayFlags, io: CliIo, seams: ReplaySeams = {}): Promise<ReplayResult> {
  const runDir = path.resolve(dir);
  const run = await readRecordedRun(runDir, dir);
  const { manifest } = run;
  const pinned = run.header.pins;
  if (!pinned.roster && (manifest.executor.provider !== 'sim' || manifest.reviewer.provider !== 'sim')) {
    throw new UsageError(`${run.shownAs} was recorded on real providers before the journal pinned its roster (its prices, roles and tiers are not on record), so it cannot be rebuilt; record it again with this harness to replay it`);
  }
  const latest = outcomes(run);
  const wanted = cellsToReplay(run, latest, flags.cell);
  const caveats = await checkPins(run, runDir, flags.allowCodeChange ?? false);

  const docker = new Docker();
  const sandboxes = await replaySandboxes(docker, seams);
  const specDir = path.resolve(REPO_ROOT, run.header.pins.spec.path);
  const objective = await specObjective(specDir);
  const runId = `replay-${run.name}`;
  // Merges: the same rule as the recording's, the pinned manifest's choice, else on for a SIMULATED roster.
  // Leaves: graded when the recording graded them; a journal from before grade_leaves holds no leaf
  // grades, and grading its leaves now would read as a divergence of the measurement.
  const { merges } = nodeGradingsAsked(manifest, isSimulatedRoster(pinned.roster ?? sweepRoster(manifest, undefined)));
  const leaves = run.events.some((e) => e.type === 'cell_finished' && e.outcome.status === 'measured' && e.outcome.result.leaves.some((l) => l.grade !== undefined));
  const nodeGradings = await nodeGradingsOf(specDir, { merges, leaves });
  const base: BaseGrade = (tree, other = {}) => gradeTree({ tree, spec: path.basename(specDir), specDir, runId, docker, ...SWEEP_GRADING, ...other });
  const grade = (tree: string) => (seams.grade ? seams.grade(tree, base) : base(tree));
  // One limit on sessions in flight for the whole replay, as record has.
  const limiter = sessionLimiter(fixedSessions(manifest.concurrency));
  // The roster as the journal pins it (never a provider file, never a key); a SIMULATED journal from before it was pinned is the sim's own.
  const roster = pinned.roster ? engineRoster(pinned.roster) : engineRoster(sweepRoster(manifest, undefined));
  const endpoints = [...new Set(roster.map((m) => m.endpoint))];
  const budget = pinned.budget ?? LEGACY_TREE_BUDGET;
  const paths = runPaths(runDir);
  const gradeEvents = new Map<CellId, GradeResult>();
  for (const e of run.events) if (e.type === 'grading_recorded') gradeEvents.set(e.cellId, e.grade);

  const ordered = pairsToReplay(wanted);

  const results: CellReplay[] = [];
  const calls = { served: 0, live: 0 };
  const scratch = await mkdtemp(path.join(tmpdir(), 'rdh-replay-'));
  try {
    for (const pair of ordered) {
      const arms = manifest.arms.filter((a) => pair.arms.includes(a));
      const ids = manifest.arms.map((arm) => cellId({ cap: pair.cap, arm, repetition: pair.repetition }));
      if (!flags.json) io.err(`replaying ${arms.map((arm) => cellId({ cap: pair.cap, arm, repetition: pair.repetition })).join(', ')}…\n`);
      const recorded = await readTranscriptsByArm(manifest.arms, (arm) => paths.cell(cellId({ cap: pair.cap, arm, repetition: pair.repetition })).transcripts);
      // The layout the pair was recorded in (every arm's transcripts' format version), so the engine asks what the record holds.
      const requestLayout = recordedLayout(Object.values(recorded), run.shownAs);
      const workRoot = path.join(scratch, 'cells', ids[0]!, 'work');
      await mkdir(workRoot, { recursive: true });
      const replayed = await replayPair({
        manifest, cap: pair.cap, repetition: pair.repetition, arms, recorded, roster, endpoints, sandboxes, objective,
        budget, workRoot, runId, limiter, grade, ...nodeGradings, ...(requestLayout ? { requestLayout } : {}),
      });
      calls.served += replayed.calls.served;
      calls.live += replayed.calls.live;
      for (const arm of arms) {
        const id = cellId({ cap: pair.cap, arm, repetition: pair.repetition });
        results.push(await judgeCell(id, arm, replayed, { run, latest, gradeEvents, objective, roster, resultFile: paths.cell(id).result }));
      }
      await rm(path.join(scratch, 'cells'), { recursive: true, force: true });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    // After a divergence the pair's other sessions are refused and wind down; nothing of theirs may outlive the command.
    if (!seams.sandboxes) await pruneSandboxes(docker, { all: true, runId, ownerPid: process.pid }).catch(() => undefined);
  }

  const diverged = results.some((c) => c.status !== 'reproduced');
  const result: ReplayResult = { exit: diverged ? EXIT.replayDiverged : EXIT.ok, run: run.shownAs, cells: results, simulated: isSimulatedRoster(pinned.roster ?? sweepRoster(manifest, undefined)), calls, caveats };
  io.out(flags.json ? `${JSON.stringify(result, null, 2)}\n` : renderReplay(result));
  return result;
}

interface JudgeContext {
  run: RecordedRun;
  latest: Map<CellId, CellOutcome>;
  gradeEvents: Map<CellId, GradeResult>;
  objective: Awaited<ReturnType<typeof specObjective>>;
  roster: ReturnType<typeof engineRoster>;
  resultFile: string;
}

/** One cell's verdict: the first divergence of its pair's calls, then its tree, grade, measurement and unasked calls, in that order. */
async function judgeCell(id: CellId, arm: Arm, replayed: PairReplay, c: JudgeContext): Promise<CellReplay> {
  const d = replayed.divergence;
  if (d) {
    if (!d.cells.includes(id)) return { cell: id, status: 'not replayed', detail: [`its pair stopped at the divergence in ${d.cells.join(', ')}`] };
    return {
      cell: id,
      status: 'diverged',
      detail: [
        `at node ${d.node} (${d.role}, attempt ${d.attempt}), session ${d.sessionId}, call ${d.call}: ${d.reason}`,
        ...(d.message ? [`${d.message.message}`, `expected: ${d.message.expected}`, `got:      ${d.message.got}`] : []),
      ],
    };
  }
  if (replayed.error) throw replayed.error;
  const mine = replayed.arms[arm]!;
  const recordedTree = await readFile(c.resultFile, 'utf8').then(JSON.parse, (error: NodeJS.ErrnoException) => {
    throw new UsageError(`${shownPath(c.resultFile)}: cannot read the recorded node tree (${error.code ?? error.message}); restore the run folder as harness record wrote it`);
  });
  const differs = (what: string, expected: unknown, got: unknown): CellReplay | undefined => {
    const diff = treeDifference(canonicalForm(expected), canonicalForm(got));
    if (!diff) return undefined;
    const where = diff.node !== undefined ? `at node ${diff.node}, ${diff.path}` : `${what}: ${diff.path}`;
    return { cell: id, status: 'diverged', detail: [`${where} (${what})`, `expected: ${shown(diff.expected)}`, `got:      ${shown(diff.got)}`] };
  };
  const outcome = c.latest.get(id);
  const found =
    differs('the node tree, result.json', recordedTree, mine.root) ??
    differs('the grade in the journal', c.gradeEvents.get(id), mine.grade) ??
    differs('the measurement in the journal', outcome?.status === 'measured' ? outcome.result : outcome, mine.measurement);
  if (found) return found;
  const unasked = replayed.unasked[0];
  if (unasked) {
    return { cell: id, status: 'diverged', detail: [`session ${unasked.sessionId}: the record holds ${unasked.recorded} call(s), the replay asked ${unasked.asked}`] };
  }
  return { cell: id, status: 'reproduced', detail: [] };
}

export function renderReplay(r: ReplayResult): string {
  const width = Math.max(...r.cells.map((c) => c.cell.length));
  const lines = [`harness replay: ${r.run}${r.simulated ? ' (SIMULATED)' : ''}, ${r.cells.length} cell(s); model calls: ${count(r.calls.served)} served from the transcripts, ${count(r.calls.live)} live`];
  for (const c of r.cells) {
    lines.push(`  ${c.cell.padEnd(width)}  ${c.status === 'diverged' ? 'DIVERGED' : c.status}${c.detail[0] ? ` ${c.detail[0]}` : ''}`);
    for (const more of c.detail.slice(1)) lines.push(`  ${' '.repeat(width)}    ${more}`);
  }
  lines.push(...r.caveats.map((c) => `  ${c}`));
  return `${lines.join('\n')}\n`;
}
