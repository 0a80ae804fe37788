import { RdhError } from '../engine/index.js';

/**
 * The CLI's exit codes. Scripts key on these numbers; the README's table is generated
 * from the same list, so they cannot drift apart.
 */
export const EXIT = {
  ok: 0,
  /** A bug in the harness: an error nobody planned for. */
  internal: 1,
  /** Bad input: a flag, manifest, configuration or journal. Nothing was written. */
  usage: 2,
  /** The machine cannot do the work: Docker unreachable, sandbox image missing or unbuildable. */
  environment: 3,
  /** A grading was refused: the oracle's integrity could not be shown, so no score was given. */
  gradingRefused: 4,
} as const;

export const EXIT_DESCRIPTIONS: Array<[number, string]> = [
  [EXIT.ok, 'success'],
  [EXIT.internal, 'internal error (a bug; please report it with the command and output)'],
  [EXIT.usage, 'bad input: a flag, manifest, provider configuration or journal; nothing was written'],
  [EXIT.environment, 'environment: Docker unreachable, sandbox image missing or its build failed'],
  [EXIT.gradingRefused, 'grading refused: the oracle could not be shown to have been held out'],
];

/** Error codes that are the user's input rather than the machine. */
const USAGE_CODES = new Set(['usage', 'manifest_invalid', 'provider_config_invalid', 'journal_mismatch', 'journal_invalid', 'journal_busy', 'survival_data_invalid', 'workspace_path', 'spec_invalid']);
const ENVIRONMENT_CODES = new Set(['docker_unavailable', 'sandbox_image_missing', 'sandbox_build_failed', 'journal_write_failed']);
/**
 * Error classes that can only mean the harness itself is wrong (it built an event its own
 * schema refuses, or ships a defects table that does not parse): they keep exit 1, by name,
 * so that every other class is forced to a documented input or environment code.
 */
export const BUG_CODES: ReadonlySet<string> = new Set(['journal_event_invalid', 'sim_defect_model', 'sandbox_disposed']);
const GRADING_CODES = new Set(['grading_refused', 'oracle_invalid']);

export function exitCodeFor(error: unknown): number {
  if (!(error instanceof RdhError)) return EXIT.internal;
  if (USAGE_CODES.has(error.code)) return EXIT.usage;
  if (ENVIRONMENT_CODES.has(error.code)) return EXIT.environment;
  if (GRADING_CODES.has(error.code)) return EXIT.gradingRefused;
  return EXIT.internal;
}

/** A flag or argument the user got wrong. */
export class UsageError extends RdhError {
  readonly code = 'usage';
}
