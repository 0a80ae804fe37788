import Docker from 'dockerode';
import { DockerSandboxProvider, describeDockerHost } from '../../engine/index.js';
import { sandboxImageTag } from '../../harness/index.js';

/**
 * Docker-backed tests run whenever a daemon answers. In CI (the `CI` variable set) a missing
 * daemon or image is a failure, never a skip; on a developer machine without Docker they are
 * skipped, loudly.
 */
export async function dockerReady(): Promise<boolean> {
  const docker = new Docker();
  let reason: string | null = null;
  try {
    await docker.ping();
    await docker.getImage(sandboxImageTag()).inspect().catch(() => {
      reason = `sandbox image ${sandboxImageTag()} missing (run \`harness sandbox build\`)`;
    });
  } catch (error) {
    reason = `no Docker daemon at ${describeDockerHost()} (${(error as Error).message})`;
  }
  if (reason === null) return true;
  if (process.env.CI) throw new Error(`CI is set, so Docker tests may not be skipped: ${reason}`);
  console.warn(`\n!!! SKIPPING Docker-backed tests: ${reason}. CI will run them. !!!\n`);
  return false;
}

export const HAS_DOCKER = await dockerReady();

export function testProvider(options: Partial<ConstructorParameters<typeof DockerSandboxProvider>[0]> = {}): DockerSandboxProvider {
  return new DockerSandboxProvider({ image: sandboxImageTag(), ...options });
}

/** Both workspace transports, for tests that must hold under each. */
export const TRANSPORTS = ['bind', 'archive'] as const;
