import { RdhError, type EngineErrorCode } from '../engine/index.js';

export { EXIT, EXIT_DESCRIPTIONS, type ExitCode } from './exit-status.js';
import { EXIT, EXIT_DESCRIPTIONS, type ExitCode } from './exit-status.js';

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

/** The table of exit codes docs/getting-started.md prints, generated from {@link EXIT_DESCRIPTIONS}. */
export function exitCodeTable(): string {
  return ['| code | meaning |', '|---|---|', ...EXIT_DESCRIPTIONS.map(([code, text]) => `| ${code} | ${text} |`)].join('\n');
}

/** A flag or argument the user got wrong. */
export class UsageError extends RdhError {
  readonly code = 'usage';
}
