import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerSandboxProvider, type WorkspaceTransportKind } from '../../engine/index.js';
import { sandboxImageTag } from '../../harness/index.js';
import { figure, type Figure } from './stats.js';

const MODULE = 'def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n';
const TESTS = 'from calc import add, mul\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_mul():\n    assert mul(2, 3) == 6\n';

/**
 * A typical leaf session, as the engine drives it: a sandbox, a few files written, checks run
 * a handful of times with a snapshot around each command, files read and listed, then disposed.
 */
async function leafSession(provider: DockerSandboxProvider, dir: string): Promise<void> {
  const box = await provider.create({ workspaceDir: dir, runId: 'bench-transport', purpose: 'leaf' });
  try {
    await box.writeFile('calc.py', MODULE);
    await box.writeFile('tests/test_calc.py', TESTS);
    await box.writeFile('README.md', '# calc\n');
    for (let round = 0; round < 4; round++) {
      await box.snapshot();
      const run = await box.exec('python3 -m pytest -q -p no:cacheprovider tests');
      if (run.exitCode !== 0) throw new Error(`bench leaf session: pytest failed: ${run.stdout}${run.stderr}`);
      await box.snapshot();
      await box.listFiles();
      await box.readFile('calc.py');
    }
  } finally {
    await box.dispose();
  }
}

/**
 * The archive transport (workspace in a volume, tar streams through the API: what a remote
 * Docker host needs) against the bind mount (the local fast path), on the same daemon, the
 * two interleaved so machine noise falls on both. Goal: archive ≤ 1.5× bind.
 */
export async function workspaceTransportBench(rounds = 5): Promise<Figure[]> {
  const image = sandboxImageTag();
  const providers: Record<WorkspaceTransportKind, DockerSandboxProvider> = {
    bind: new DockerSandboxProvider({ image, transport: 'bind' }),
    archive: new DockerSandboxProvider({ image, transport: 'archive' }),
  };
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-bench-transport-'));
  const times: Record<WorkspaceTransportKind, number[]> = { bind: [], archive: [] };
  try {
    let i = 0;
    for (let round = -1; round < rounds; round++) {
      const order: WorkspaceTransportKind[] = round % 2 === 0 ? ['bind', 'archive'] : ['archive', 'bind'];
      for (const kind of order) {
        const t = performance.now();
        await leafSession(providers[kind], path.join(root, `s${i++}`));
        if (round >= 0) times[kind].push(performance.now() - t); // round -1 warms both up
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const bind = figure('leaf session, bind mount', times.bind);
  return [
    { ...bind, note: '4 check runs, 8 snapshots, 3 writes; the local fast path' },
    figure('leaf session, archive transport', times.archive, bind.medianMs, 'x = archive / bind, same run; goal <= 1.5'),
  ];
}
