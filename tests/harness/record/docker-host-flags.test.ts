import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { RECORD_MANIFEST } from './record-fixture.js';

/**
 * `harness record --docker-host` and `docker_hosts:` are read before anything is checked or
 * written: a bad host is a one-line usage error (exit 2) naming the flag or field and the fix.
 * The sweep over real hosts is tests/harness/record/several-hosts.test.ts.
 */

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-record-hosts-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function record(args: string[]) {
  const io = bufferIo();
  const out = path.join(tmp, `run-${Math.random().toString(36).slice(2)}`);
  const exit = await runCli(['record', RECORD_MANIFEST, '--depths', '1', '--out', out, ...args], io);
  const written = await readdir(out).catch(() => null);
  return { exit, stderr: io.stderr(), written };
}

describe('harness record --docker-host', () => {
  it('refuses a plain-tcp host, a bad capacity and an ssh url with exit 2, naming the part and the fix, writing nothing', async () => {
    const results = await Promise.all([
      record(['--docker-host', 'tcp://10.0.0.7:2375']),
      record(['--docker-host', 'unix:///var/run/docker.sock,capacity=many']),
      record(['--docker-host', 'unix:///var/run/docker.sock', '--docker-host', 'ssh://me@box']),
    ]);
    expect(results.map((r) => r.exit)).toEqual([EXIT.usage, EXIT.usage, EXIT.usage]);
    expect(results.map((r) => r.written)).toEqual([null, null, null]);
    expect(results.map((r) => r.stderr)).toMatchInlineSnapshot(`
      [
        "harness: --docker-host tcp://10.0.0.7:2375: tls tcp:// needs tls (ca, cert, key): a Docker port without TLS gives root on that machine to anyone who reaches it
      ",
        "harness: --docker-host unix:///var/run/docker.sock,capacity=many: capacity must be a whole number from 1 to 256, got "many"
      ",
        "harness: --docker-host ssh://me@box: url must be unix:///path/to/docker.sock or tcp://HOST:PORT (ssh:// is not supported; forward the socket instead)
      ",
      ]
    `);
  });

  it('reads docker_hosts from an explicit --providers file even for a SIMULATED sweep, and refuses a bad entry there by its field', async () => {
    const file = path.join(tmp, 'providers.yaml');
    await writeFile(file, ['version: 1', 'providers: {}', 'models: {}', 'docker_hosts:', '  - url: unix:///var/run/docker.sock', '    capacity: 0', ''].join('\n'));
    const result = await record(['--providers', file]);
    expect(result.exit).toBe(EXIT.usage);
    expect(result.written).toBe(null);
    expect(result.stderr.replaceAll(tmp, '<tmp>')).toMatchInlineSnapshot(`
      "harness: <tmp>/providers.yaml:6: docker_hosts[0].capacity: must be at least 1, got 0; e.g. capacity: 4
      "
    `);
  });

  it.skipIf(!HAS_DOCKER)('stops with the fatal outcome (exit 3) before writing anything when no host answers, naming each', async () => {
    const result = await record(['--docker-host', 'unix:///nonexistent/a.sock', '--docker-host', 'unix:///nonexistent/b.sock,capacity=4']);
    expect(result.exit).toBe(EXIT.environment);
    expect(result.written).toBe(null);
    expect(result.stderr).toMatch(/^harness: no Docker host can run sandboxes: unix:\/\/\/nonexistent\/a\.sock: no answer within \d+ ms; unix:\/\/\/nonexistent\/b\.sock: no answer/);
  });
});
