import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { WORKSPACE_MOUNT } from '../ports/sandbox.js';
import { WorkspaceFs } from './internal/workspace-fs.js';
import { packDirectory, packFiles, replaceFromTar, type TarOwner } from './internal/workspace-tar.js';

/**
 * How a sandbox's workspace reaches its container.
 * - `bind`: the host folder is bind-mounted at `/workspace`. Fastest, but only works when the
 *   daemon shares this machine's filesystem.
 * - `archive`: the workspace lives in a Docker volume on the sandbox's own daemon, copied in
 *   and out as tar streams through the API. Needs nothing shared, so it works with a remote daemon.
 * - `auto`: `bind` for a daemon on a local unix socket, `archive` for anything else.
 */
export type WorkspaceTransportKind = 'bind' | 'archive';
export type WorkspaceTransportChoice = WorkspaceTransportKind | 'auto';

/** `bind` when the client talks to a unix socket on this machine, `archive` otherwise (tcp, ssh, npipe). */
export function resolveTransport(docker: Docker, choice: WorkspaceTransportChoice = 'auto'): WorkspaceTransportKind {
  if (choice !== 'auto') return choice;
  const modem = docker.modem as { socketPath?: unknown; host?: unknown; protocol?: unknown };
  // With no DOCKER_HOST, docker-modem keeps a function that finds the default local socket.
  const unix = typeof modem.socketPath === 'string' || typeof modem.socketPath === 'function';
  return unix && !modem.host && modem.protocol !== 'ssh' ? 'bind' : 'archive';
}

/**
 * The workspace side of one sandbox. The host folder (`Sandbox.workspaceDir`) is always the
 * caller's view of the work: with `bind` it is the mount itself; with `archive` it is a mirror
 * of the volume, written on every write and refreshed after every command, so code that reads the folder
 * directly (a verifier's copy, an assembly) sees what the sandbox made.
 */
export interface WorkspaceTransport {
  readonly kind: WorkspaceTransportKind;
  /** Host-side reads, listings and snapshots (the mirror is in step with the container). */
  readonly fs: WorkspaceFs;
  /** What the container's HostConfig needs so `/workspace` exists. */
  hostConfig(): Pick<Docker.HostConfig, 'Binds' | 'Mounts'>;
  /** Called before the container is created: make what it mounts. */
  prepare(): Promise<void>;
  /** Called once the container runs: fill the volume. */
  started(container: Docker.Container): Promise<void>;
  write(container: Docker.Container, rel: string, content: string): Promise<void>;
  /** Called before every command: bring the container in step with the writes made since the last one. */
  beforeCommand(container: Docker.Container): Promise<void>;
  /** Called after every command: bring the host folder in step with the container. */
  commandDone(container: Docker.Container): Promise<void>;
  /** Remove what the transport made on the daemon (the host folder stays). Idempotent. */
  dispose(): Promise<void>;
}

export function bindTransport(workspaceDir: string, owner: TarOwner | null): WorkspaceTransport {
  const fs = new WorkspaceFs(workspaceDir, owner);
  return {
    kind: 'bind',
    fs,
    hostConfig: () => ({ Binds: [`${workspaceDir}:${WORKSPACE_MOUNT}:rw`] }),
    prepare: async () => undefined,
    started: async () => undefined,
    write: (_container, rel, content) => fs.write(rel, content),
    beforeCommand: async () => undefined,
    commandDone: async () => undefined,
    dispose: async () => undefined,
  };
}

/**
 * The volume is the truth while a command runs. `putArchive` cannot write into a read-only
 * root or a tmpfs, which is why the workspace is a volume and not part of the container.
 *
 * Writes go to the mirror at once (which checks containment, links included) and reach the
 * volume together, as one tar, just before the next command: nothing runs in the container
 * between two writes, and an archive round trip costs about as much as a short command, so a
 * worker writing five files and running its checks pays for one copy instead of five. The
 * first copy carries the whole folder.
 */
export function archiveTransport(docker: Docker, workspaceDir: string, owner: TarOwner, name: string, labels: Record<string, string>): WorkspaceTransport {
  const fs = new WorkspaceFs(workspaceDir, null);
  const volume = `${name}-ws-${randomBytes(3).toString('hex')}`;
  let disposed = false;
  /** The folder has not been copied in yet (it is, whole, before the first command). */
  let unfilled = true;
  /** Written since the last copy: path → latest content. */
  const pending = new Map<string, string>();
  return {
    kind: 'archive',
    fs,
    hostConfig: () => ({ Mounts: [{ Type: 'volume', Source: volume, Target: WORKSPACE_MOUNT, ReadOnly: false }] }),
    async prepare() {
      // Made here, not implicitly by the container, so it carries the labels `sandbox prune` looks for.
      await docker.createVolume({ Name: volume, Labels: labels });
    },
    async started(container) {
      // A fresh volume's root belongs to root and tar's "." entry is never applied, so root
      // (the owner, needing no capability) opens it to the sandbox user once.
      const opener = await container.exec({ Cmd: ['chmod', '0777', WORKSPACE_MOUNT], User: '0:0' });
      await opener.start({ Detach: false, hijack: true, stdin: false }).then(drainStream);
    },
    async write(_container, rel, content) {
      await fs.write(rel, content);
      if (!unfilled) pending.set(rel, content);
    },
    async beforeCommand(container) {
      if (unfilled) {
        await container.putArchive(await packDirectory(workspaceDir, owner), { path: WORKSPACE_MOUNT });
        unfilled = false;
      } else if (pending.size) {
        await container.putArchive(await packFiles(pending, owner), { path: WORKSPACE_MOUNT });
      }
      pending.clear();
    },
    async commandDone(container) {
      const stream = (await container.getArchive({ path: WORKSPACE_MOUNT })) as unknown as NodeJS.ReadableStream;
      await replaceFromTar(stream as import('node:stream').Readable, workspaceDir);
      // A write made while that command ran is not in the volume yet; it stays in the mirror.
      for (const [rel, content] of pending) await fs.write(rel, content);
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await docker
        .getVolume(volume)
        .remove({ force: true })
        .catch((error: { statusCode?: number }) => {
          if (error.statusCode !== 404) throw error;
        });
    },
  };
}

function drainStream(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.on('data', () => undefined);
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}
