import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { DockerUnavailableError } from '../base/errors.js';

/** Labels every sandbox container carries, so orphans from a crash can be found and pruned. */
export const SANDBOX_LABELS = {
  sandbox: 'io.rdh.sandbox',
  run: 'io.rdh.run',
  pid: 'io.rdh.pid',
  host: 'io.rdh.host',
  purpose: 'io.rdh.purpose',
} as const;

/** Where `DOCKER_HOST` points, for messages. */
export function describeDockerHost(): string {
  return process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
}

/** How a connection to the daemon fails when it is gone: its socket removed, refused, cut. */
const CONNECTION_FAILURES = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/**
 * A failure to reach the daemon at all, as {@link DockerUnavailableError} (true of every later
 * call, so the sweep stops); anything else unchanged. Without it a daemon that went away
 * mid-command gave `connect ENOENT <its socket>`, which the tools took for a missing file and
 * showed the model as its own mistake.
 */
export function daemonFailure(error: unknown): unknown {
  const e = error as NodeJS.ErrnoException | null;
  const socketCall = e?.syscall === 'connect' || e?.syscall === 'read' || e?.syscall === 'write';
  return e && typeof e === 'object' && e.code && CONNECTION_FAILURES.has(e.code) && socketCall ? new DockerUnavailableError(describeDockerHost(), { cause: error }) : error;
}

/** Throws {@link DockerUnavailableError} unless a daemon answers a ping. */
export async function assertDockerReachable(docker: Docker): Promise<void> {
  try {
    await docker.ping();
  } catch (cause) {
    throw new DockerUnavailableError(describeDockerHost(), { cause });
  }
}

/** The labels for a container this process creates for `runId`. */
export function sandboxLabels(runId: string, purpose = ''): Record<string, string> {
  return {
    [SANDBOX_LABELS.sandbox]: '1',
    [SANDBOX_LABELS.run]: runId,
    [SANDBOX_LABELS.pid]: String(process.pid),
    [SANDBOX_LABELS.host]: hostname(),
    [SANDBOX_LABELS.purpose]: purpose,
  };
}
