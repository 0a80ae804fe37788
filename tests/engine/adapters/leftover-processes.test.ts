import type Docker from 'dockerode';
import { describe, expect, it, vi } from 'vitest';
import { SandboxProcessesLeftError } from '../../../engine/index.js';
import { clearLeftovers } from '../../../engine/index.js';

/** A container whose every exec is refused the way Docker refuses one in a container that will not run. */
function refusingContainer(): Docker.Container & { calls: string[] } {
  const calls: string[] = [];
  const refuse = (what: string) => async () => {
    calls.push(what);
    throw Object.assign(new Error('container is not running'), { statusCode: 409 });
  };
  return {
    calls,
    exec: refuse('exec'),
    kill: refuse('kill'),
    inspect: vi.fn(async () => (calls.push('inspect'), { State: { Running: false } })),
    start: vi.fn(async () => calls.push('start')),
  } as unknown as Docker.Container & { calls: string[] };
}

describe('clearing what a command left', () => {
  it('restarts a container it cannot look into, and fails closed with a coded error when the restarted one cannot be looked into either', async () => {
    const container = refusingContainer();
    const error = await clearLeftovers(container, 'box-1', { user: '1000:1000', boundMs: 1_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxProcessesLeftError);
    expect(error).toMatchObject({ code: 'sandbox_processes_left', sandboxId: 'box-1' });
    expect((error as Error).message).toContain('could not be looked into (container is not running)');
    expect(container.calls).toEqual(['exec', 'kill', 'inspect', 'start', 'exec']);
  });

  it('lets a daemon that does not answer at all go up as it is, not as the sandbox failing', async () => {
    const gone = Object.assign(new Error('connect ECONNREFUSED /var/run/docker.sock'), { code: 'ECONNREFUSED', syscall: 'connect' });
    const container = { exec: async () => Promise.reject(gone) } as unknown as Docker.Container;
    await expect(clearLeftovers(container, 'box-2', { user: '1000:1000', boundMs: 1_000 })).rejects.toBe(gone);
  });
});
