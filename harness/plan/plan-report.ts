import path from 'node:path';
import { shownPath } from '../internal/data-file.js';
import { count, plain, tokens, usd } from '../internal/figures.js';
import type { LoadedManifest } from '../manifest/manifest-loader.js';
import { textTable, wrap } from '../internal/text-table.js';
import { allocationOf, repetitionsAt, type Manifest, type ModelPair } from '../manifest/manifest.js';
import { isSimulatedSweep } from '../providers/sweep-roster.js';
import { BOUNDED_PLANNER_SESSIONS, COURT, firstUncountable, planInputFor, projectPlan, type CellProjection, type PlanProjection, type Price } from './plan-arithmetic.js';
import { learnedForecast, type LearnedForecast } from './plan-learned.js';
import { learnedLines, powerLines } from './plan-learned-text.js';
import { cacheLines } from './plan-cache.js';
import type { CacheShare } from '../journal/cache-share-schema.js';
import { planPower, type PlanPower } from './plan-power.js';
import { hypothesisLines, planHypothesis, type PlanHypothesis } from './plan-hypothesis.js';
import { searchDesign, type DesignSearch } from './plan-design.js';
import { designLines } from './plan-design-text.js';
import type { CellMeasurement } from '../journal/cell-measurement.js';
import { plantedText } from '../sim/sim-params.js';
import { priceOf, type LoadedProviderConfig } from '../providers/provider-config.js';
import { EXECUTOR_ROLES, JUDGE_ROLES, type ModelPairName } from '../providers/role-pairs.js';
import type { Role } from '../../engine/index.js';
import { concurrencyPlan } from '../manifest/concurrency.js';
import { forecastWallTime, type WallTime } from './wall-time.js';
import { declaredLoads, measuredLoads, type RunCallFigures } from './wall-time-loads.js';
import { wallTimeLines } from './wall-time-text.js';

/**
 * Input tokens assumed per output token when pricing a session at its token ceiling. An
 * earlier system measured input outweighing output 10:1 (agents re-read files and transcripts
 * far more than they write), so the estimate says so beside its figure rather than hiding it.
 */
export const INPUT_PER_OUTPUT = 10;

/** Format version of `plan --json`; a change that renames or removes a field takes a new number. */
export const PLAN_REPORT_VERSION = 1;

/**
 * What `harness plan` reports; the text and the JSON are two renderings of this one object.
 * Paths in it are relative to the folder the command ran in, never absolute, so a report can
 * be shared without the machine's layout.
 */
export interface PlanReport {
  version: typeof PLAN_REPORT_VERSION;
  /** `spec` as the manifest writes it (relative to the manifest); `file` and `specDir` relative to the current folder. */
  manifest: { file: string; name: string; digest: string; spec: string; specDir: string };
  /** Lines every artifact of the sweep shows (same_family). */
  caveats: string[];
  /** The token allocations every node receives (`declared`: the manifest names them; else its documented defaults). */
  budget: { leafTokens: number; assemblyTokens: number; declared: boolean };
  /** The manifest's max_cost_usd; absent when it names none (a plan's JSON holds no null). */
  maxCostUsd?: number;
  /** The planted parameters, present when a pair is served by the simulated population (in process or over HTTP). */
  simulated?: Manifest['simulated'];
  executor: ModelPair;
  reviewer: ModelPair;
  independence: Manifest['independence'];
  arms: Manifest['arms'];
  /** The caps this plan covers, and every cap the manifest declares. */
  depths: { selected: number[]; declared: number[] };
  unit: Manifest['unit'];
  /** The ceiling the run enforces; `manifest` is the file's own value when a flag lowered it. */
  maxSessions: { enforced: number; manifest: number; lowered: boolean };
  pricing: { known: true; inputPerOutput: number; executor: Price; reviewer: Price; providers?: string } | { known: false; why: string };
  /** The bill under the manifest's pairing. */
  projection: PlanProjection;
  /**
   * The same sweep's sessions (and price, when known) under the other pairing, for comparison;
   * `countable: false` (and no figures) when they are too large to count exactly.
   */
  otherPairing:
    | { pairing: Manifest['pairing']; countable: true; sessions: number; tokenBound: number; costBoundUsd: number; pricedUsd?: number }
    | { pairing: Manifest['pairing']; countable: false };
  /** The minimum detectable paired difference per cap for the declared repetitions. */
  power: PlanPower;
  /** The manifest's `hypothesis:` judged: whether the design can detect its δ at the power wanted (with `power.sd`). Absent when it declares none. */
  hypothesis?: PlanHypothesis;
  /** The design search (plan-design.ts): the cheapest design reaching the hypothesis's power for its primary comparison, beside the manifest's. Absent without a hypothesis. */
  design?: DesignSearch;
  /** `--from runs/NAME`: the cells still to record, forecast from what the run's measured cells cost. Absent without --from (a plan's JSON holds no null). */
  forecast?: LearnedForecast;
  /** How long the sweep takes (wall-time.ts): the projection's, and under --from the cells left's, from measured figures. */
  wallTime: { plan: WallTime; left?: WallTime };
  /** `--from runs/NAME`: the share of input served from the prompt cache there, per role (plan-cache.ts). Absent without --from. */
  cache?: { run: string; byRole: CacheShare[] };
}

export interface PlanReportOptions {
  /** Caps to cover (already checked against the manifest). Default: every cap. */
  depths?: readonly number[];
  /** The checked provider configuration, when one was given. Default: none (prices unknown). */
  providers?: LoadedProviderConfig;
  /** The folder paths are reported relative to. Default: the current working directory. */
  cwd?: string;
  /**
   * A recorded run (`--from`): its folder as written, whether it recorded this same manifest,
   * and its measured cells. Default none: the declared scenario and the manifest's SD only.
   */
  from?: { run: string; sameManifest: boolean; cells: readonly CellMeasurement[]; calls?: RunCallFigures; cache?: readonly CacheShare[] };
}

/** The wall-time forecasts: the projection's from what is declared, the cells left's from what the run measured. */
function wallTimes(manifest: Manifest, providers: LoadedProviderConfig | undefined, projection: PlanProjection, left: { sessions: number; calls: RunCallFigures } | undefined): PlanReport['wallTime'] {
  const config = providers?.config;
  const common = { concurrency: concurrencyPlan(manifest.concurrency), ...(config?.docker_hosts ? { dockerCapacity: config.docker_hosts.reduce((n, h) => n + h.capacity, 0) } : {}) };
  const plan = forecastWallTime({ ...common, loads: declaredLoads(manifest, config, projection.total.sessionsByPair), maxSessions: projection.ceiling.maxSessions });
  if (!left) return { plan };
  const measured = left.calls.executor.sessions + left.calls.reviewer.sessions > 0;
  const unmeasured: WallTime = { status: 'unknown', why: 'the run records no finished session, so nothing was measured', basis: [] };
  return { plan, left: measured ? forecastWallTime({ ...common, loads: measuredLoads(manifest, config, left.sessions, left.calls) }) : unmeasured };
}

/** A path as the report gives it: relative to `cwd`, never the machine's absolute layout. */
function relativePath(cwd: string, absolute: string): string {
  return shownPath(path.relative(cwd, absolute) || '.');
}

function pricingFor(loaded: LoadedManifest, providers: LoadedProviderConfig | undefined, cwd: string): PlanReport['pricing'] {
  const { executor, reviewer } = loaded.manifest;
  const needsConfig = [executor, reviewer].some((pair) => pair.provider !== 'sim');
  if (needsConfig && !providers) return { known: false, why: 'no provider configuration (pass --providers FILE or set RDH_PROVIDERS)' };
  const ex = priceOf(executor, providers?.config);
  const rv = priceOf(reviewer, providers?.config);
  if (!ex || !rv) {
    const missing = [executor, reviewer].filter((pair) => !priceOf(pair, providers?.config)).map((pair) => `models.${pair.model}`);
    return { known: false, why: `${[...new Set(missing)].join(' and ')} in ${providers ? relativePath(cwd, providers.file) : ''} ${missing.length > 1 ? 'have' : 'has'} no price_usd_per_million` };
  }
  return { known: true, inputPerOutput: INPUT_PER_OUTPUT, executor: ex, reviewer: rv, ...(providers ? { providers: relativePath(cwd, providers.file) } : {}) };
}

/** Assembles the report. Pure: the command has already loaded and checked everything. */
export function buildPlanReport(loaded: LoadedManifest, options: PlanReportOptions = {}): PlanReport {
  const { manifest } = loaded;
  const selected = options.depths ? [...options.depths] : [...manifest.depth_caps];
  const cwd = options.cwd ?? process.cwd();
  const pricing = pricingFor(loaded, options.providers, cwd);
  const simulated = isSimulatedSweep(manifest, options.providers?.config);
  const input = planInputFor(manifest, selected, pricing.known ? { executor: pricing.executor, reviewer: pricing.reviewer, inputPerOutput: pricing.inputPerOutput } : undefined, simulated);
  const projection = projectPlan(input);
  const other = projectPlan({ ...input, pairing: manifest.pairing === 'shared' ? 'independent' : 'shared' });
  const power = planPower(manifest, { caps: selected, repetitions: (cap) => repetitionsAt(manifest, cap), ...(options.from ? { from: { run: options.from.run, cells: options.from.cells } } : {}) });
  const hypothesis = planHypothesis(manifest, power.sd);
  const wallConfig = { concurrency: concurrencyPlan(manifest.concurrency), ...(options.providers?.config.docker_hosts ? { dockerCapacity: options.providers.config.docker_hosts.reduce((n, h) => n + h.capacity, 0) } : {}) };
  const wallSeconds = (byPair: Parameters<typeof declaredLoads>[2]) => {
    const w = forecastWallTime({ ...wallConfig, loads: declaredLoads(manifest, options.providers?.config, byPair) });
    return w.status === 'unknown' ? undefined : w.seconds;
  };
  const design = searchDesign({ manifest, input, sd: power.sd, ...(manifest.max_cost_usd !== undefined ? { maxCostUsd: manifest.max_cost_usd } : {}), wallSeconds });
  const forecast = options.from && options.from.cells.length > 0 ? learnedForecast(manifest, { caps: selected, ...options.from }) : undefined;
  const left = forecast && options.from?.calls ? { sessions: forecast.total.forecast.sessions, calls: options.from.calls } : undefined;
  return {
    version: PLAN_REPORT_VERSION,
    manifest: { file: relativePath(cwd, loaded.file), name: manifest.name, digest: loaded.digest, spec: manifest.spec, specDir: relativePath(cwd, loaded.specDir) },
    caveats: [...loaded.caveats],
    ...(simulated ? { simulated: manifest.simulated } : {}),
    budget: { ...allocationOf(manifest), declared: manifest.budget !== undefined },
    ...(manifest.max_cost_usd !== undefined ? { maxCostUsd: manifest.max_cost_usd } : {}),
    executor: manifest.executor,
    reviewer: manifest.reviewer,
    independence: manifest.independence,
    arms: manifest.arms,
    depths: { selected, declared: [...manifest.depth_caps] },
    unit: manifest.unit,
    maxSessions: { enforced: manifest.max_sessions, manifest: loaded.folded.max_sessions?.manifest ?? manifest.max_sessions, lowered: loaded.folded.max_sessions !== undefined },
    pricing,
    projection,
    otherPairing: firstUncountable(other)
      ? { pairing: other.pairing, countable: false }
      : {
          pairing: other.pairing,
          countable: true,
          sessions: other.total.sessions,
          tokenBound: other.total.tokenBound,
          costBoundUsd: other.total.costBoundUsd,
          ...(other.total.pricedUsd !== undefined ? { pricedUsd: other.total.pricedUsd } : {}),
        },
    power,
    ...(hypothesis ? { hypothesis } : {}),
    ...(design ? { design } : {}),
    ...(forecast ? { forecast } : {}),
    wallTime: wallTimes(manifest, options.providers, projection, left),
    ...(options.from?.cache ? { cache: { run: options.from.run, byRole: [...options.from.cache] } } : {}),
  };
}


const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const pairText = (pair: ModelPair) => `${pair.provider} ${pair.model}, family ${pair.family ?? '(not declared)'}, rung ${pair.rung}`;
const perMillion = (price: Price) => `$${plain(price.input)}/$${plain(price.output)}`;

function ceilingLines(report: PlanReport): string[] {
  const { projection, maxSessions } = report;
  const { ceiling, total } = projection;
  const whose = maxSessions.lowered ? `--max-sessions; the manifest says ${count(maxSessions.manifest)}` : 'from the manifest';
  const head = `Ceiling: max_sessions ${count(ceiling.maxSessions)} (${whose}), the number the run enforces.`;
  const what = projection.maxChildren === undefined ? 'projection' : 'bound';
  if (!ceiling.exceeded) return [head, `  The ${what} of ${count(total.sessions)} sessions fits.`];
  const lines = [head, `  The ${what} of ${count(total.sessions)} sessions exceeds it by ${count(ceiling.overBy)}; ${ceiling.measured} of ${total.cells} cells fit.`];
  const first = ceiling.unmeasured[0]!;
  lines.push(`  Likely unmeasured, in recording order (caps ascending, then repetition, then arm):`);
  const byCap = new Map<number, CellProjection[]>();
  for (const cell of ceiling.unmeasured) byCap.set(cell.cap, [...(byCap.get(cell.cap) ?? []), cell]);
  for (const [cap, cells] of byCap) {
    const all = projection.cells.filter((cell) => cell.cap === cap).length;
    lines.push(`    cap ${cap}: ${cells.length === all ? `all ${all} cells` : `${cells.length} of ${all} cells, from ${cells[0]!.id} on`}`);
  }
  lines.push(
    ceiling.unmeasured.length > 1
      ? `  The ceiling is reached inside ${first.id}: its sessions are spent, it goes unmeasured,\n  and the cells after it never start.`
      : `  The ceiling is reached inside ${first.id}: its sessions are spent and it goes unmeasured.`,
  );
  // The cheapest prefix of caps that fits whole is the natural first stage to record.
  const fitting: number[] = [];
  let spent = 0;
  for (const cap of projection.caps) {
    if (spent + cap.sessions > ceiling.maxSessions) break;
    spent += cap.sessions;
    fitting.push(cap.cap);
  }
  if (fitting.length > 0) lines.push(`  Whole caps that fit: --depths ${fitting.join(',')} (${count(spent)} sessions).`);
  return lines;
}

/** What the figures assume about the trees' shape: a scenario (projected_branching), or max_children's bound. */
function shapeLines(projection: PlanProjection, b: string): string[] {
  if (projection.maxChildren === undefined) {
    return [`  Every figure comes from b = ${b}: a scenario, not a bound. A tree that stops shallow costs`, '  less; one that branches wider costs more.'];
  }
  return [
    `  Every figure is a BOUND from max_children = ${b}: at cap d a tree holds at most ${b}^d leaves, and a plan`,
    '  that splits wider is asked again once (a planner session, counted below) and then cut to the bound',
    '  (docs/branching.md). A tree that stops shallow or splits narrower costs less. Per node the court',
    '  opens the sessions below, the drift allowance included (the engine asks the judge no more); a repair',
    '  round, a check rewrite or a falsification re-ask is outside the bound, and max_sessions stops the sweep there.',
  ];
}

/** How a pair's sessions add up under the pairing in force, and what the other pairing would cost. */
function pairingLines(report: PlanReport): string[] {
  const { projection, otherPairing } = report;
  const a = projection.mergeAttempts;
  const arms = report.arms.length;
  const d = COURT.driftPerLoop;
  const merges = `planning nodes x [checker + meta-verifier + ${a} x (merger + review + ${d} drift)]`;
  // Under max_children a wider plan earns one re-ask, a planner session of its own.
  const planner = projection.maxChildren === undefined ? 'planner' : `planner + its re-ask (${BOUNDED_PLANNER_SESSIONS} in all)`;
  const lines =
    projection.pairing === 'shared'
      ? [
          `  sessions/pair = leaves x [checker + worker + meta-verifier + verifier + ${d} drift] + planning nodes x [${planner}],`,
          `                  once per pair (pairing: shared), + ${arms === 1 ? 'for its one arm' : `for each of the ${arms} arms`}: ${merges}.`,
        ]
      : [`  sessions/pair = for each of the ${arms} arm(s) (pairing: independent): leaves x [4 + ${d} drift] + planning nodes x [${planner}] + ${merges}.`];
  lines.push(`  allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.`);
  if (arms < 2) return [...lines, '  pairing       = one arm is recorded, so shared and independent cost the same.'];
  if (!otherPairing.countable) return [...lines, `  pairing       = ${otherPairing.pairing} would be more sessions than can be counted exactly.`];
  const diff = otherPairing.sessions - projection.total.sessions;
  const price = otherPairing.pricedUsd !== undefined && projection.total.pricedUsd !== undefined && projection.total.pricedUsd > 0 ? `, ${usd(otherPairing.pricedUsd)} priced` : '';
  return [...lines, `  pairing       = ${otherPairing.pairing} would be ${count(otherPairing.sessions)} sessions${price} (${diff >= 0 ? '+' : ''}${count(diff)} against ${projection.pairing}).`];
}

/** Seconds as a short duration: 45s, 4m 32s, 2h 05m. */
function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The oracle gradings grade_merges adds, per cap and in all; nothing when it resolves off. */
function mergeGradingLines(projection: PlanProjection): string[] {
  const g = projection.mergeGradings;
  if (!g) return [];
  const why = g.source === 'manifest' ? 'set in the manifest' : 'the default for a SIMULATED sweep';
  const header = ['cap', 'assembling', 'gradings/pair', 'extra/pair', 'reps', 'extra', 'grading time'];
  const rows = g.caps.map((c) => [String(c.cap), count(c.assemblingNodes), count(c.gradingsPerPair), count(c.extraPerPair), String(c.repetitions), count(c.extra), duration(c.seconds)]);
  rows.push(['all', '', '', '', '', count(g.total.extra), duration(g.total.seconds)]);
  return [
    '',
    ...wrap(`Merge gradings (grade_merges on, ${why}): every assembled node's tree is graded by the oracle as the root's is, in each arm; no model calls, so no sessions, tokens or dollars.`, 96, '  '),
    '',
    ...textTable([header, ...rows], header.map((_, i) => (i === 0 ? 'left' : 'right'))),
    '',
    `  gradings/pair = assembling nodes x ${plural(projection.caps[0]?.perPair.arms ?? 0, 'arm')}; extra leaves out the root grade every cell makes anyway.`,
    `  grading time  = extra x ${g.secondsPerGrading} s, the mean of runs/example-sim's four root gradings; serial, so`,
    '                  concurrency divides it.',
  ];
}

/** The oracle gradings grade_leaves adds, per cap and in all; nothing when it resolves off. */
function leafGradingLines(projection: PlanProjection): string[] {
  const g = projection.leafGradings;
  if (!g) return [];
  const why = g.source === 'manifest' ? 'set in the manifest' : 'the default for a SIMULATED sweep';
  const header = ['cap', 'leaves', 'trees/pair', 'reps', 'gradings', 'grading time'];
  const rows = g.caps.map((c) => [String(c.cap), count(c.leaves), String(c.treesPerPair), String(c.repetitions), count(c.gradings), duration(c.seconds)]);
  rows.push(['all', '', '', '', count(g.total.gradings), duration(g.total.seconds)]);
  return [
    '',
    ...wrap(`Leaf gradings (grade_leaves on, ${why}): every leaf's own tree is graded by the oracle, to count what it built beyond its claims; no model calls, so no sessions, tokens or dollars.`, 96, '  '),
    '',
    ...textTable([header, ...rows], header.map((_, i) => (i === 0 ? 'left' : 'right'))),
    '',
    '  trees/pair   = 1 under shared pairing (both arms hold the same leaves), else the arms.',
    `  grading time = gradings x ${g.secondsPerGrading} s, as for merges; serial, so concurrency divides it.`,
  ];
}

/** What a role's sessions are, where the role's name alone does not say. */
const ROLE_GLOSS: Partial<Record<Role, string>> = {
  verifier: "each leaf's re-run and every meta-verifier",
  reviewer: 'the gated merge judge',
  self_reviewer: "the ungated merge's self-review",
};

/** One line (wrapped) per pair: its model, its rates, how many sessions it answers and in which roles. */
function pairPriceLines(report: PlanReport, pricing: Extract<PlanReport['pricing'], { known: true }>): string[] {
  const pad = ' '.repeat(18);
  const roles = (list: readonly Role[]) => list.map((role) => (ROLE_GLOSS[role] ? `${role} (${ROLE_GLOSS[role]})` : role)).join(', ');
  const { sessionsByPair } = report.projection.total;
  const line = (pair: ModelPairName, list: readonly Role[], end: string) =>
    wrap(`${pair} ${report[pair].model} ${perMillion(pricing[pair])}: ${count(sessionsByPair[pair])} sessions as ${roles(list)}${end}`, 96 - pad.length).map((l) => `${pad}${l}`);
  return [...line('executor', EXECUTOR_ROLES, ';'), ...line('reviewer', JUDGE_ROLES, '.')];
}

/** The plan as a researcher reads it: who, what, the bill per cap, and what the ceiling cuts. */
export function renderPlanText(report: PlanReport): string {
  const { projection, manifest, unit, pricing } = report;
  const b = plain(projection.branching);
  const lines: string[] = [];
  lines.push(`harness plan: ${manifest.name} (nothing is spent)`);
  for (const caveat of report.caveats) lines.push(...wrap(`CAVEAT: ${caveat}`, 96, '  '));
  if (report.simulated) {
    const s = report.simulated;
    const who = report.executor.provider === 'sim' && report.reviewer.provider === 'sim' ? 'both pairs use the built-in sim provider' : report.executor.provider === 'sim' || report.reviewer.provider === 'sim' ? 'a pair uses the built-in sim provider' : 'the pairs are served by the simulated population over HTTP';
    lines.push(...wrap(`SIMULATED: ${who}, a synthetic agent population planted with ${plantedText(s)}`, 96, '  '));
  }
  const selectedNote = report.depths.selected.length < report.depths.declared.length ? ` (--depths; the manifest declares ${report.depths.declared.join(', ')})` : '';
  const reps = projection.caps.map((cap) => cap.repetitions).join(', ');
  lines.push(
    '',
    ...textTable(
      [
        ['manifest', `${manifest.file} (digest ${manifest.digest.slice(0, 12)})`],
        ['spec', manifest.spec],
        ['executor', pairText(report.executor)],
        ['reviewer', pairText(report.reviewer)],
        ['independence', report.independence],
        ['depth caps', `${report.depths.selected.join(', ')}${selectedNote}`],
        ['matrix', `${plural(projection.caps.length, 'cap')} x ${plural(report.arms.length, 'arm')} (${report.arms.join(', ')}) x repetitions ${reps} = ${plural(projection.total.cells, 'cell')}`],
        ['merges', `${plural(projection.mergeAttempts, 'attempt')} per assembling node, equal in every arm; each a merge and a review session`],
        ['budget', `each leaf ${tokens(report.budget.leafTokens)} tokens, each assembling node ${tokens(report.budget.assemblyTokens)} beside its children's (${report.budget.declared ? 'budget: in the manifest' : 'the defaults; set budget: in the manifest'}); a tree's total follows the plan it makes`],
        ['max cost', report.maxCostUsd === undefined ? 'none (max_cost_usd; max_sessions and the unit ceilings bound the bill)' : `${usd(report.maxCostUsd)} for the whole sweep, checked before every call (max_cost_usd)`],
        ['pairing', projection.pairing === 'shared' ? 'shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge' : 'independent: each arm plans and builds its own tree'],
      ],
      ['left', 'left'],
    ),
    '',
    projection.maxChildren === undefined
      ? `Sessions if every tree uses its whole cap at projected_branching b = ${b}:`
      : `Sessions AT MOST: no node has more than max_children = ${b} children (the engine holds every plan to it):`,
    '',
  );
  const allSim = report.executor.provider === 'sim' && report.reviewer.provider === 'sim';
  // An all-simulated sweep is free; a column of $0.00 would only crowd the table.
  const priced = pricing.known && !allSim && projection.total.pricedUsd !== undefined;
  const header = ['cap', 'leaves', 'planning', 'sessions/pair', 'reps', 'cells', 'sessions', 'token bound', 'cost bound', ...(priced ? ['priced'] : [])];
  const rows = projection.caps.map((cap) => [
    String(cap.cap),
    count(cap.leaves),
    count(cap.planningNodes),
    count(cap.perPair.total),
    String(cap.repetitions),
    String(cap.cells),
    count(cap.sessions),
    tokens(cap.tokenBound),
    usd(cap.costBoundUsd),
    ...(priced ? [usd(cap.pricedUsd ?? 0)] : []),
  ]);
  const { total } = projection;
  rows.push(['all', '', '', '', '', String(total.cells), count(total.sessions), tokens(total.tokenBound), usd(total.costBoundUsd), ...(priced ? [usd(total.pricedUsd ?? 0)] : [])]);
  lines.push(...textTable([header, ...rows], header.map((_, i) => (i === 0 ? 'left' : 'right'))));
  lines.push('', ...shapeLines(projection, b), ...pairingLines(report));
  lines.push(
    `  token bound   = sessions x unit.token_ceiling (${count(unit.token_ceiling)}); it holds on every provider.`,
    `  cost bound    = sessions x unit.cost_ceiling_usd (${usd(unit.cost_ceiling_usd)}); a flat-rate provider reports $0,`,
    '                  so only the token bound always holds.',
  );
  if (!pricing.known) lines.push(`  priced        = unknown: ${pricing.why}.`);
  else if (allSim) lines.push('  priced        = $0: the simulated provider charges nothing.');
  else {
    lines.push(
      `  priced        = each session at its token ceiling, ${pricing.inputPerOutput}:1 input:output (as an earlier system`,
      '                  measured), no cached-input discount, capped at the cost ceiling, at the rates',
      '                  of the pair the router sends its role to (per million input/output):',
      ...pairPriceLines(report, pricing),
    );
  }
  lines.push('', ...wallTimeLines(report.wallTime.plan, 'Wall time'));
  lines.push(...mergeGradingLines(projection), ...leafGradingLines(projection));
  lines.push('', ...ceilingLines(report));
  if (report.forecast) lines.push('', ...learnedLines(report.forecast, { branching: b, priced: !allSim }));
  if (report.wallTime.left) lines.push('', ...wallTimeLines(report.wallTime.left, `Wall time of the cells left, from ${report.forecast?.run ?? 'the run'}`));
  const cache = report.cache ? cacheLines(report.cache.run, report.cache.byRole) : [];
  if (cache.length) lines.push('', ...cache);
  lines.push('', ...powerLines(report.power));
  if (report.hypothesis) lines.push('', ...hypothesisLines(report.hypothesis));
  if (report.design && report.hypothesis) {
    const h = report.hypothesis;
    lines.push('', ...designLines(report.design, { delta: h.smallestDifference, alpha: h.alpha, power: h.power, priced: priced }));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Rounds float noise (4.4 ** 3 = 85.18400000000001) out of the JSON; figures stay numbers. A
 * figure that is not finite would become `null` where a number was promised, so it is a bug.
 */
function tidy(key: string, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  if (!Number.isFinite(value)) throw new RangeError(`plan --json: ${key} is ${value}; figures must be finite (this is a bug)`);
  return Number.isInteger(value) ? value : Number(value.toFixed(6));
}

/** The same report as JSON, one object on one line, for scripts. */
export function renderPlanJson(report: PlanReport): string {
  return `${JSON.stringify(report, tidy)}\n`;
}
