import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { buildSandboxImage, sandboxImageTag } from '../../harness/index.js';

/**
 * `npm test` is one command on a fresh machine: when a daemon answers but the sandbox image
 * is missing, build it once here (about a minute) rather than skipping the Docker tests.
 *
 * It also gives the run a temporary folder of its own (TMPDIR, read by os.tmpdir() and Python's
 * tempfile alike), inherited by the workers and every process they start, and removes it whole
 * when the run ends: hundreds of tests make scratch folders, and a failed assertion skips its
 * test's cleanup. Inside it is the run's folder of host-sandbox answers (command-memo.ts).
 */
export default async function setup(): Promise<() => Promise<void>> {
  // vitest runs this once per project (vitest.config.ts has two), in one process: the first makes the folders.
  if (process.env.RDH_TEST_TMP) return async () => {};
  const run = await mkdtemp(path.join(tmpdir(), 'rdh-tests-'));
  process.env.RDH_TEST_TMP = run;
  process.env.TMPDIR = run;
  process.env.RDH_COMMAND_MEMO = await mkdtemp(path.join(run, 'rdh-command-memo-'));
  await sandboxImage();
  return () => removeTree(run);
}

/**
 * `rm -rf`, not fs.rm: a staging test plants a tree deeper than PATH_MAX, which fs.rm's full
 * paths cannot reach (ENAMETOOLONG) and rm's openat-based walk removes.
 */
async function removeTree(dir: string): Promise<void> {
  try {
    await promisify(execFile)('rm', ['-rf', '--', dir]);
  } catch (error) {
    // A leftover must not fail a run whose tests passed; say so, with the folder to remove.
    console.warn(`npm test could not remove its temporary folder ${dir}: ${(error as Error).message.split('\n')[0]}`);
  }
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
