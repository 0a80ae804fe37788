import Docker from 'dockerode';
import { NoSandboxHostError, SandboxDisposedError, SandboxHostLostError, WorkspacePathError, hostLossReason } from '../base/errors.js';
import { PooledSandbox, type PoolHost } from './internal/pooled-sandbox.js';
import { copyImage, hasImage } from './internal/image-copy.js';
import type { Sandbox, SandboxCreateOptions, SandboxProvider } from '../ports/sandbox.js';
import { DockerSandboxProvider, type SandboxLimits } from './docker-sandbox.js';
import { dockerClientFor, type DockerHostSpec } from './docker-host.js';
import type { ContainerShutdown } from './container-shutdown.js';
import type { WorkspaceTransportChoice, WorkspaceTransportKind } from './workspace-transport.js';

export interface DockerHostPoolOptions {
  /** The hosts, parsed with {@link DockerHostSpec}. At least one. */
  hosts: DockerHostSpec[];
  /** Sandbox image every host must hold (loaded onto those that lack it). */
  image: string;
  /** Workspace transport of every host whose spec says `auto`. Default `auto` (bind for a local socket, archive otherwise). */
  transport?: WorkspaceTransportChoice;
  /** Passed to every host's {@link DockerSandboxProvider}. Default its defaults. */
  limits?: Partial<SandboxLimits>;
  /** Passed to every host's provider. Default 1 MiB. */
  outputCapBytes?: number;
  /**
   * Where to copy the image from when no pool host has it (`docker save` here, `load` there).
   * Default: the daemon the environment names (`DOCKER_HOST`), where `harness sandbox build` puts it.
   * `null`: pool hosts only.
   */
  imageSource?: Docker | null;
  /** A host that does not answer a ping within this is taken for lost. Default 5000 ms. */
  pingTimeoutMs?: number;
  /** While sandboxes run, every busy host is pinged this often, so a hung host is drained too. Default 2000 ms. */
  healthIntervalMs?: number;
  /** Builds a host's client. Default {@link dockerClientFor}. */
  clientFor?: (spec: DockerHostSpec) => Docker;
  /**
   * Shared by every host's provider (and whatever else the caller runs, e.g. grading), so one
   * Ctrl-C path removes the containers of a run on every host. Default: one per host's provider.
   */
  shutdown?: ContainerShutdown;
}

/** What preflight found on one host. */
export interface HostPreflight {
  url: string;
  reachable: boolean;
  /** `present`: already there; `loaded`: copied onto it now; `missing`: absent and could not be loaded. */
  image: 'present' | 'loaded' | 'missing' | 'unknown';
  transport: WorkspaceTransportKind | null;
  /** Why the host will not be used, when it will not. */
  problem?: string;
}

/** A host's state, for progress displays and tests. */
export interface HostStatus {
  url: string;
  capacity: number;
  /** Its workspace transport, `auto` resolved. */
  transport: WorkspaceTransportKind;
  inFlight: number;
  /** Sandboxes created on this host so far. */
  created: number;
  drained: boolean;
  drainReason?: string;
}


/**
 * A {@link SandboxProvider} over several Docker daemons. Each sandbox goes to the answering host
 * with the most free capacity (`capacity - inFlight`; capacity is a share, never a wait, so a
 * node holding a sandbox while its verifier opens a second cannot deadlock the pool). A host that
 * stops answering is drained: work on it fails with the retryable {@link SandboxHostLostError},
 * new sandboxes go elsewhere, and {@link NoSandboxHostError} is raised only when no host is left.
 * Open one with {@link openDockerHostPool}, which runs the preflight.
 */
export class DockerHostPool implements SandboxProvider {
  private readonly hosts: PoolHost[];
  private readonly pingTimeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly options: DockerHostPoolOptions) {
    if (options.hosts.length === 0) throw new NoSandboxHostError(['no host was given']);
    this.pingTimeoutMs = options.pingTimeoutMs ?? 5000;
    this.hosts = options.hosts.map((spec) => {
      const docker = (options.clientFor ?? dockerClientFor)(spec);
      let markLost: PoolHost['markLost'] = () => undefined;
      const lost = new Promise<never>((_, reject) => {
        markLost = reject;
      });
      lost.catch(() => undefined);
      const provider = new DockerSandboxProvider({
        image: options.image,
        docker,
        transport: spec.transport === 'auto' ? (options.transport ?? 'auto') : spec.transport,
        ...(options.limits ? { limits: options.limits } : {}),
        ...(options.outputCapBytes ? { outputCapBytes: options.outputCapBytes } : {}),
        ...(options.shutdown ? { shutdown: options.shutdown } : {}),
      });
      return { spec, docker, provider, inFlight: 0, created: 0, drained: false, lost, markLost };
    });
  }

  /** Sum of the answering hosts' capacities: a sensible concurrency for the caller. */
  get capacity(): number {
    return this.hosts.filter((h) => !h.drained).reduce((sum, h) => sum + h.spec.capacity, 0);
  }

  /** Every host's client, drained ones included (a caller pruning a run's containers tries them all). */
  clients(): Docker[] {
    return this.hosts.map((h) => h.docker);
  }

  status(): HostStatus[] {
    return this.hosts.map((h) => ({
      url: h.spec.url, capacity: h.spec.capacity, transport: h.provider.transport, inFlight: h.inFlight, created: h.created, drained: h.drained,
      ...(h.drainReason ? { drainReason: h.drainReason } : {}),
    }));
  }

  /**
   * Every host: reachable, and the image present or loaded onto it. Hosts that fail are drained
   * (the reason is in the result); throws {@link NoSandboxHostError} when none is left.
   */
  async preflight(): Promise<HostPreflight[]> {
    const reachable = await Promise.all(this.hosts.map((h) => this.answers(h)));
    const report: HostPreflight[] = this.hosts.map((h, i) => ({
      url: h.spec.url,
      reachable: reachable[i]!,
      image: 'unknown',
      transport: reachable[i] ? h.provider.transport : null,
      ...(reachable[i] ? {} : { problem: `no answer within ${this.pingTimeoutMs} ms` }),
    }));
    const has = await Promise.all(this.hosts.map((h, i) => (reachable[i] ? hasImage(h.docker, this.options.image) : Promise.resolve(false))));
    for (const [i, h] of this.hosts.entries()) {
      const entry = report[i]!;
      if (!entry.reachable) continue;
      if (has[i]) {
        entry.image = 'present';
        continue;
      }
      const source = this.hosts.find((_, j) => has[j])?.docker ?? (this.options.imageSource === undefined ? new Docker() : this.options.imageSource);
      try {
        if (!source || !(await hasImage(source, this.options.image))) throw new Error('no host and no local daemon holds it');
        await copyImage(source, h.docker, this.options.image);
        entry.image = 'loaded';
        has[i] = true;
      } catch (error) {
        entry.image = 'missing';
        entry.problem = `sandbox image ${this.options.image} missing and not loaded: ${(error as Error).message}`;
      }
    }
    for (const [i, h] of this.hosts.entries()) {
      const problem = report[i]!.problem;
      if (problem) this.drain(h, problem);
    }
    this.requireAHost();
    return report;
  }

  async create(options: SandboxCreateOptions): Promise<Sandbox> {
    for (;;) {
      const host = this.pick();
      host.inFlight++;
      // Watched from the first request: a host that hangs would otherwise hold create() forever.
      this.watch();
      try {
        const inner = await Promise.race([host.provider.create(options), host.lost]);
        host.created++;
        return new PooledSandbox(inner, host, this);
      } catch (error) {
        host.inFlight--;
        // Nothing ran yet, so a lost host costs nothing: place the sandbox elsewhere.
        if (await this.lostBecause(host, error)) continue;
        throw error;
      }
    }
  }

  /** Stops the health checks. Sandboxes still open keep working. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** @internal (for its sandboxes) True, and the host drained, when `error` came with the host no longer answering. */
  async lostBecause(host: PoolHost, error: unknown): Promise<boolean> {
    if (host.drained) return true;
    if (error instanceof WorkspacePathError || error instanceof SandboxDisposedError) return false;
    if (await this.answers(host)) return false;
    this.drain(host, hostLossReason(error));
    return true;
  }

  /** @internal (for its sandboxes) A sandbox is done with its host. */
  release(host: PoolHost): void {
    host.inFlight--;
    if (!this.hosts.some((h) => h.inFlight > 0)) this.close();
  }

  private pick(): PoolHost {
    this.requireAHost();
    const live = this.hosts.filter((h) => !h.drained);
    return live.reduce((best, h) => (h.spec.capacity - h.inFlight > best.spec.capacity - best.inFlight ? h : best));
  }

  private requireAHost(): void {
    if (this.hosts.some((h) => !h.drained)) return;
    throw new NoSandboxHostError(this.hosts.map((h) => `${h.spec.url}: ${h.drainReason ?? 'drained'}`));
  }

  private drain(host: PoolHost, reason: string): void {
    if (host.drained) return;
    host.drained = true;
    host.drainReason = reason;
    host.markLost(new SandboxHostLostError(host.spec.url, { cause: new Error(reason) }));
  }

  private async answers(host: PoolHost): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.pingTimeoutMs);
    });
    const ping = host.docker.ping().then(() => true, () => false);
    const answered = await Promise.race([ping, late]);
    clearTimeout(timer);
    return answered;
  }

  /** A host that hangs rather than refuses would hold its work forever; a ping that fails drains it. */
  private watch(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.checking) return;
      this.checking = true;
      const busy = this.hosts.filter((h) => !h.drained && h.inFlight > 0);
      void Promise.all(busy.map(async (h) => (await this.answers(h)) || this.drain(h, `no answer to a ping within ${this.pingTimeoutMs} ms`))).finally(() => {
        this.checking = false;
      });
    }, this.options.healthIntervalMs ?? 2000);
    this.timer.unref();
  }
}

/** Builds a pool and runs its preflight; the report says what each host needed. */
export async function openDockerHostPool(options: DockerHostPoolOptions): Promise<{ pool: DockerHostPool; preflight: HostPreflight[] }> {
  const pool = new DockerHostPool(options);
  const preflight = await pool.preflight();
  return { pool, preflight };
}

/** True when `error` (or one of its causes) says the work may be re-run on another host. */
export function isRetryableSandboxError(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e instanceof SandboxHostLostError) return true;
  }
  return false;
}

/**
 * Runs `work`, and runs it again while it fails only because its host was lost. The pool has
 * drained that host, so the next attempt lands elsewhere; when none is left the pool's
 * {@link NoSandboxHostError} ends it. `attempts` (default: one per host, plus one) bounds it.
 */
export async function withHostRetry<T>(pool: DockerHostPool, work: (attempt: number) => Promise<T>, attempts = pool.status().length + 1): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (!isRetryableSandboxError(error) || attempt >= attempts) throw error;
    }
  }
}
