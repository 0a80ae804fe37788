import { SandboxHostLostError } from '../../base/errors.js';
import type { ExecOptions, Sandbox } from '../../ports/sandbox.js';
import type { DockerHostSpec } from '../docker-host.js';
import type { DockerSandboxProvider } from '../docker-sandbox.js';
import type Docker from 'dockerode';

/** What the pool needs back from a sandbox: whether an error means its host is gone, and the slot returned. */
export interface HostKeeper {
  lostBecause(host: PoolHost, error: unknown): Promise<boolean>;
  release(host: PoolHost): void;
}

/** One host of a pool and its bookkeeping. */
export interface PoolHost {
  spec: DockerHostSpec;
  docker: Docker;
  provider: DockerSandboxProvider;
  inFlight: number;
  created: number;
  drained: boolean;
  drainReason?: string;
  /** Rejects when the host is drained, so work waiting on it stops at once. */
  lost: Promise<never>;
  markLost: (error: SandboxHostLostError) => void;
}

/** Every call goes to the inner sandbox, and fails retryably (never hangs) once its host is lost. */
export class PooledSandbox implements Sandbox {
  private released = false;
  constructor(
    private readonly inner: Sandbox,
    private readonly host: PoolHost,
    private readonly pool: HostKeeper,
  ) {}

  get id(): string {
    return this.inner.id;
  }
  get workspaceDir(): string {
    return this.inner.workspaceDir;
  }
  /** Which host this sandbox runs on. */
  get hostUrl(): string {
    return this.host.spec.url;
  }

  private async guard<T>(op: () => Promise<T>): Promise<T> {
    if (this.host.drained) throw new SandboxHostLostError(this.host.spec.url, { cause: new Error(this.host.drainReason) });
    try {
      return await Promise.race([op(), this.host.lost]);
    } catch (error) {
      if (error instanceof SandboxHostLostError) throw error;
      if (await this.pool.lostBecause(this.host, error)) throw new SandboxHostLostError(this.host.spec.url, { cause: error });
      throw error;
    }
  }

  exec(command: string, options?: ExecOptions) {
    return this.guard(() => this.inner.exec(command, options));
  }
  readFile(path: string) {
    return this.guard(() => this.inner.readFile(path));
  }
  writeFile(path: string, content: string) {
    return this.guard(() => this.inner.writeFile(path, content));
  }
  listFiles(dir?: string) {
    return this.guard(() => this.inner.listFiles(dir));
  }
  snapshot() {
    return this.guard(() => this.inner.snapshot());
  }

  /** On a lost host there is nothing left to remove; the slot is freed either way. */
  async dispose(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      if (!this.host.drained) await Promise.race([this.inner.dispose(), this.host.lost]).catch(async (error) => {
        if (!(await this.pool.lostBecause(this.host, error))) throw error;
      });
    } finally {
      this.pool.release(this.host);
    }
  }
}
