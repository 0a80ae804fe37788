import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './tests/support/heavy-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Docker-backed tests create real containers; give them room without hiding hangs.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['tests/support/global-setup.ts'],
    // vitest's default (cores - 1) is one worker on a 2-core CI machine, where most files spend
    // their time waiting on containers, Chromium or child processes: a second worker overlaps
    // that waiting with work. Measured on the CI machine's figures in the README.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: HeavyFirstSequencer },
  },
});
