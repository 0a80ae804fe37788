import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import {
  DockerSandboxProvider,
  JsonlDirectory,
  JsonlFile,
  MemoryEventSink,
  SecretCatalogue,
  TranscriptRecorder,
  adaptiveSessionLimiter,
  sessionLimiter,
  systemClock,
  type Arm,
  type EngineEvent,
  type ModelClient,
  type ModelSpec,
  type NodeResult,
  type RateControl,
  type SessionCeilings,
} from '../../engine/index.js';
import { oracleGrader, runPair } from '../cell/pair-run.js';
import { specObjective, type SpecObjective } from '../cell/spec-objective.js';
import { UsageError } from '../exit-codes.js';
import { concurrencyArg, positiveInt } from '../internal/cli-parsers.js';
import { concurrencyPlan, fixedSessions, type Concurrency } from '../manifest/concurrency.js';
import type { CliIo } from '../io.js';
import { loadManifest } from '../manifest/manifest-loader.js';
import { allocationOf } from '../manifest/manifest.js';
import { REPO_ROOT } from '../paths.js';
import { plantedText } from '../sim/sim-params.js';
import { configuredKeys, providerClients, rosterFromConfig, type SimPairName } from '../providers/engine-roster.js';
import { loadProviderConfig, locateProviderConfig } from '../providers/provider-config.js';
import { sandboxImageTag } from '../sandbox/sandbox-image.js';
import { DEFAULT_SIM_PAIRS, simSetup } from '../sim/population/sim-setup.js';
import { renderPair, renderSolve, type ArmReport } from './solve-report.js';

interface SolveFlags {
  maxDepth: number;
  budget?: number;
  providers?: string;
  out?: string;
  concurrency: Concurrency;
  json: boolean;
  spec?: string;
  arm: Arm | 'both';
  sim: boolean;
  seed?: number;
  manifest?: string;
}

/** The manifest whose `simulated:` block `--sim` plants when none is named. */
export const DEFAULT_SIM_MANIFEST = path.join(REPO_ROOT, 'manifests', 'smoke.yaml');
/**
 * Grading limits for one solve: more generous than a sweep's, because one interactive tree is
 * graded while the machine may be busy; a correct program must never fail a case for waiting.
 */
const SOLVE_GRADING = { caseTimeoutMs: 10_000 };
/** The grader of a free goal: there is no oracle, and the runner never calls it (every arm is left ungraded). */
const noOracle = () => Promise.reject(new Error('a free goal has no oracle to grade it'));

function armChoice(value: string): Arm | 'both' {
  if (value === 'gated' || value === 'ungated' || value === 'both') return value;
  throw new InvalidArgumentError(`expected gated, ungated or both, got ${JSON.stringify(value)}.`);
}

function seedValue(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected a whole number of at least 0, got ${JSON.stringify(value)}.`);
  return n;
}

interface Models {
  roster: ModelSpec[];
  clients: Record<string, ModelClient>;
  keys: string[];
  mergeAttempts: number;
  sessionCeilings?: SessionCeilings;
  maxTurns?: number;
  /** Per-node allocations: the manifest's `budget` with --sim, else the manifest schema's documented defaults. */
  allocation: { leafTokens: number; assemblyTokens: number };
  simulated: { planted: string; models: string[] } | null;
  /** The manifest's max_children with --sim: the engine cuts every plan to it, and the sim plants the tree it keeps. */
  maxChildren?: number;
  /** One per provider key when --concurrency gives bounds; none otherwise. */
  rateControls?: RateControl[];
}

/** The built-in simulated population, planted from a manifest's `simulated:` block. */
async function simulatedModels(flags: SolveFlags, objective: SpecObjective, specDir: string): Promise<Models> {
  const loaded = await loadManifest(flags.manifest ?? DEFAULT_SIM_MANIFEST);
  const m = loaded.manifest;
  const params = { ...m.simulated, ...(flags.seed !== undefined ? { seed: flags.seed } : {}) };
  // A pair the manifest serves with the sim keeps its id and family; any other pair is simulated under the default names.
  const named = (pair: typeof m.executor, fallback: SimPairName) => (pair.provider === 'sim' ? { model: pair.model, family: pair.family ?? fallback.family } : fallback);
  const setup = await simSetup({
    params, maxDepth: flags.maxDepth, mergeAttempts: m.merge_attempts, requirements: objective.requirements, specDir,
    ...(m.max_children !== undefined ? { maxChildren: m.max_children } : {}),
    pairs: { executor: named(m.executor, DEFAULT_SIM_PAIRS.executor), reviewer: named(m.reviewer, DEFAULT_SIM_PAIRS.reviewer) },
  });
  return {
    roster: setup.roster, clients: setup.clients, keys: [], mergeAttempts: m.merge_attempts,
    sessionCeilings: { tokens: m.unit.token_ceiling, costUsd: m.unit.cost_ceiling_usd }, maxTurns: m.unit.max_turns, allocation: allocationOf(m),
    simulated: { planted: plantedText(params), models: setup.roster.map((s) => `${s.model} [${s.family}] ${s.roles?.includes('merger') ? 'executor' : 'reviewer'}`) },
    ...(m.max_children !== undefined ? { maxChildren: m.max_children } : {}),
  };
}

/** Real models from a provider configuration. */
async function configuredModels(flags: SolveFlags): Promise<Models> {
  const location = locateProviderConfig(flags.providers);
  if (!location) {
    throw new UsageError('--providers: solve calls real models and needs a provider configuration; pass --providers FILE or set RDH_PROVIDERS (copy manifests/providers.example.yaml to start), or run the built-in simulated population with --sim.');
  }
  const providers = await loadProviderConfig(location.file, { via: location.via });
  // A free roster: a long server-requested wait falls back to another model rather than stall the tree.
  const plan = concurrencyPlan(flags.concurrency);
  const bounds = plan.kind === 'adaptive' ? { min: plan.min, start: plan.start, max: plan.max } : undefined;
  const { clients, rateControls } = providerClients(providers, process.env, { serverWaits: 'max_server_wait', ...(bounds ? { bounds } : {}) });
  return { allocation: allocationOf({}), roster: rosterFromConfig(providers), clients, rateControls, keys: configuredKeys(providers), mergeAttempts: 2, simulated: null };
}

/** Bounds with live clients to pace: admitted from the controllers, at most MAX (the one local Docker host); else fixed. */
function solveLimiter(concurrency: Concurrency, rateControls: readonly RateControl[]) {
  const plan = concurrencyPlan(concurrency);
  if (plan.kind === 'adaptive' && rateControls.length) return adaptiveSessionLimiter({ controls: rateControls, hostCapacity: plan.max });
  return sessionLimiter(fixedSessions(concurrency));
}

export function solveCommand(io: CliIo): Command {
  return new Command('solve')
    .description('run the recursive engine on a goal or a spec in the sandbox; prints the tree, the verdict, the oracle\'s score and what it cost')
    .argument('[goal]', 'the goal, in one line (optional with --spec, which supplies it)')
    .option('--spec <dir>', 'a spec folder (SPEC.md, requirements.yaml): the objective every node is handed; the root tree is graded with its held-out oracle')
    .option('--arm <arm>', 'who judges every merge: gated (an independent reviewer), ungated (a self-review whose verdict is not used), or both (built once, each arm merges)', armChoice, 'gated')
    .option('--sim', 'use the built-in SIMULATED agent population (no key, no network) instead of a provider configuration', false)
    .option('--seed <n>', 'with --sim: the seed of the simulated population (default: the manifest\'s)', seedValue)
    .option('--manifest <file>', 'with --sim: the manifest whose simulated: block sets the planted rates (default: manifests/smoke.yaml)')
    .option('--max-depth <n>', 'planning levels allowed (a cap of N fully used puts leaves at depth N)', positiveInt, 2)
    .option('--budget <tokens>', 'one token allocation for the whole tree, shared out as it splits (default: per-node allocations, each leaf and each assembling node its own: with --sim the manifest\'s budget:, else the manifest defaults)', positiveInt)
    .option('--providers <file>', 'provider configuration (default: $RDH_PROVIDERS)')
    .option('--out <dir>', 'where the trace is saved (default: runs/solve-<time>)')
    .option('--concurrency <n|min-start-max>', 'sessions in flight at once, across every level and both arms: N keeps N fixed; MIN-START-MAX (e.g. 4-20-100) adapts calls in flight per provider key and admits sessions from them, at most MAX (one Docker host)', concurrencyArg, 4)
    .option('--json', 'print the result as JSON', false)
    .action(async (goalArg: string | undefined, flags: SolveFlags) => {
      if (goalArg !== undefined && (!goalArg.trim() || goalArg.includes('\n'))) throw new UsageError('<goal>: give the goal as one non-empty line, in quotes.');
      if (!flags.sim && (flags.seed !== undefined || flags.manifest !== undefined)) throw new UsageError(`${flags.seed !== undefined ? '--seed' : '--manifest'}: only with --sim, which takes its planted rates from a manifest; add --sim, or leave it out.`);
      if (flags.sim && goalArg !== undefined) throw new UsageError('<goal>: the simulated population builds the spec it was written for; leave the goal out (--spec or the manifest names the spec).');
      const specDir = flags.spec ?? (flags.sim ? (await loadManifest(flags.manifest ?? DEFAULT_SIM_MANIFEST)).specDir : undefined);
      if (goalArg === undefined && !specDir) throw new UsageError('<goal>: give a goal in one line, or --spec DIR to build a specification.');
      const objective = specDir ? await specObjective(path.resolve(specDir)) : null;
      const goal = goalArg ?? objective!.goal;
      const models = flags.sim ? await simulatedModels(flags, objective!, path.resolve(specDir!)) : await configuredModels(flags);

      const out = path.resolve(flags.out ?? path.join(REPO_ROOT, 'runs', `solve-${new Date().toISOString().replace(/[:.]/g, '-')}`));
      await mkdir(out, { recursive: true });
      // Every configured key is redacted from errors, events and transcripts, even when a server echoes it.
      const transcripts = new TranscriptRecorder(new JsonlDirectory(path.join(out, 'transcripts')), systemClock, new SecretCatalogue(models.keys));
      const clients = Object.fromEntries(Object.entries(models.clients).map(([name, client]) => [name, transcripts.wrap(client)]));
      const eventsFile = new JsonlFile(path.join(out, 'events.jsonl'));
      const memory = new MemoryEventSink();
      const events = {
        emit(event: EngineEvent) {
          memory.emit(event);
          void eventsFile.append(event);
          if (io.isTty && event.type === 'verdict') io.err(`  ${event.arm ?? 'build'}  ${event.nodeId}  ${event.verdict}\n`);
        },
      };
      const sandboxes = new DockerSandboxProvider({ image: sandboxImageTag() });
      await sandboxes.ensureReady();
      const arms: Arm[] = flags.arm === 'both' ? ['gated', 'ungated'] : [flags.arm];
      const redact = (value: unknown) => new SecretCatalogue(models.keys).redactDeep(value);
      try {
        const engine = {
          goal, budget: flags.budget ?? models.allocation, limiter: solveLimiter(flags.concurrency, models.rateControls ?? []),
          mergeAttempts: models.mergeAttempts, ...(models.maxChildren !== undefined ? { maxChildren: models.maxChildren } : {}), roster: models.roster, clients, sandboxes, workRoot: path.join(out, 'work'), runId: path.basename(out), events, secrets: models.keys,
          ...(models.sessionCeilings ? { sessionCeilings: models.sessionCeilings } : {}), ...(models.maxTurns ? { maxTurns: models.maxTurns } : {}),
          ...(objective ? { objective: { context: objective.context, criteria: objective.criteria } } : {}),
        };
        if (!objective) {
          // A free goal has no oracle: the pair runs as any other, and every arm is left ungraded.
          const pair = await runPair({ cell: { cap: flags.maxDepth, repetition: 1 }, arms, pairing: 'shared', engine, grade: noOracle, hooks: { assembled: async () => 'no oracle' } });
          const built = pair.builds[0]!;
          const roots = pair.unmeasured.map((u) => redact(u.run.root) as NodeResult);
          if (arms.length === 1) {
            await writeFile(path.join(out, 'result.json'), `${JSON.stringify(roots[0], null, 2)}\n`);
            io.out(flags.json ? `${JSON.stringify(roots[0], null, 2)}\n` : renderSolve(roots[0]!, { goal, trace: path.relative(process.cwd(), out) || '.' }));
            return;
          }
          const charges = memory.ofType('charge');
          const sessionsOf = (arm: Arm | undefined) => new Set(charges.filter((c) => c.arm === arm).map((c) => c.sessionId)).size;
          const reports = arms.map((arm, i) => ({ arm, root: roots[i]!, grade: null, sessions: sessionsOf(arm) }));
          const report = { goal, simulated: models.simulated, pairing: 'shared' as const, build: { tokens: built.spend.tokens, costUsd: built.spend.costUsd, sessions: sessionsOf(undefined), leaves: built.leaves.length }, arms: reports, trace: path.relative(process.cwd(), out) || '.' };
          io.out(flags.json ? `${JSON.stringify({ version: 1, ...report }, null, 2)}\n` : renderPair(report));
          return;
        }
        const pair = await runPair({
          cell: { cap: flags.maxDepth, repetition: 1 },
          arms,
          pairing: 'shared',
          engine,
          grade: oracleGrader({ specDir: specDir!, runId: path.basename(out), limits: SOLVE_GRADING }),
        });
        const built = pair.builds[0]!;
        const charges = memory.ofType('charge');
        const sessionsOf = (arm: Arm | undefined) => new Set(charges.filter((c) => c.arm === arm).map((c) => c.sessionId)).size;
        const reports: ArmReport[] = [];
        for (const outcome of pair.arms) {
          const root = redact(outcome.root) as NodeResult;
          reports.push({ arm: outcome.arm, root, grade: outcome.grade, sessions: sessionsOf(outcome.arm) });
          await writeFile(path.join(out, `result-${outcome.arm}.json`), `${JSON.stringify(root, null, 2)}\n`);
          await writeFile(path.join(out, `grade-${outcome.arm}.json`), `${JSON.stringify(outcome.grade, null, 2)}\n`);
          await writeFile(path.join(out, `measurement-${outcome.arm}.json`), `${JSON.stringify(redact(outcome.measurement), null, 2)}\n`);
        }
        const report = {
          goal,
          simulated: models.simulated,
          pairing: arms.length > 1 ? ('shared' as const) : ('single' as const),
          build: { tokens: built.spend.tokens, costUsd: built.spend.costUsd, sessions: sessionsOf(undefined), leaves: built.leaves.length },
          arms: reports,
          trace: path.relative(process.cwd(), out) || '.',
        };
        io.out(flags.json ? `${JSON.stringify({ version: 1, ...report }, null, 2)}\n` : renderPair(report));
      } finally {
        await Promise.all([eventsFile.close(), transcripts.close()]);
      }
    });
}
