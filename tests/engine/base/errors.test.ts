import { describe, expect, it } from 'vitest';
import { DockerUnavailableError, SandboxHostLostError, hostLossReason } from '../../../engine/index.js';

describe('a lost pool host', () => {
  it('is told in its own words: a connection failure names the host that failed, not the environment’s daemon', () => {
    const refused = new DockerUnavailableError('unix:///var/run/docker.sock', { cause: new Error('connect ECONNREFUSED 127.0.0.1:44775') });
    expect(hostLossReason(refused)).toBe('connect ECONNREFUSED 127.0.0.1:44775');
    expect(hostLossReason(new Error('socket hang up'))).toBe('socket hang up');
    expect(new SandboxHostLostError('tcp://127.0.0.1:44775', { cause: refused }).message).toMatchInlineSnapshot(`"Docker host tcp://127.0.0.1:44775 stopped answering (connect ECONNREFUSED 127.0.0.1:44775); it is drained and the work can be re-run on another host."`);
  });
});
