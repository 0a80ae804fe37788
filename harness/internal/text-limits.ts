/**
 * The longest text each kind of field takes, in characters. Every string a person writes in a
 * manifest or provider configuration has one, so a pasted file or a runaway value is refused
 * with a line that names the field, rather than accepted and echoed into every heading, run
 * folder name and message. Generous for real values; the README lists them.
 */
export const TEXT_LIMITS = {
  /** A sweep's name: it becomes part of run folder names. */
  name: 64,
  /** A model family (the organisation that trained a model). */
  family: 64,
  /** A model id, real or placeholder (`vendor/model-name-2025-01-01`), and a provider's name. */
  id: 200,
  /** A path in a file (e.g. `spec`). */
  path: 1024,
  /** A URL (`base_url`). */
  url: 2048,
  /** An environment variable's name (`api_key_env`). */
  envName: 128,
  /** A mapping key that must be a small number (`repetitions.by_cap`). */
  numberKey: 16,
} as const;

/** The message of a length check; `abort` stops later checks repeating the same value. */
export const tooLong = (limit: number) => ({ error: `is longer than ${limit} characters, the limit for this field`, abort: true });
