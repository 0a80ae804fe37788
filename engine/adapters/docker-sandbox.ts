import { randomBytes } from 'node:crypto';
import { chown, cp, lchown, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { assertDockerReachable, daemonFailure, sandboxLabels } from './docker-daemon.js';
import { SandboxDisposedError, SandboxImageMissingError, SandboxesClosedError } from '../base/errors.js';
import { ContainerShutdown } from './container-shutdown.js';
import { clearLeftovers, sweptCommand } from './leftover-processes.js';
import { CappedSink } from './internal/output-cap.js';
import { resolveInside } from './internal/workspace-fs.js';
import {
  archiveTransport,
  bindTransport,
  resolveTransport,
  type WorkspaceTransport,
  type WorkspaceTransportChoice,
  type WorkspaceTransportKind,
} from './workspace-transport.js';
import {
  WORKSPACE_MOUNT,
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  type SandboxCreateOptions,
  type SandboxProvider,
  type WorkspaceSnapshot,
} from '../ports/sandbox.js';

export interface SandboxLimits {
  /** Memory ceiling, swap included (no swap is granted). Default 1 GiB. */
  memoryBytes: number;
  /** CPU share in cores. Default 1. */
  cpus: number;
  /** Process ceiling, so a fork bomb exhausts the container and not the host. Default 256. */
  pids: number;
  /** Size of the writable /tmp (the root filesystem is read-only). Default 256 MiB. */
  tmpBytes: number;
}

/**
 * PID 1: reaps every orphan the moment it dies, so a killed command's processes are gone (not
 * zombies holding pids) when the sweep after it looks. With no child to wait for it waits for
 * SIGCHLD, blocked so one that arrives between the two calls stays pending instead of being lost.
 */
const REAPER = [
  'import os, signal',
  'signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})',
  'while True:',
  '    try:',
  '        os.wait()',
  '    except ChildProcessError:',
  '        signal.sigtimedwait({signal.SIGCHLD}, 1)',
].join('\n');

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 1024 ** 3,
  cpus: 1,
  pids: 256,
  tmpBytes: 256 * 1024 ** 2,
};

/** Default of {@link DockerSandboxProviderOptions.processExitTimeoutMs}: long enough for a loaded machine to reap a fork bomb. */
export const DEFAULT_PROCESS_EXIT_TIMEOUT_MS = 15_000;

export interface DockerSandboxProviderOptions {
  /** Image to run, e.g. `rdh-sandbox:<digest>`; must already be on the daemon. */
  image: string;
  /** Client to use. Default: one built from the environment (`DOCKER_HOST` and friends). */
  docker?: Docker;
  /** Resource ceilings. Default {@link DEFAULT_LIMITS}. */
  limits?: Partial<SandboxLimits>;
  /** Per-stream output cap for `exec`. Default 1 MiB. */
  outputCapBytes?: number;
  /**
   * How long a command's processes get to be gone once it has ended (normally, by its timeout
   * or killed), checked every 50 ms, before the container is killed and restarted; the
   * restarted container gets as long again to answer with none left, or the command fails with
   * `SandboxProcessesLeftError`. A bound, not a wait: a clean container answers at the first
   * check. Default {@link DEFAULT_PROCESS_EXIT_TIMEOUT_MS} (15 s).
   */
  processExitTimeoutMs?: number;
  /**
   * How the workspace reaches the container (see {@link WorkspaceTransportChoice}). Default
   * `auto`: a bind mount for a daemon on a local unix socket, tar streams into a volume otherwise.
   */
  transport?: WorkspaceTransportChoice;
  /**
   * Shared with everything else that makes this run's containers; once closed, `create` refuses
   * and a creation under way removes its container. Default: a shutdown of this provider's own,
   * never closed.
   */
  shutdown?: ContainerShutdown;
}

/**
 * The user agent code runs as. When the harness runs as root it hands the workspace to an
 * unprivileged uid; otherwise the sandbox runs as the invoking user so both can write the
 * bind mount without either being root.
 */
function sandboxOwner(): { uid: number; gid: number; chown: boolean } {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return uid === 0 ? { uid: 1000, gid: 1000, chown: true } : { uid, gid, chown: false };
}

export class DockerSandboxProvider implements SandboxProvider {
  readonly docker: Docker;
  private readonly limits: SandboxLimits;
  private readonly outputCapBytes: number;
  private readonly processExitTimeoutMs: number;
  /** The workspace transport in force, `auto` resolved. */
  readonly transport: WorkspaceTransportKind;
  private imageChecked = false;
  private readonly shutdown: ContainerShutdown;

  constructor(private readonly options: DockerSandboxProviderOptions) {
    this.docker = options.docker ?? new Docker();
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.outputCapBytes = options.outputCapBytes ?? 1024 ** 2;
    this.processExitTimeoutMs = options.processExitTimeoutMs ?? DEFAULT_PROCESS_EXIT_TIMEOUT_MS;
    this.transport = resolveTransport(this.docker, options.transport);
    this.shutdown = options.shutdown ?? new ContainerShutdown();
  }

  /** Fails fast with an actionable error when the daemon or the image is missing. */
  async ensureReady(): Promise<void> {
    if (this.imageChecked) return;
    await assertDockerReachable(this.docker);
    try {
      await this.docker.getImage(this.options.image).inspect();
    } catch (cause) {
      throw new SandboxImageMissingError(this.options.image, { cause });
    }
    this.imageChecked = true;
  }

  async create(options: SandboxCreateOptions): Promise<Sandbox> {
    if (this.shutdown.closed) throw new SandboxesClosedError(`a sandbox for ${options.purpose}`);
    return this.createOn(options).catch((error: unknown) => {
      throw daemonFailure(error);
    });
  }

  private async createOn(options: SandboxCreateOptions): Promise<Sandbox> {
    await this.ensureReady();
    const owner = sandboxOwner();
    // Only a bind mount shares host files with the sandbox user; an archive carries its owner in the tar.
    if (this.transport === 'archive') owner.chown = false;
    const workspaceDir = path.resolve(options.workspaceDir);
    if (options.copyFrom) await rm(workspaceDir, { recursive: true, force: true });
    await mkdir(workspaceDir, { recursive: true });
    if (options.copyFrom) {
      // Symlinks are copied as they are (never followed), so a planted link cannot pull host files in.
      await cp(path.resolve(options.copyFrom), workspaceDir, { recursive: true, verbatimSymlinks: true, force: true });
      if (owner.chown) await chownTree(workspaceDir, owner);
    }
    if (owner.chown) await chown(workspaceDir, owner.uid, owner.gid);
    const safeRun = options.runId.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 40);
    const name = `rdh-${safeRun}-${randomBytes(4).toString('hex')}`;
    const transport =
      this.transport === 'bind'
        ? bindTransport(workspaceDir, owner.chown ? owner : null)
        : archiveTransport(this.docker, workspaceDir, owner, name, sandboxLabels(options.runId, options.purpose));
    await transport.prepare();
    const container = await this.shutdown.admit(`sandbox ${name}`, () => this.startContainer(name, options, owner, transport), async (made) => {
      await made.remove({ force: true }).catch(() => undefined);
      await transport.dispose().catch(() => undefined);
    });
    return new DockerSandbox(name, container, workspaceDir, owner, this.outputCapBytes, transport, this.processExitTimeoutMs);
  }

  /** Creates and starts the container; on a failure nothing of it is left. */
  private async startContainer(name: string, options: SandboxCreateOptions, owner: { uid: number; gid: number; chown: boolean }, transport: WorkspaceTransport): Promise<Docker.Container> {
    const container = await this.docker.createContainer({
      name,
      Image: this.options.image,
      // PID 1 is a tiny reaper. The kernel shields a namespace's init from SIGKILL sent inside
      // it, so `kill -KILL -1` (how a timeout clears a runaway command) stops the work but not
      // the container, and orphans it inherits are reaped instead of holding pids as zombies.
      Cmd: ['python3', '-S', '-c', REAPER],
      User: `${owner.uid}:${owner.gid}`,
      WorkingDir: WORKSPACE_MOUNT,
      Env: ['HOME=/tmp', 'LANG=C.UTF-8', 'PYTHONDONTWRITEBYTECODE=1'],
      NetworkDisabled: true,
      Labels: sandboxLabels(options.runId, options.purpose),
      HostConfig: {
        NetworkMode: 'none',
        ...transport.hostConfig(),
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${this.limits.tmpBytes},mode=1777` },
        Memory: this.limits.memoryBytes,
        MemorySwap: this.limits.memoryBytes,
        NanoCpus: Math.round(this.limits.cpus * 1e9),
        PidsLimit: this.limits.pids,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        IpcMode: 'private',
        Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }],
      },
    }).catch(async (error: unknown) => {
      await transport.dispose().catch(() => undefined);
      throw error;
    });
    try {
      await container.start();
      await transport.started(container);
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      await transport.dispose().catch(() => undefined);
      throw error;
    }
    return container;
  }
}

class DockerSandbox implements Sandbox {
  private disposed = false;
  /** Set when a command's processes could not be cleared; every later command tries again first, and refuses if it cannot. */
  private unclean = false;

  constructor(
    readonly id: string,
    private readonly container: Docker.Container,
    readonly workspaceDir: string,
    private readonly owner: { uid: number; gid: number; chown: boolean },
    private readonly outputCapBytes: number,
    private readonly transport: WorkspaceTransport,
    private readonly processExitTimeoutMs: number,
  ) {}

  private live(): void {
    if (this.disposed) throw new SandboxDisposedError(this.id);
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    // A daemon that went away is no command's result.
    return this.run(command, options).catch((error: unknown) => {
      throw daemonFailure(error);
    });
  }

  private async run(command: string, options: ExecOptions): Promise<ExecResult> {
    this.live();
    const timeoutMs = options.timeoutMs ?? 60_000;
    const cwd = options.cwd ?? '.';
    resolveInside(this.workspaceDir, cwd);
    if (this.unclean) await this.clear();
    await this.transport.beforeCommand(this.container);
    const started = performance.now();
    const swept = sweptCommand(command);
    const spec = {
      Cmd: swept.cmd,
      AttachStdout: true,
      AttachStderr: true,
      WorkingDir: path.posix.join(WORKSPACE_MOUNT, cwd),
      Env: [...Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`), swept.env],
      User: this.user,
    };
    const exec = await this.container.exec(spec).catch(async (error: { statusCode?: number }) => {
      // 409: the container stopped (killed by the memory ceiling, say). The workspace lives on
      // the host, so a restart loses nothing.
      if (error.statusCode !== 409) throw error;
      await this.container.start();
      return this.container.exec(spec);
    });
    const stdout = new CappedSink(this.outputCapBytes);
    const stderr = new CappedSink(this.outputCapBytes, Buffer.byteLength(swept.mark));
    const stream = await exec.start({ hijack: true, stdin: false });
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    this.container.modem.demuxStream(stream, stdout, stderr);

    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      ended.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    // Read before the clearing, which may restart the container and take the exec's record with it.
    const exitCode = timedOut ? null : await exitCodeOf(exec);
    // Whatever the command started dies here, before anything else runs: a background process,
    // or a bomb that outlived its shell, would otherwise share the next command's container.
    // The command's runner has swept already when its stderr ends with the mark.
    const sweptByRunner = !timedOut && stderr.takeTrailer(swept.mark);
    try {
      if (!sweptByRunner) await this.clear();
      // Nothing is left to write to the stream of a command that timed out; Docker closes it at its own pace.
      if (timedOut) await Promise.race([ended, new Promise((r) => setTimeout(r, 2000).unref())]);
    } finally {
      stream.destroy();
    }
    await this.transport.commandDone(this.container);
    return {
      exitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut,
      truncated: stdout.truncated || stderr.truncated,
      durationMs: Math.round(performance.now() - started),
    };
  }

  private get user(): string {
    return `${this.owner.uid}:${this.owner.gid}`;
  }

  /** Kills every process but PID 1 and waits until they are gone (see {@link clearLeftovers}); marks the sandbox unclean if that fails. */
  private async clear(): Promise<void> {
    this.unclean = true;
    await clearLeftovers(this.container, this.id, { user: this.user, boundMs: this.processExitTimeoutMs });
    this.unclean = false;
  }

  async readFile(p: string): Promise<string> {
    this.live();
    return this.transport.fs.read(p);
  }

  async writeFile(p: string, content: string): Promise<void> {
    this.live();
    return this.transport.write(this.container, p, content).catch((error: unknown) => {
      throw daemonFailure(error);
    });
  }

  async listFiles(dir = '.'): Promise<string[]> {
    this.live();
    return this.transport.fs.list(dir);
  }

  async snapshot(): Promise<WorkspaceSnapshot> {
    this.live();
    return this.transport.fs.snapshot();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.container.remove({ force: true }).catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404) throw error;
    });
    await this.transport.dispose();
  }
}

/** Hands a copied tree to the sandbox user, links included (never following them). */
async function chownTree(root: string, owner: { uid: number; gid: number }): Promise<void> {
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    await lchown(path.join(entry.parentPath, entry.name), owner.uid, owner.gid);
  }
}

/** Docker can report the stream's end a moment before the exec's exit status settles. */
async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let i = 0; i < 50; i++) {
    const info = await exec.inspect();
    if (!info.Running) return info.ExitCode ?? null;
    await new Promise((r) => setTimeout(r, 10));
  }
  return null;
}
