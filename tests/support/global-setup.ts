import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { buildSandboxImage, sandboxImageTag } from '../../harness/index.js';

/**
 * `npm test` is one command on a fresh machine: when a daemon answers but the sandbox image
 * is missing, build it once here (about a minute) rather than skipping the Docker tests.
 * It also makes the run's folder of host-sandbox answers (command-memo.ts), shared by the
 * workers and every process they start, and removes it when the run ends.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const memo = await mkdtemp(path.join(tmpdir(), 'rdh-command-memo-'));
  process.env.RDH_COMMAND_MEMO = memo;
  const teardown = () => rm(memo, { recursive: true, force: true });
  await sandboxImage();
  return teardown;
}

async function sandboxImage(): Promise<void> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch {
    return; // tests/support/docker.ts decides whether that is a skip or a failure
  }
  const present = await docker.getImage(sandboxImageTag()).inspect().then(() => true, () => false);
  if (present) return;
  console.log(`building sandbox image ${sandboxImageTag()} before the tests (once)`);
  await buildSandboxImage({ docker, log: (line) => console.log(`  ${line}`) });
}
