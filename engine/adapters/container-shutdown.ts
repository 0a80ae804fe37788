import { SandboxesClosedError } from '../base/errors.js';

/**
 * The moment a process stops making containers. Listing a run's containers and removing them
 * cannot by itself empty the run: a session abandoned mid-create starts its container just after
 * the listing, and it outlives the process. So every container creation is admitted here; once
 * {@link ContainerShutdown.close} is called no new one is admitted, and a creation already under
 * way removes what it made instead of handing it out. `close()` resolves when none is under way,
 * after which removing the run's containers by label leaves nothing behind.
 */
export class ContainerShutdown {
  private closedFlag = false;
  private readonly underWay = new Set<Promise<unknown>>();

  get closed(): boolean {
    return this.closedFlag;
  }

  /**
   * Runs `make` (create and start a container), unless closed. When the shutdown closed while
   * `make` ran, `remove` disposes of what it made and the call fails with {@link SandboxesClosedError}.
   */
  async admit<T>(what: string, make: () => Promise<T>, remove: (made: T) => Promise<unknown>): Promise<T> {
    if (this.closedFlag) throw new SandboxesClosedError(what);
    const run = (async () => {
      const made = await make();
      if (!this.closedFlag) return made;
      await remove(made);
      throw new SandboxesClosedError(what);
    })();
    this.underWay.add(run);
    try {
      return await run;
    } finally {
      this.underWay.delete(run);
    }
  }

  /** Admits no new container; resolves once every creation under way has settled. */
  async close(): Promise<void> {
    this.closedFlag = true;
    await Promise.allSettled([...this.underWay]);
  }
}
