import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { SANDBOX_LABELS } from '../../../engine/index.js';
import { REPO_ROOT } from '../../../harness/index.js';
import { journalRunId } from './record-child.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { RECORD_MANIFEST } from './record-fixture.js';

/**
 * Ctrl-C twice on `harness record` in Docker (the simulated population): the second one abandons
 * the sessions in flight mid-command, and the command still removes every container of its run
 * (labelled with the run id) before it exits 130. Without that removal the abandoned sandboxes
 * would outlive the process.
 */

const docker = new Docker();
/** The run's containers, by the run id its journal pins (none before the header is written). */
const runContainers = async (out: string) => {
  const run = await journalRunId(out);
  return run ? docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABELS.run}=${run}`] } }) : [];
};

describe.runIf(HAS_DOCKER)('harness record, Ctrl-C twice in Docker', () => {
  it('removes the run’s containers and exits 130', async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-ctrlc-')), `ctrlc-${process.pid}-${Date.now()}`);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'harness/cli.ts'), 'record', RECORD_MANIFEST, '--out', out, '--depths', '1'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Wait until the sweep has sandboxes running (the leaves' checks), then Ctrl-C twice.
    const until = Date.now() + 240_000;
    let seen = 0;
    while (Date.now() < until && (seen = (await runContainers(out)).length) === 0) await new Promise((r) => setTimeout(r, 200));
    expect(seen, output).toBeGreaterThan(0);
    // The second one 50 ms after the first, while sessions are still in flight: 300 ms apart, a fast
    // machine had wound the sweep down and was in Node's own exit when the second came, where the
    // default handler ends the process by the signal (exit code null) before anything can be abandoned.
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    expect(await exited, output).toBe(130);
    expect(await runContainers(out)).toEqual([]);
  }, 300_000);
});
