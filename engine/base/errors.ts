import { SECRET_SHAPES } from './secrets.js';
import type { Unreceived } from './usage.js';

/**
 * Every failure the engine raises on purpose is one of these classes. The `code` is
 * stable (scripts and the CLI's exit-code table key on it); the message is for a person
 * and always names the fix. Anything shaped like a key is redacted from the message as a
 * last line of defence; adapters also redact the exact keys they hold, and scrub causes.
 */
export abstract class RdhError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(SECRET_SHAPES.redact(message), options);
    this.name = new.target.name;
  }
}

/** No Docker daemon answered. Nothing agent-written may run without one, so this is fatal. */
export class DockerUnavailableError extends RdhError {
  readonly code = 'docker_unavailable';
  constructor(where: string, options?: { cause?: unknown }) {
    const why = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      `cannot reach the Docker daemon at ${where}${why}. Start Docker (e.g. \`dockerd &\` or \`systemctl start docker\`) or point DOCKER_HOST at a reachable daemon.`,
      options,
    );
  }
}

/** The sandbox image is not on the daemon; building it is one command. */
export class SandboxImageMissingError extends RdhError {
  readonly code = 'sandbox_image_missing';
  constructor(readonly image: string, options?: { cause?: unknown }) {
    super(`sandbox image ${image} is not present on the Docker daemon. Run \`harness sandbox build\`.`, options);
  }
}

/** A workspace path that would leave the workspace (`..`, an absolute path, or a symlink out). */
export class WorkspacePathError extends RdhError {
  readonly code = 'workspace_path';
  constructor(readonly requested: string, reason: string) {
    super(`refused workspace path ${JSON.stringify(requested)}: ${reason}. Use a path relative to the workspace root.`);
  }
}

/** The sandbox was used after `dispose()`. A programming error, never a result. */
export class SandboxDisposedError extends RdhError {
  readonly code = 'sandbox_disposed';
  constructor(id: string) {
    super(`sandbox ${id} was used after dispose(); create a new sandbox for new work.`);
  }
}

/** The process is shutting down (a second Ctrl-C): it makes no more containers. */
export class SandboxesClosedError extends RdhError {
  readonly code = 'sandboxes_closed';
  constructor(what: string) {
    super(`${what} was not started: the run is shutting down and makes no more containers.`);
  }
}

/**
 * A command's processes would not end: after SIGKILL, and after its container was killed and
 * restarted, something still ran in the sandbox (or the sandbox could not be looked into). The
 * next command would share the container with them, so the sandbox runs no more commands.
 */
export class SandboxProcessesLeftError extends RdhError {
  readonly code = 'sandbox_processes_left';
  constructor(readonly sandboxId: string, readonly left: string[], blocked: string | null) {
    const what = blocked ? `it could not be looked into (${blocked})` : `${left.length} process(es) still ran (${left.slice(0, 5).join(', ')})`;
    super(
      `sandbox ${sandboxId} is not clean after a command: ${what}, even after its container was killed and restarted; it runs no more commands. Dispose of it and create another; if this repeats, the Docker host is overloaded or failing (see the daemon's log).`,
    );
  }
}

/**
 * A Docker host of the pool stopped answering while this work used it. The host is drained;
 * the work is `retryable`: re-run it and the pool places it on a host that still answers.
 */
export class SandboxHostLostError extends RdhError {
  readonly code = 'sandbox_host_lost';
  readonly retryable = true;
  constructor(readonly host: string, options?: { cause?: unknown }) {
    const why = options?.cause instanceof Error ? ` (${hostLossReason(options.cause)})` : '';
    super(`Docker host ${host} stopped answering${why}; it is drained and the work can be re-run on another host.`, options);
  }
}

/**
 * Why a pool host was lost, in its own words: a {@link DockerUnavailableError} names the daemon
 * of the environment (DOCKER_HOST), not the pool's host, so its cause (ECONNREFUSED ...) is what to show.
 */
export function hostLossReason(error: unknown): string {
  if (error instanceof DockerUnavailableError && error.cause instanceof Error) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** No Docker host of the pool answers (or none has the sandbox image). Fatal: nothing can run. */
export class NoSandboxHostError extends RdhError {
  readonly code = 'no_sandbox_host';
  constructor(readonly reasons: string[]) {
    super(`no Docker host can run sandboxes: ${reasons.join('; ')}. Start a daemon, fix --docker-host/docker_hosts, or build the image with \`harness sandbox build\`.`);
  }
}

/** A node (or an ancestor) has spent its allocation; the call was refused before it was made. */
export class BudgetExhaustedError extends RdhError {
  readonly code = 'budget_exhausted';
  constructor(
    readonly nodeId: string,
    readonly scope: 'node' | 'ancestor' | 'phase' | 'session',
    detail: string,
  ) {
    super(`budget refused a call for node ${nodeId}: ${detail}`);
  }
}

/** Options of the errors that can end a model call. */
export interface ModelErrorOptions {
  cause?: unknown;
  /**
   * Attempts of the failed call the server may have completed but whose reply never arrived,
   * and what they are charged (see {@link Unreceived}). Absent: there were none.
   */
  unreceived?: Unreceived;
}

/**
 * What every error that can end a model call carries: the model, the detail its message was
 * built from (so a client can restate it with more context), and the call's unreceived attempts.
 * Exported as a type alone: it has no code of its own, so nothing may raise or catch it as such.
 */
abstract class ModelCallError extends RdhError {
  /**
   * Attempts of the call the server may have completed, and billed, whose replies never
   * arrived: the caller charges them although the call failed. Absent: there were none.
   */
  readonly unreceived?: Unreceived;
  constructor(readonly model: string, readonly detail: string, message: string, options?: ModelErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.unreceived) this.unreceived = options.unreceived;
  }
}

export type { ModelCallError };

/** The endpoint kept refusing with 429 after its retries; the router may fall back. */
export class ModelRateLimitedError extends ModelCallError {
  readonly code = 'model_rate_limited';
  constructor(model: string, readonly retryAfterMs: number | null, detail = '', options?: ModelErrorOptions) {
    super(model, detail, `model ${model} is rate limited${retryAfterMs ? ` (retry after ${retryAfterMs} ms)` : ''}${detail ? `: ${detail}` : ''}`, options);
  }
}

/** A transient failure (5xx, connection, timeout) that outlived its retries. */
export class ModelUnavailableError extends ModelCallError {
  readonly code = 'model_unavailable';
  constructor(model: string, detail: string, options?: ModelErrorOptions) {
    super(model, detail, `model ${model} is unavailable: ${detail}`, options);
  }
}

/** The account behind the key has no quota left: true of every later call, not just this one. */
export class ModelQuotaExhaustedError extends ModelCallError {
  readonly code = 'model_quota_exhausted';
  constructor(model: string, detail: string, options?: ModelErrorOptions) {
    super(model, detail, `the provider account for ${model} has no quota left: ${detail}. Add credit or use another key.`, options);
  }
}

/** The key was refused or the model does not exist: fix the configuration. */
export class ModelConfigurationError extends ModelCallError {
  readonly code = 'model_configuration';
  constructor(model: string, detail: string, options?: ModelErrorOptions) {
    super(model, detail, `model ${model} refused the request: ${detail}. Check the base URL, the API key variable and the model id.`, options);
  }
}

/** The endpoint answered with something that is not a chat completion. */
export class ModelResponseInvalidError extends ModelCallError {
  readonly code = 'model_response_invalid';
  constructor(model: string, detail: string, options?: ModelErrorOptions) {
    super(model, detail, `model ${model} sent a malformed response: ${detail}`, options);
  }
}

/**
 * The same failure restated: `detail` replaces the error's own (a client adds how long the
 * provider has been failing), and the call's unreceived attempts are attached. Same class,
 * same cause, so every caller that keys on the class or the code sees no difference.
 */
export function restated(error: ModelCallError, change: { detail?: string; unreceived?: Unreceived }): ModelCallError {
  const detail = change.detail ?? error.detail;
  const options: ModelErrorOptions = { ...(error.cause !== undefined ? { cause: error.cause } : {}), ...(change.unreceived ?? error.unreceived ? { unreceived: change.unreceived ?? error.unreceived } : {}) };
  if (error instanceof ModelRateLimitedError) return new ModelRateLimitedError(error.model, error.retryAfterMs, detail, options);
  if (error instanceof ModelUnavailableError) return new ModelUnavailableError(error.model, detail, options);
  if (error instanceof ModelQuotaExhaustedError) return new ModelQuotaExhaustedError(error.model, detail, options);
  if (error instanceof ModelConfigurationError) return new ModelConfigurationError(error.model, detail, options);
  if (error instanceof ModelResponseInvalidError) return new ModelResponseInvalidError(error.model, detail, options);
  throw new Error(`restated: ${error.name} is not a model call error this function knows`);
}

/** No model may serve a role: all are excluded (independence) or cooling down. */
export class NoEligibleModelError extends RdhError {
  readonly code = 'no_eligible_model';
  constructor(readonly role: string, detail: string) {
    super(`no model can serve as ${role}: ${detail}`);
  }
}

/** The root split without stating the layout and interfaces its children must share, even when asked again. */
export class ContractMissingError extends RdhError {
  readonly code = 'contract_missing';
  constructor(readonly nodeId: string) {
    super(`node ${nodeId} split without a layout twice; a root that splits must state the file layout and interfaces every child shares`);
  }
}

/** The files a prerequisite built could not be listed: its siblings would be told a false "nothing". */
export class WorkspaceListingError extends RdhError {
  readonly code = 'workspace_listing';
  constructor(readonly dir: string, options?: { cause?: unknown }) {
    const why = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(`cannot list the workspace ${dir}${why}`, options);
  }
}

/** A model twice failed to return readable structured output. Callers keep their last good value. */
export class StructuredOutputError extends RdhError {
  readonly code = 'structured_output_unreadable';
}

/**
 * Every error class the engine raises on purpose. The CLI's exit-code table is typed by
 * their codes, so a new class without an exit code does not compile.
 */
export const ENGINE_ERRORS = [
  DockerUnavailableError,
  SandboxImageMissingError,
  WorkspacePathError,
  SandboxDisposedError,
  SandboxesClosedError,
  SandboxProcessesLeftError,
  SandboxHostLostError,
  NoSandboxHostError,
  BudgetExhaustedError,
  ModelRateLimitedError,
  ModelUnavailableError,
  ModelQuotaExhaustedError,
  ModelConfigurationError,
  ModelResponseInvalidError,
  NoEligibleModelError,
  ContractMissingError,
  WorkspaceListingError,
  StructuredOutputError,
] as const;
export type EngineErrorCode = InstanceType<(typeof ENGINE_ERRORS)[number]>['code'];
