import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './tests/support/heavy-first-sequencer.js';

/**
 * The tests start python3 on the host hundreds of times (the SIMULATED corpus's checks in host
 * sandboxes, the commonmark reference, normalize.py). Where python3 is a pyenv shim, as on the
 * development and CI machines, every start first runs a bash pipeline (about 0.3 s idle, 2.5 s
 * with the two cores loaded, measured). So the interpreter's own folder goes first on the PATH
 * of this process and the workers it forks: the same python3, started directly.
 */
function interpreterFirst(): void {
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
