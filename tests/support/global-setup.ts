import Docker from 'dockerode';
import { buildSandboxImage, sandboxImageTag } from '../../harness/index.js';

/**
 * `npm test` is one command on a fresh machine: when a daemon answers but the sandbox image
 * is missing, build it once here (about a minute) rather than skipping the Docker tests.
 */
export default async function setup(): Promise<void> {
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
