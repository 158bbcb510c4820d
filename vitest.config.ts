import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the console's assets module the gateway's sources import (a no-op when it is fresh).
    globalSetup: ['test/helpers/console-assets-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Host processes (Bun, Deno, agent CLIs) are heavy on a 2-core machine.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
