import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { SANDBOX_LABELS, pruneSandboxes } from '../../../engine/index.js';

/**
 * A removal already in progress (a session disposing of its sandbox while Ctrl-C prunes the run)
 * answers 409 at once while the daemon is still deleting. Prune must return only once the
 * container is gone, or the command exits with it listed as "Removal In Progress". The daemon is
 * a double here because the race cannot be timed on a real one; the Ctrl-C test in
 * tests/harness/record/interrupt-containers.test.ts covers the real daemon.
 */
function daemonMidRemoval(deleteMs: number) {
  let gone = false;
  const container = {
    remove: async () => {
      throw Object.assign(new Error('removal of container x is already in progress'), { statusCode: 409 });
    },
    wait: async (options: { condition?: string }) => {
      if (options.condition !== 'removed') throw new Error(`unexpected wait condition ${options.condition}`);
      await new Promise((r) => setTimeout(r, deleteMs));
      gone = true;
      return { StatusCode: 137 };
    },
  };
  const labels = { [SANDBOX_LABELS.sandbox]: '1', [SANDBOX_LABELS.run]: 'r', [SANDBOX_LABELS.pid]: String(process.pid), [SANDBOX_LABELS.host]: hostname() };
  const docker = {
    ping: async () => 'OK',
    listContainers: async () => (gone ? [] : [{ Id: 'x', Names: ['/rdh-x'], Labels: labels, State: 'removing' }]),
    getContainer: () => container,
    listVolumes: async () => ({ Volumes: [] }),
  };
  return { docker: docker as unknown as Docker, isGone: () => gone };
}

describe('pruneSandboxes', () => {
  it('returns only once a removal already in progress has finished', async () => {
    const daemon = daemonMidRemoval(300);
    const result = await pruneSandboxes(daemon.docker, { all: true, runId: 'r', ownerPid: process.pid });
    expect(result.removed).toEqual(['rdh-x']);
    expect(daemon.isGone()).toBe(true);
    expect(await daemon.docker.listContainers({ all: true })).toEqual([]);
  });
});
