import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { ContainerShutdown, SANDBOX_LABELS, SandboxesClosedError } from '../../../engine/index.js';
import { gradeTree } from '../../../harness/index.js';
import { HAS_DOCKER, TRANSPORTS, testProvider } from '../../support/docker.js';

/**
 * A second Ctrl-C removes the run's containers by label and exits. A session caught between
 * `createContainer` and `start` would start its container after that listing and leave it
 * running; the shutdown closes first, waits for creations under way and removes what they made.
 */
describe('ContainerShutdown', () => {
  it('refuses new work once closed, and removes what a creation under way made', async () => {
    const shutdown = new ContainerShutdown();
    const removed: string[] = [];
    let finish!: () => void;
    const underWay = shutdown.admit('sandbox a', () => new Promise<string>((resolve) => (finish = () => resolve('a'))), async (made) => removed.push(made));
    const refusedLater = expect(underWay).rejects.toThrowErrorMatchingInlineSnapshot(`[SandboxesClosedError: sandbox a was not started: the run is shutting down and makes no more containers.]`);
    let closed = false;
    const closing = shutdown.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    // close() waits for the creation under way.
    expect(closed).toBe(false);
    finish();
    await closing;
    await refusedLater;
    expect(removed).toEqual(['a']);
    await expect(shutdown.admit('sandbox b', async () => 'b', async () => undefined)).rejects.toBeInstanceOf(SandboxesClosedError);
  });

  it('hands out what it made while open', async () => {
    const shutdown = new ContainerShutdown();
    expect(await shutdown.admit('sandbox c', async () => 'c', async () => undefined)).toBe('c');
  });
});

describe.runIf(HAS_DOCKER)('a closed shutdown in Docker', () => {
  const docker = new Docker();
  const labelled = (runId: string) => docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABELS.run}=${runId}`] } });

  it.each(TRANSPORTS)('removes the containers of sandboxes being created when it closes, and refuses later ones (%s)', async (transport) => {
    const shutdown = new ContainerShutdown();
    // Close the moment Docker is first asked for a container: every creation is then under way.
    let closing: Promise<void> | undefined;
    const spy = new Proxy(docker, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key !== 'createContainer') return typeof value === 'function' ? value.bind(target) : value;
        return (...args: Parameters<Docker['createContainer']>) => {
          const made = target.createContainer(...args);
          closing ??= shutdown.close();
          return made;
        };
      },
    });
    const provider = testProvider({ shutdown, transport, docker: spy });
    const runId = `shutdown-${transport}-${process.pid}-${Date.now()}`;
    const root = await mkdtemp(path.join(tmpdir(), 'rdh-shutdown-'));
    const settled = await Promise.allSettled([0, 1, 2].map((i) => provider.create({ workspaceDir: path.join(root, `w${i}`), runId, purpose: 'shutdown test' })));
    await closing;
    for (const s of settled) if (s.status === 'fulfilled') await s.value.dispose();
    expect(settled.map((s) => (s.status === 'rejected' ? (s.reason as Error).name : 'handed out'))).toEqual(['SandboxesClosedError', 'SandboxesClosedError', 'SandboxesClosedError']);
    expect(await labelled(runId)).toEqual([]);
    await expect(provider.create({ workspaceDir: path.join(root, 'late'), runId, purpose: 'shutdown test' })).rejects.toBeInstanceOf(SandboxesClosedError);
    expect(await labelled(runId)).toEqual([]);
  }, 120_000);

  it('starts no grading container once closed', async () => {
    const shutdown = new ContainerShutdown();
    await shutdown.close();
    const tree = await mkdtemp(path.join(tmpdir(), 'rdh-shutdown-tree-'));
    await expect(gradeTree({ spec: 'sqlcsv', tree, runId: 'shutdown-grading', shutdown })).rejects.toBeInstanceOf(SandboxesClosedError);
    expect(await labelled('shutdown-grading')).toEqual([]);
  }, 120_000);
});
