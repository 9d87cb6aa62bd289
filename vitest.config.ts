import { defineConfig } from 'vitest/config';

// Four projects: `unit` (fast, no servers; `npm run test:unit`, or `--project unit`),
// `integration` (real emulator, SQLite files, temp folders, child processes), `e2e` (the built
// app in Debian's Chromium) and `chaos` (the short form of the chaos suite). `npm test` runs all.
export default defineConfig({
  test: {
    pool: 'forks',
    // Integration tests start servers and child processes; two cores, so two at a time.
    maxWorkers: 2,
    // skip-reasons lists each skipped test with its reason at the end (the default reporter
    // shows a skip's note only on a terminal running one file).
    reporters: ['default', './test/helpers/skip-reasons.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // No servers or child processes of their own: threads start faster than forks.
          pool: 'threads',
          testTimeout: 10_000,
          hookTimeout: 10_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // Chromium tests (the served app, the renderer's screens): one file at a time, longer limits.
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          // The short form of `npm run test:chaos` (test/chaos/README.md); `--project chaos` alone.
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
