// The exit codes and their descriptions, data only: the CLI's shell reads them without loading the
// engine (harness/exit-codes.ts, which maps every error class to one, re-exports them).

/**
 * The CLI's exit codes. Scripts key on these numbers; docs/getting-started.md's table is generated
 * from {@link EXIT_DESCRIPTIONS} (tests/harness/exit-codes.test.ts holds it to that page), and
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
