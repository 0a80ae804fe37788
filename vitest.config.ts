import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Docker-backed tests create real containers; give them room without hiding hangs.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['tests/support/global-setup.ts'],
  },
});
