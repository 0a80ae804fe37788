/**
 * Every failure the engine raises on purpose is one of these classes. The `code` is
 * stable (scripts and the CLI's exit-code table key on it); the message is for a person
 * and always names the fix.
 */
export abstract class RdhError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
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
