import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './tests/support/heavy-first-sequencer.js';

/**
 * The tests start python3 on the host hundreds of times (the SIMULATED corpus's checks in host
 * sandboxes, the commonmark reference, normalize.py), and a host sandbox stands in for the
 * sandbox image, whose python3 is Debian 12's with Debian's pytest. So where Debian's own
 * interpreter can import pytest (`.ci/run` installs python3-pytest), `python3` on this process's
 * PATH, and its workers', is that one: the image's versions (pytest 7.2.1, not whatever a
 * user's python carries: 9.0.3 on the development machine), and about 13% less CPU in a host
 * sandbox's python than the development machine's pyenv build (not optimised, and a startup
 * hook importing certifi: 87 ms a bare start against 25 ms, measured). Otherwise the python3 the
 * PATH finds goes first, started directly: a pyenv shim runs a bash pipeline at every start (0.3 s
 * idle, 2.5 s with the two cores loaded, measured).
 */
const DEBIAN_PYTHON = '/usr/bin/python3';

function interpreterFirst(): void {
  try {
    execFileSync(DEBIAN_PYTHON, ['-c', 'import pytest, yaml'], { stdio: 'ignore', timeout: 30_000 });
    const dir = path.join(import.meta.dirname, 'node_modules', '.cache', 'rdh-host-python');
    mkdirSync(dir, { recursive: true });
    const link = path.join(dir, 'python3');
    try {
      symlinkSync(DEBIAN_PYTHON, link);
    } catch (error) {
      // Made by an earlier run, or by another process at the same moment: the same link.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    process.env.PATH = `${dir}${path.delimiter}${process.env.PATH ?? ''}`;
    return;
  } catch {
    // No Debian python3 with pytest here: the python3 the PATH finds, below.
  }
  try {
    const exe = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 30_000 }).trim();
    if (exe) process.env.PATH = `${path.dirname(exe)}${path.delimiter}${process.env.PATH ?? ''}`;
  } catch {
    // No python3: the tests that need it say so themselves.
  }
}
interpreterFirst();

/**
 * pytest on the host starts without the plugins the host's python may carry, as in the sandbox
 * image, which has none: on the development and CI machines pytest-benchmark alone made every
 * start 1.8 s instead of 0.8 s (idle, measured), and wrote a `.benchmarks` folder wherever it ran.
 */
process.env.PYTEST_DISABLE_PLUGIN_AUTOLOAD ??= '1';

/**
 * Files that replace a module for their own sake (vi.mock): they need a module registry of
 * their own. Every other file shares its worker's registry (isolate: false), so the harness,
 * the engine and their dependencies are imported once per worker, not once per file: importing
 * them was 3-4 s of every file's time (97 s of 112 for 24 report and site files, 18 s shared).
 * What a file changes in its process must not reach the next file: environment variables set
 * with vi.stubEnv and spies made with vi.spyOn (even on Node's own classes) are undone after each
 * test (unstubEnvs, restoreMocks below); exit codes are set only in child processes.
 */
const OWN_REGISTRY = ['tests/harness/replay/replay.test.ts'];

export default defineConfig({
  test: {
    // Docker-backed tests create real containers; give them room without hiding hangs.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['tests/support/global-setup.ts'],
    // vitest's default (cores - 1) is one worker on a 2-core CI machine, where most files spend
    // their time waiting on containers, Chromium or child processes: a second worker overlaps
    // that waiting with work. Measured on the CI machine's figures in the README.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: HeavyFirstSequencer },
    unstubEnvs: true,
    restoreMocks: true,
    projects: [
      { extends: true, test: { name: 'shared', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, ...OWN_REGISTRY], isolate: false } },
      { extends: true, test: { name: 'own-registry', include: OWN_REGISTRY, isolate: true } },
    ],
  },
});
