import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';

const dir = await mkdtemp(path.join(tmpdir(), 'rdh-sim-cli-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe('harness sim serve', () => {
  it('says SIMULATED on its start line, serves until SIGTERM, then stops cleanly with exit 0', async () => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'harness/bin.js'), 'sim', 'serve', '--port', '0', '--faults', 'tests/harness/sim/serve/faults-ci.yaml'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk) => ((stdout += chunk), stdout.includes('Ctrl-C') && resolve()));
        child.on('close', () => reject(new Error(`exited before starting: ${stderr}`)));
      });
      const url = /on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(stdout)![1]!;
      expect(stdout.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')).toMatchInlineSnapshot(`
        "harness sim serve: SIMULATED provider (the built-in population, not a real model) on http://127.0.0.1:<port>/v1, manifest manifests/smoke-http.yaml, faults: tests/harness/sim/serve/faults-ci.yaml
          models: sim-executor (SIMULATED), sim-reviewer (SIMULATED); stats: GET http://127.0.0.1:<port>/_rdh/stats; Ctrl-C stops it
        "
      `);
      const models = (await (await fetch(`${url}/models`)).json()) as { data: Array<{ id: string }> };
      expect(models.data.map((m) => m.id)).toEqual(['sim-executor (SIMULATED)', 'sim-reviewer (SIMULATED)']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout.split('\n').at(-2)).toMatchInlineSnapshot(`"harness sim serve: stopped (SIGTERM) after 0 chat request(s): 0 answered, 0 rate limited, 0 5xx, 0 refused, 0 outage(s)"`);
    expect(stderr).toBe('');
  });

  it('refuses a bad fault plan with one line and exit 2, before listening', async () => {
    const file = path.join(dir, 'bad.yaml');
    await writeFile(file, 'version: 1\nseed: 1\nrate_limit: { share: 2, retry_after_s: 1 }\n');
    const { code, stdout, stderr } = await run('sim', 'serve', '--port', '0', '--faults', file);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr.replace(file, '<file>')).toMatchInlineSnapshot(`
      "harness: <file>:3: rate_limit.share: must be at most 1, got 2; e.g. share: 0.2
      "
    `);
  });

  it('refuses a bad manifest with exit 2', async () => {
    const { code, stderr } = await run('sim', 'serve', '--port', '0', '--manifest', path.join(dir, 'none.yaml'));
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('says which flag to change when the port is taken: exit 3, one line', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const { code, stderr } = await run('sim', 'serve', '--port', String(port));
      expect(code).toBe(3);
      expect(stderr.replace(String(port), '<port>')).toMatchInlineSnapshot(`
        "harness: port <port> on 127.0.0.1 is in use (another harness sim serve, or another server); pick another with --port N (0 picks a free one)
        "
      `);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
