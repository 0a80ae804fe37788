import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DockerSandboxProvider } from '../../engine/index.js';
import { sandboxImageTag } from '../../harness/index.js';
import { figure, sample, type Figure } from './stats.js';

const run = promisify(execFile);

/**
 * The sandbox's overhead against the cheapest way Docker runs anything: `docker run --rm
 * <image> true` from the CLI, measured in the same run so machine noise cancels in the ratio.
 */
export async function sandboxBench(): Promise<{ figures: Figure[]; floorMs: number }> {
  const image = sandboxImageTag();
  const floor = await sample(10, () => run('docker', ['run', '--rm', '--network', 'none', image, 'true']));
  const floorMs = figure('floor', floor).medianMs;
  const provider = new DockerSandboxProvider({ image });
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-bench-'));
  let i = 0;
  const cycle = await sample(15, async () => {
    const box = await provider.create({ workspaceDir: path.join(root, `c${i++}`), runId: 'bench' });
    await box.exec('true');
    await box.dispose();
  });
  const warmBox = await provider.create({ workspaceDir: path.join(root, 'warm'), runId: 'bench' });
  const warm = await sample(30, () => warmBox.exec('true'), 3);
  await warmBox.dispose();
  await rm(root, { recursive: true, force: true });
  return {
    floorMs,
    figures: [
      figure('floor: docker run --rm <image> true', floor, floorMs, 'CLI, same image'),
      figure('sandbox create + exec(true) + dispose', cycle, floorMs),
      figure('sandbox warm exec(true)', warm, floorMs),
    ],
  };
}
