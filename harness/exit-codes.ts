import { RdhError, type EngineErrorCode } from '../engine/index.js';

/**
 * The CLI's exit codes. Scripts key on these numbers; the README's table is generated from
 * {@link EXIT_DESCRIPTIONS} (tests/harness/exit-codes.test.ts holds it to the README), and
 * every error code the engine or the harness raises maps to exactly one of them.
 */
export const EXIT = {
  ok: 0,
  /** A bug in the harness, and only that: an error nobody planned for. */
  internal: 1,
  /** Bad input: a flag, manifest, configuration file, spec or journal. Nothing was written. */
  usage: 2,
  /** The machine cannot do the work: Docker unreachable, sandbox image missing or unbuildable, a provider unreachable. */
  environment: 3,
  /** A grading was refused: the oracle's integrity could not be shown, so no score was given. */
  gradingRefused: 4,
  /** The provider account has no quota left: true of every later call, so the run stops (paid work is kept). */
  quotaExhausted: 5,
  /** The provider refused the configuration: a bad key, an unknown model, a wrong URL, or no independent family to judge. */
  providerConfiguration: 6,
  /** A replay diverged from its recording. */
  replayDiverged: 7,
  /** A spend ceiling (max_sessions, max_cost_usd) stopped a sweep before every staged cell was measured. */
  ceilingReached: 8,
  /** A staged cell of a sweep ended unavailable: no figure includes it. */
  cellsLost: 9,
  /** `harness task check`: a property of the task's validity battery failed (the table names it). */
  propertyFailed: 10,
  /** Interrupted (Ctrl-C, SIGINT): 128 + 2, as shells expect. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_DESCRIPTIONS: Array<[ExitCode, string]> = [
  [EXIT.ok, 'success'],
  [EXIT.internal, 'a bug, and only a bug (please report it with the command and its output)'],
  [EXIT.usage, 'bad input: a flag, manifest, provider configuration file, spec or journal; nothing was written'],
  [EXIT.environment, 'environment: Docker unreachable, sandbox image missing or its build failed, a provider unreachable (for its whole patience, in a sweep)'],
  [EXIT.gradingRefused, 'grading refused: the oracle could not be shown to have been held out'],
  [EXIT.quotaExhausted, 'provider quota exhausted: add credit or use another key; work already paid for is kept'],
  [EXIT.providerConfiguration, 'provider configuration: the key, model id or base URL was refused, or no model of an independent family can judge'],
  [EXIT.replayDiverged, 'a replay diverged from its recording'],
  [EXIT.ceilingReached, 'a spend ceiling (max_sessions, max_cost_usd) stopped the sweep before every staged cell was measured; what was measured is kept'],
  [EXIT.cellsLost, 'a staged cell ended unavailable; the same command re-runs the transient ones, --retry-unavailable the rest'],
  [EXIT.propertyFailed, "a task check found a property that does not hold: the table names it and what broke it"],
  [EXIT.interrupted, 'interrupted'],
];

/** Codes of the harness's own error classes. */
type HarnessErrorCode =
  | 'usage'
  | 'manifest_invalid'
  | 'provider_config_invalid'
  | 'journal_mismatch'
  | 'journal_invalid'
  | 'journal_busy'
  | 'journal_write_failed'
  | 'journal_event_invalid'
  | 'survival_data_invalid'
  | 'sim_defect_model'
  | 'sim_defect_table'
  | 'sim_population'
  | 'task_invalid'
  | 'fault_plan_invalid'
  | 'sim_request_refused'
  | 'sim_server_listen'
  | 'oracle_invalid'
  | 'spec_invalid'
  | 'task_invalid'
  | 'sandbox_build_failed'
  | 'peer_package_missing'
  | 'grading_refused'
  | 'replay_diverged'
  | 'look_refused';

/**
 * Every error code, and the exit it ends a command with. Engine codes are typed from the
 * engine's own list of error classes, so a new class without a row here does not compile.
 * Codes that normally end only one node (budget, a provider failing, an unreadable reply)
 * reach the CLI only when something outside a solve raised them.
 */
export const EXIT_BY_CODE: Record<EngineErrorCode | HarnessErrorCode, ExitCode> = {
  // engine
  docker_unavailable: EXIT.environment,
  sandbox_image_missing: EXIT.environment,
  sandbox_host_lost: EXIT.environment,
  sandbox_processes_left: EXIT.environment,
  no_sandbox_host: EXIT.environment,
  workspace_path: EXIT.usage,
  sandbox_disposed: EXIT.internal,
  sandboxes_closed: EXIT.interrupted,
  budget_exhausted: EXIT.internal,
  model_rate_limited: EXIT.environment,
  model_unavailable: EXIT.environment,
  model_response_invalid: EXIT.environment,
  model_quota_exhausted: EXIT.quotaExhausted,
  model_configuration: EXIT.providerConfiguration,
  no_eligible_model: EXIT.providerConfiguration,
  structured_output_unreadable: EXIT.providerConfiguration,
  contract_missing: EXIT.internal,
  workspace_listing: EXIT.environment,
  // harness
  usage: EXIT.usage,
  manifest_invalid: EXIT.usage,
  provider_config_invalid: EXIT.usage,
  journal_mismatch: EXIT.usage,
  journal_invalid: EXIT.usage,
  journal_busy: EXIT.usage,
  journal_write_failed: EXIT.environment,
  journal_event_invalid: EXIT.internal,
  survival_data_invalid: EXIT.usage,
  sim_defect_model: EXIT.internal,
  sim_defect_table: EXIT.internal,
  sim_population: EXIT.internal,
  fault_plan_invalid: EXIT.usage,
  // A request the SIMULATED server refuses ends that request; should one escape, it was bad input.
  sim_request_refused: EXIT.usage,
  sim_server_listen: EXIT.environment,
  oracle_invalid: EXIT.gradingRefused,
  spec_invalid: EXIT.usage,
  task_invalid: EXIT.usage,
  sandbox_build_failed: EXIT.environment,
  // A peer of `harness task check` is built from a Debian package that is not installed: the machine lacks it.
  peer_package_missing: EXIT.environment,
  grading_refused: EXIT.gradingRefused,
  replay_diverged: EXIT.replayDiverged,
  // `report --look` refused a look (past K, after a stop, no new pairs): bad input, nothing written.
  look_refused: EXIT.usage,
};

/**
 * Error classes that can only mean the harness itself is wrong (it built an event its own
 * schema refuses, ships a defects table that does not parse, used a disposed sandbox, or let
 * a budget or contract refusal escape a solve):
 * they keep exit 1, by name, so every other class is held to a documented input or
 * environment code.
 */
export const BUG_CODES: ReadonlySet<string> = new Set(['sandbox_disposed', 'budget_exhausted', 'contract_missing', 'journal_event_invalid', 'sim_defect_model', 'sim_defect_table', 'sim_population']);

export function exitCodeFor(error: unknown): ExitCode {
  if (!(error instanceof RdhError)) return EXIT.internal;
  return (EXIT_BY_CODE as Record<string, ExitCode>)[error.code] ?? EXIT.internal;
}

/** The README's table of exit codes, generated from {@link EXIT_DESCRIPTIONS}. */
export function exitCodeTable(): string {
  return ['| code | meaning |', '|---|---|', ...EXIT_DESCRIPTIONS.map(([code, text]) => `| ${code} | ${text} |`)].join('\n');
}

/** A flag or argument the user got wrong. */
export class UsageError extends RdhError {
  readonly code = 'usage';
}
