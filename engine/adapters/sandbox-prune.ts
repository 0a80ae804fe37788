import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { SANDBOX_LABELS, assertDockerReachable } from './docker-daemon.js';
import { processAlive } from './process-alive.js';

export interface PruneOptions {
  /** Remove every sandbox container, even ones whose owning process still runs. Default false. */
  all?: boolean;
  /** Only containers of this run id. Default any run. */
  runId?: string;
  /** Only containers this process (pid, on this host) owns, e.g. a command removing its own on Ctrl-C. Default any owner. */
  ownerPid?: number;
}

export interface PruneResult {
  /** Containers removed. */
  removed: string[];
  /** Containers left because their owner still runs. */
  kept: string[];
  /** Workspace volumes (archive transport) removed. */
  volumes: string[];
}

/**
 * Remove sandbox containers left behind by a harness process that died. A container is an
 * orphan when its owner pid (on this host) no longer runs; containers owned by another host
 * are only removed with `all`.
 */
export async function pruneSandboxes(docker: Docker, options: PruneOptions = {}): Promise<PruneResult> {
  await assertDockerReachable(docker);
  const filters = {
    label: [
      options.runId ? `${SANDBOX_LABELS.run}=${options.runId}` : SANDBOX_LABELS.sandbox,
      ...(options.ownerPid !== undefined ? [`${SANDBOX_LABELS.pid}=${options.ownerPid}`, `${SANDBOX_LABELS.host}=${hostname()}`] : []),
    ],
  };
  const containers = await docker.listContainers({ all: true, filters });
  const result: PruneResult = { removed: [], kept: [], volumes: [] };
  for (const info of containers) {
    if (info.Labels[SANDBOX_LABELS.sandbox] !== '1') continue;
    const name = info.Names[0]?.replace(/^\//, '') ?? info.Id;
    if (!options.all && ownerAlive(info.Labels)) {
      result.kept.push(name);
      continue;
    }
    await removeContainer(docker.getContainer(info.Id));
    result.removed.push(name);
  }
  // Archive-transport workspaces: a volume outlives its container when the harness died.
  // One still mounted (its container kept above) cannot be removed, and is left.
  const { Volumes: volumes } = await docker.listVolumes({ filters: { label: filters.label } });
  for (const volume of volumes ?? []) {
    const labels = volume.Labels ?? {};
    if (labels[SANDBOX_LABELS.sandbox] !== '1') continue;
    if (!options.all && ownerAlive(labels)) continue;
    const gone = await docker.getVolume(volume.Name).remove().then(() => true, () => false);
    if (gone) result.volumes.push(volume.Name);
  }
  return result;
}

/**
 * Remove a container and return once it is gone. A removal already in progress (a session's own
 * dispose racing a Ctrl-C, say) answers 409 at once while the daemon is still deleting; the caller
 * would then exit with the container listed as "Removal In Progress", so wait for the daemon to finish.
 */
async function removeContainer(container: Docker.Container): Promise<void> {
  await container.remove({ force: true }).catch(() => undefined);
  // Resolves when the container is removed; 404 means it already is.
  await Promise.race([
    container.wait({ condition: 'removed' }).catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, 30_000).unref()),
  ]);
}

function ownerAlive(labels: Record<string, string>): boolean {
  if (labels[SANDBOX_LABELS.host] !== hostname()) return true;
  return processAlive(Number(labels[SANDBOX_LABELS.pid]));
}
