import { rm } from 'node:fs/promises';
import Docker from 'dockerode';
import { buildSandboxImage, sandboxImageTag } from '../../harness/index.js';

/**
 * `npm test` is one command on a fresh machine: when a daemon answers but the sandbox image
 * is missing, build it once here (about a minute) rather than skipping the Docker tests.
 */
export default async function setup(): Promise<() => Promise<void>> {
  await ensureSandboxImage();
  // The run's temporary folder (vitest.config.ts): whatever a test left in it goes with it.
  return async () => {
    const dir = process.env.RDH_TEST_TMP;
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}

async function ensureSandboxImage(): Promise<void> {
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
