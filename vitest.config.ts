import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    // Integration tests start servers and child processes; two cores, so two at a time.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Chromium tests (the served app, the renderer's screens): one file at a time, longer limits.
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
