import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { DockerSandboxProvider, ContainerShutdown, openDockerHostPool, type DockerHostPool, pruneSandboxes, assertDockerReachable, sessionLimiter, adaptiveSessionLimiter, type AdaptiveSessionLimiter, type RateControl } from '../../engine/index.js';
import { specObjective } from '../cell/spec-objective.js';
import { EXIT, UsageError, type ExitCode } from '../exit-codes.js';
import { nodeGradingsAsked, nodeGradingsOf } from '../grading/deliverable.js';
import { gradeTree } from '../grading/grader.js';
import type { CliIo } from '../io.js';
import { loadManifest, type LoadedManifest } from '../manifest/manifest-loader.js';
import { selectDepths, withMaxSessions } from '../manifest/manifest-staging.js';
import { concurrencyPlan, concurrencyText, type Concurrency } from '../manifest/concurrency.js';
import { allocationOf, repetitionsAt, type Manifest } from '../manifest/manifest.js';
import { checkProviderConfig, loadProviderConfig, locateProviderConfig, type LoadedProviderConfig } from '../providers/provider-config.js';
import { writeReport } from '../report/write-report.js';
import { dockerHostsFrom } from '../sandbox/docker-hosts.js';
import { sandboxImageTag } from '../sandbox/sandbox-image.js';
import { JournalMismatchError } from '../journal/journal-header.js';
import { openJournal, type Journal } from '../journal/journal.js';
import { createProgressDisplay } from './progress-display.js';
import { recordSweep, type PairModels, type SweepPlanCell } from './record-sweep.js';
import { sweepModels, type SimulatedPopulation, type SweepModels } from './sweep-models.js';
import { openRunFolder } from './run-opening.js';
import { engineRoster } from '../providers/sweep-roster.js';
import { paidFromTranscripts } from '../journal/paid.js';
import { runPaths, type CellId } from '../journal/run-folder.js';
import { ceilingBelowNextCell } from './ceilings.js';
import { SessionGate } from './session-gate.js';
import { readSweepJournal, type SweepEvent } from '../journal/sweep-events.js';
import { renderSummary, summarise, type RunSummary } from './run-summary.js';
import { endLine, exitOfEnd, sweepEnd } from './sweep-exit.js';
import { startRateWatch, type RateWatch } from './rate-watch.js';

/** Grading limits of a sweep cell (as `solve`'s: a correct program must never fail a case for waiting on a busy machine). */
export const SWEEP_GRADING = { caseTimeoutMs: 10_000, deadlineMs: 600_000 };

export interface RecordFlags {
  depths?: number[];
  /** Record only repetitions 1..N of each staged cap (a stage of a sequential design); the later ones wait for a later invocation. Default: all. */
  repetitions?: number;
  maxSessions?: number;
  out?: string;
  providers?: string;
  concurrency?: Concurrency;
  keepWorkspaces?: boolean;
  json?: boolean;
  allowCodeChange?: boolean;
  /** Run again the staged cells an earlier invocation left unavailable for a permanent reason. Default false: only transient ones are re-run. */
  retryUnavailable?: boolean;
  /**
   * `--docker-host` values (`URL[,capacity=N][,transport=bind|archive|auto][,tls=DIR]`), repeatable:
   * the sweep's sandboxes are spread over these daemons by free capacity. They replace the
   * provider configuration's `docker_hosts`. Default: that list; with neither, no pool at all,
   * and every sandbox runs on the one daemon DOCKER_HOST names (the grading always does).
   */
  dockerHost?: string[];
}

/** The sweep's grading of one tree; `caseIds` grades on those cases of the oracle only (tests only: tests/support/witness-oracle.ts). */
export type BaseGrade = (tree: string, other?: { caseIds?: readonly string[] }) => Promise<import('../grading/grading-report.js').GradeResult>;

/** What tests (and only tests) replace. */
export interface RecordSeams {
  /** Told the sweep's rate controllers and session limiter once built (adaptive bounds only), so a test can read their status. Default: nobody. */
  onAdaptive?: (o: { rateControls: readonly RateControl[]; limiter: AdaptiveSessionLimiter }) => void;
  /** The models of a pair; default: the sim population, or the provider configuration's clients. */
  modelsFor?: (cap: number, repetition: number, base: PairModels) => PairModels | Promise<PairModels>;
  /** Where default run folders go. Default `<repo>/runs`. */
  runsDir?: string;
  /** Aborting it is Ctrl-C. Default: SIGINT/SIGTERM of this process. */
  signal?: AbortSignal;
  /** The engine's sandboxes; default Docker. A test's host sandbox also skips the Docker preflight. */
  sandboxes?: import('../../engine/index.js').SandboxProvider;
  /** The clock of the model clients (their backoff, Retry-After sleeps and patience). Default: the system clock. */
  clientClock?: import('../../engine/index.js').Clock;
  /** Skips the one-token completion per pair (the sim needs none). */
  skipWarmup?: boolean;
  /** The engine's request layout (the caching test measures the old one beside the new). Default: the engine's. */
  requestLayout?: import('../../engine/index.js').RequestLayout;
  /** Called with each durable journal event (tests kill the sweep at a chosen event). */
  onEvent?: (event: SweepEvent) => void;
  /**
   * Grading override (tests make one cell ungradable). `base` is the sweep's own grading; a test
   * may hand it another oracle folder (the cases that decide a SIMULATED tree, tests/support/witness-oracle.ts).
   */
  grade?: (tree: string, cell: CellId, base: BaseGrade) => Promise<import('../grading/grading-report.js').GradeResult>;
}

/** Pairs of the invocation in recording order: caps ascending, then repetition; each pair holds its arms in order. */
export function recordingOrder(manifest: Manifest, caps: readonly number[], upTo = Infinity): SweepPlanCell[] {
  return [...caps].sort((a, b) => a - b).flatMap((cap) => Array.from({ length: Math.min(upTo, repetitionsAt(manifest, cap)) }, (_, i) => ({ cap, repetition: i + 1, arms: manifest.arms })));
}

export interface RecordResult {
  exit: ExitCode;
  runDir: string;
  summary: RunSummary;
}

/** Preflight, before anything is spent: Docker and the image, provider coverage and families, a one-token call per model served over HTTP. */
async function preflight(loaded: LoadedManifest, providers: LoadedProviderConfig | undefined, local: DockerSandboxProvider | undefined, models: SweepModels, skipWarmup: boolean): Promise<void> {
  if (providers) checkProviderConfig(loaded, providers);
  // This daemon's sandbox provider's own check: reachable, then the image (also the grading's).
  await local?.ensureReady();
  if (!skipWarmup) await models.warmUp();
}

/** Whether a manifest needs a provider configuration: any pair not served by the built-in population does. */
function needsProviders(manifest: Manifest): boolean {
  return manifest.executor.provider !== 'sim' || manifest.reviewer.provider !== 'sim';
}

/**
 * The record loop. `population` serves the manifest's `sim` pairs and names the sim corpus the
 * header pins: the command layer passes the built-in one (harness/commands/record.ts, whose
 * `runRecord` is this with it bound), so nothing under harness/record/ imports sim/.
 */
export async function recordRun(file: string, flags: RecordFlags, io: CliIo, population: SimulatedPopulation, seams: RecordSeams = {}): Promise<RecordResult> {
  const ready = await preflightRun(file, flags, io, population, seams);
  const run = await openRun(ready, flags, io, population, seams);
  const limits = sessionLimits(ready, flags, io, seams);
  const interrupts = watchInterrupts(ready, run, io, seams);
  const rates: { watch?: RateWatch } = {};
  let outcome: SweepOutcome;
  try {
    outcome = await dispatch(ready, run, limits, rates, flags, io, seams);
  } finally {
    await windDown(ready, run, rates, interrupts);
  }
  return finish(ready, run, outcome, interrupts, flags, io);
}

/** What the preflight settles before anything is written: the manifest, its providers and models, Docker and its hosts. */
interface Preflighted {
  loaded: LoadedManifest;
  manifest: Manifest;
  caps: number[];
  objective: Awaited<ReturnType<typeof specObjective>>;
  plan: ReturnType<typeof concurrencyPlan>;
  models: SweepModels;
  docker: Docker;
  hosts: ReturnType<typeof dockerHostsFrom>;
  shutdown: ContainerShutdown;
  /** This daemon's sandboxes (the grading's too), checked by the preflight. */
  local: DockerSandboxProvider;
  pool: DockerHostPool | undefined;
}

/** The run folder opened, its journal and display, and the gate every session passes. */
interface OpenedRun extends Awaited<ReturnType<typeof openRunFolder>> {
  gate: SessionGate;
  pairs: SweepPlanCell[];
  cellIds: CellId[];
  display: ReturnType<typeof createProgressDisplay>;
  journal: Journal<SweepEvent>;
}

/** The sweep's session limits: its concurrency as journalled, whether the rate controllers admit sessions, and the limiter. */
interface SessionLimits {
  concurrency: Concurrency;
  adaptive: boolean;
  limiter: ReturnType<typeof sessionLimiter>;
}

/** Ctrl-C and SIGTERM while the sweep runs: how many came, and what removes the run's containers. */
interface Interrupts {
  count: () => number;
  removeRunContainers: () => Promise<void>;
  release: () => void;
}

type SweepOutcome = Awaited<ReturnType<typeof recordSweep>>;

/** Step 1, preflight: everything that can refuse the run is checked before anything is written or spent. */
async function preflightRun(file: string, flags: RecordFlags, io: CliIo, population: SimulatedPopulation, seams: RecordSeams): Promise<Preflighted> {
  let loaded = await loadManifest(file);
  if (flags.maxSessions !== undefined) loaded = withMaxSessions(loaded, flags.maxSessions);
  const caps = flags.depths === undefined ? loaded.manifest.depth_caps : selectDepths(loaded, flags.depths);
  const manifest = loaded.manifest;
  const location = needsProviders(manifest) ? locateProviderConfig(flags.providers) : undefined;
  if (needsProviders(manifest) && !location) {
    throw new UsageError(`--providers: ${loaded.shownAs} names a real provider; pass --providers FILE or set RDH_PROVIDERS (copy manifests/providers.example.yaml to start)`);
  }
  const providers = location ? await loadProviderConfig(location.file, { via: location.via }) : undefined;
  if (providers) checkProviderConfig(loaded, providers);
  const objective = await specObjective(loaded.specDir);
  // Bounds (MIN-START-MAX) hand the live clients to one rate controller per provider key; a number keeps them unpaced.
  const plan = concurrencyPlan(flags.concurrency ?? manifest.concurrency);
  const bounds = plan.kind === 'adaptive' ? { min: plan.min, start: plan.start, max: plan.max } : undefined;
  const models = sweepModels({ manifest, specDir: loaded.specDir, population, ...(providers ? { providers } : {}), requirements: objective.requirements, ...(seams.clientClock ? { clock: seams.clientClock } : {}), ...(bounds ? { bounds } : {}) });
  // A cost ceiling that cannot see a model's calls is no ceiling: refused before anything is written.
  const unpriced = models.roster.filter((m) => m.prices === null);
  if (manifest.max_cost_usd !== undefined && unpriced.length > 0) {
    throw new UsageError(`max_cost_usd: ${loaded.shownAs} sets a cost ceiling, but ${unpriced.map((m) => `models.${m.name}`).join(' and ')} ${unpriced.length > 1 ? 'have' : 'has'} no price_usd_per_million in ${providers?.shownAs ?? 'the provider configuration'}; give ${unpriced.length > 1 ? 'them prices' : 'it a price'} (0 for a flat-rate server) or remove max_cost_usd`);
  }
  const docker = new Docker();
  // A sim-only sweep loads no provider configuration for its models, but an explicit one may still list its hosts.
  // Read before anything is checked, so a bad --docker-host is refused first (exit 2).
  const hostConfig = providers ?? (flags.providers && !flags.dockerHost?.length ? await loadProviderConfig(path.resolve(flags.providers), { via: '--providers' }) : undefined);
  const hosts = dockerHostsFrom(flags.dockerHost, hostConfig ? { hosts: hostConfig.config.docker_hosts, file: hostConfig.file } : undefined);
  // One shutdown for every container of the run, on every host, grading included.
  const shutdown = new ContainerShutdown();
  const local = new DockerSandboxProvider({ image: sandboxImageTag(), docker, shutdown });
  // Grading stays on this daemon (see docs/scale-out.md, "Several Docker hosts"), so it is checked with hosts too.
  await preflight(loaded, providers, seams.sandboxes ? undefined : local, models, seams.skipWarmup ?? false);
  let pool: DockerHostPool | undefined;
  if (hosts.length && !seams.sandboxes) {
    const opened = await openDockerHostPool({ hosts, image: sandboxImageTag(), shutdown });
    pool = opened.pool;
    for (const h of opened.preflight) io.err(`host ${h.url}: ${h.problem ? `not used (${h.problem})` : `image ${h.image}, ${h.transport} transport`}\n`);
  }
  return { loaded, manifest, caps, objective, plan, models, docker, hosts, shutdown, local, pool };
}

/** Step 2, opening the run: its folder (new or resumed), the session gate with what was paid, the display and the journal. */
async function openRun(ready: Preflighted, flags: RecordFlags, io: CliIo, population: SimulatedPopulation, seams: RecordSeams): Promise<OpenedRun> {
  const { loaded, manifest, models, docker, pool, caps } = ready;
  const opened = await openRunFolder({
    loaded, models, flags, io, simCorpusDir: population.corpusDir(path.basename(loaded.specDir)), runsDir: seams.runsDir, removeLeftoversOn: seams.sandboxes ? [] : [docker, ...(pool?.clients() ?? [])],
  });
  const { runDir, contents, history } = opened;

  // What every earlier invocation paid (every live call in the run's transcripts; journal/paid.ts),
  // whether or not max_cost_usd is set: the gate adds this invocation's live calls to it, and the
  // display and summary.json show that one figure.
  const paid = (await paidFromTranscripts(runPaths(runDir).cells, engineRoster(models.roster))).usd;
  const gate = new SessionGate(history, manifest.max_sessions, { ...(manifest.max_cost_usd !== undefined ? { maxCostUsd: manifest.max_cost_usd } : {}), paidUsd: paid });
  const pairs = recordingOrder(manifest, caps, flags.repetitions);
  const cellIds = pairs.flatMap((p) => p.arms.map((arm) => `cap${p.cap}-rep${p.repetition}-${arm}` as CellId));
  const display = createProgressDisplay(
    { title: manifest.name, simulated: models.simulated, cells: cellIds, manifestMaxSessions: loaded.folded.max_sessions?.manifest ?? manifest.max_sessions },
    history,
    { stream: { write: (t: string) => io.err(t) }, isTty: io.isTty && !flags.json, paidUsd: () => gate.spend.paidUsd },
  );
  const journal = await openJournal(contents, {
    onDurable: (event: SweepEvent) => {
      display.apply(event);
      seams.onEvent?.(event);
    },
  });
  return { ...opened, gate, pairs, cellIds, display, journal };
}

/** Step 3, the session gate's limits: how many sessions run at once, fixed or admitted from the rate controllers. */
function sessionLimits(ready: Preflighted, flags: RecordFlags, io: CliIo, seams: RecordSeams): SessionLimits {
  const { manifest, plan, models, pool } = ready;
  const concurrency = flags.concurrency ?? manifest.concurrency;
  // One limiter for the whole sweep: every cell, level and arm takes its session slots here. A
  // number keeps that many fixed; bounds admit sessions from what the rate controllers allow and
  // the measured duty cycle, never beyond the hosts' capacity (the pool's, else the bounds' max).
  // With no live client to pace (the in-process population only), bounds run fixed at their start.
  const adaptive = plan.kind === 'adaptive' && models.rateControls.length > 0;
  const hostCapacity = plan.kind === 'adaptive' ? (pool?.capacity ?? plan.max) : 0;
  const sessions = plan.kind === 'fixed' ? plan.sessions : plan.start;
  const adaptiveLimiter = adaptive ? adaptiveSessionLimiter({ controls: models.rateControls, hostCapacity: Math.max(1, hostCapacity), ...(seams.clientClock ? { clock: seams.clientClock } : {}) }) : null;
  const limiter = adaptiveLimiter ?? sessionLimiter(sessions);
  if (adaptiveLimiter) seams.onAdaptive?.({ rateControls: models.rateControls, limiter: adaptiveLimiter });
  if (pool) {
    // Capacity is each host's share of the sessions in flight; the limit on them is --concurrency.
    const answering = pool.status().filter((h) => !h.drained).length;
    if (adaptive) io.err(`hosts: ${answering} answering, capacity ${pool.capacity} in all, the most sessions at once (admitted from the rate controllers' limits, ${concurrencyText(concurrency)})\n`);
    else {
      const use = sessions < pool.capacity ? `; raise --concurrency to use all of it` : sessions > pool.capacity ? `; hosts take sessions beyond their capacity in proportion` : '';
      io.err(`hosts: ${answering} answering, capacity ${pool.capacity} in all, at most ${sessions} session${sessions === 1 ? '' : 's'} at once (--concurrency)${use}\n`);
    }
  }
  return { concurrency, adaptive, limiter };
}

/** Step 4, interrupts: Ctrl-C closes the gate and lets in-flight sessions finish; a second one abandons them. */
function watchInterrupts(ready: Preflighted, run: OpenedRun, io: CliIo, seams: RecordSeams): Interrupts {
  const { docker, pool, shutdown } = ready;
  const { gate, runId } = run;
  // The run's sandbox containers (its run id, owned by this process), removed on Ctrl-C: after a first one
  // the sessions finish and dispose of theirs, but a second one abandons them mid-command.
  const removeRunContainers = async () => {
    if (seams.sandboxes) return;
    await shutdown.close();
    for (const client of [docker, ...(pool?.clients() ?? [])]) {
      await pruneSandboxes(client, { all: true, runId, ownerPid: process.pid }).catch((error: Error) => io.err(`harness: could not remove the run's containers (${error.message}); run harness sandbox prune --run ${runId}\n`));
    }
  };
  // Ctrl-C: stop dispatching, let in-flight sessions finish; a second one abandons them.
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    gate.close({ reason: 'interrupted', detail: 'interrupted (Ctrl-C or SIGTERM); resume with the same command' });
    if (interrupts > 1) void removeRunContainers().finally(() => process.exit(EXIT.interrupted));
  };
  if (seams.signal) seams.signal.addEventListener('abort', onSignal, { once: true });
  else {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  const release = () => {
    if (seams.signal) seams.signal.removeEventListener('abort', onSignal);
    else {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // Interrupted: the run is winding down to exit 130, so a second Ctrl-C during the cleanup and
      // summary still removes the run's containers and exits 130, never dies mid-write on the default handler.
      if (interrupts > 0) {
        const again = () => void removeRunContainers().finally(() => process.exit(EXIT.interrupted));
        process.once('SIGINT', again);
        process.once('SIGTERM', again);
      }
    }
  };
  return { count: () => interrupts, removeRunContainers, release };
}

/** Step 5, dispatch: the journal's header (or a resume's start), then every staged cell through the session gate. */
async function dispatch(ready: Preflighted, run: OpenedRun, limits: SessionLimits, rates: { watch?: RateWatch }, flags: RecordFlags, io: CliIo, seams: RecordSeams): Promise<SweepOutcome> {
  const { loaded, manifest, caps, objective, models, docker, hosts, shutdown, local, pool } = ready;
  const { runDir, history, pins, runId, caveats, resume, gate, pairs, display, journal } = run;
  const { concurrency, adaptive, limiter } = limits;
  const sandboxes = seams.sandboxes ?? pool ?? local;
  const baseGrade: BaseGrade = (tree, other = {}) => gradeTree({ tree, spec: path.basename(loaded.specDir), specDir: loaded.specDir, runId, docker, shutdown, ...SWEEP_GRADING, ...other });

  // An adaptive sweep's controllers, watched for the display and journaled coalesced (rate-watch.ts); a fixed sweep shows none.
  const watchRates = () => {
    if (adaptive) rates.watch = startRateWatch(models.rateControls, { append: (e) => journal.append(e), onView: (views) => display.rates(views) });
  };

  await journal.append(
    resume
      ? { type: 'run_started', resume: true, depths: caps, concurrency, code: pins.code, harnessVersion: pins.harnessVersion, caveats }
      : { type: 'header', manifestName: manifest.name, pins },
  );
  if (!resume) await journal.append({ type: 'run_started', resume: false, depths: caps, concurrency, code: pins.code, harnessVersion: pins.harnessVersion, caveats });
  gate.note({ type: 'run_started' } as SweepEvent);
  if (loaded.folded.max_sessions) {
    const lowered = { type: 'ceiling_lowered' as const, maxSessions: loaded.folded.max_sessions.flag, manifestMaxSessions: loaded.folded.max_sessions.manifest };
    await journal.append(lowered);
    gate.note(lowered as unknown as SweepEvent);
  }
  watchRates();
  const tooLow = ceilingBelowNextCell(gate.ceiling, history, pairs, manifest);
  if (tooLow) gate.close({ reason: 'ceiling', detail: tooLow });
  return recordSweep({
    runDir, manifest, pairs, journal, history, limiter, gate, sandboxes, objective, requirements: objective.requirements,
    keepWorkspaces: flags.keepWorkspaces ?? false, budget: allocationOf(manifest), ...(await nodeGradingsOf(loaded.specDir, nodeGradingsAsked(manifest, models.simulated))), runId, secrets: models.keys, retryUnavailable: flags.retryUnavailable ?? false,
    modelsFor: async (cap, repetition) => {
      const base = await models.forPair(cap, repetition);
      return seams.modelsFor ? seams.modelsFor(cap, repetition, base) : base;
    },
    grade: (tree, cell) => (seams.grade ? seams.grade(tree, cell, baseGrade) : baseGrade(tree)),
    ...(seams.requestLayout ? { requestLayout: seams.requestLayout } : {}),
    // A lost host is drained by the pool, so each re-run lands on the hosts left; one per host bounds it.
    hostRetries: pool ? hosts.length : 0,
    onHostLost: (ids, detail) => io.err(`harness: ${detail.replace(/\.$/, '')}; re-running ${ids.join(', ')} on the hosts left (completed model calls are answered from the transcripts)\n`),
    environmentGone: async () => {
      try {
        await assertDockerReachable(docker);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
}

/** Step 6, the wind-down, whatever ended the sweep: the pool closed, the rates' last figures and the journal closed, the signals released. */
async function windDown(ready: Preflighted, run: OpenedRun, rates: { watch?: RateWatch }, interrupts: Interrupts): Promise<void> {
  ready.pool?.close();
  // Its final figures go in before the journal closes, after the sweep's last event.
  await rates.watch?.stop();
  await run.journal.close();
  run.display.stop();
  interrupts.release();
}

/** Step 7, the end: leftovers removed after an interrupt, the hosts' tallies, the summary, the end line and the report. */
async function finish(ready: Preflighted, run: OpenedRun, outcome: SweepOutcome, interrupts: Interrupts, flags: RecordFlags, io: CliIo): Promise<RecordResult> {
  const { manifest, models, pool } = ready;
  const { runDir, gate, caveats, cellIds } = run;
  if (outcome.reason === 'interrupted') await interrupts.removeRunContainers();
  if (pool) {
    for (const h of pool.status()) io.err(`host ${h.url}: ${h.created} sandbox${h.created === 1 ? '' : 'es'}${h.drained ? `, drained (${h.drainReason})` : ''}\n`);
  }
  // The summary: every cell of the whole journal, each with its latest outcome.
  const all = (await readSweepJournal(runPaths(runDir).journal)).events;
  const summary = summarise(runDir, manifest, all, gate, caveats, outcome, models.simulated, cellIds);
  await writeFile(runPaths(runDir).summary, `${JSON.stringify(summary, null, 2)}\n`);
  const shownRun = path.relative(process.cwd(), runDir) || '.';
  if (flags.json) io.out(`${JSON.stringify(summary, null, 2)}\n`);
  else io.out(renderSummary(summary, shownRun));
  const end = sweepEnd(outcome.reason, summary.counts);
  const line = endLine(end, summary.counts, outcome.detail, shownRun);
  if (line) io.err(`${line}\n`);
  // A sweep where nothing was measured is never published as zeros; the report is rebuilt from the journal at any time.
  if (summary.cells.some((c) => c.status === 'measured')) {
    try {
      const report = await writeReport(runDir, { shownAs: shownRun });
      if (!flags.json) io.out(`\nReport: ${path.join(shownRun, 'report')} (${report.files.length} files)\nRun folder: ${shownRun}\n`);
    } catch (error) {
      io.err(`harness: the sweep is recorded, but its report could not be written: ${(error as Error).message}\n  Run harness report ${shownRun} once that is fixed.\n`);
    }
  } else io.err(`harness: no cell of ${shownRun} is measured yet, so no report is written (it would only show zeros)\n`);
  return { exit: exitOfEnd(end), runDir, summary };
}

export { JournalMismatchError, type RunSummary };

