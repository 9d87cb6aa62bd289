import { defineConfig } from 'vitest/config';

// Two projects: `unit` (fast, no servers; `npm run test:unit`, or `--project unit`) and
// `integration` (real emulator, SQLite files, temp folders, child processes). `npm test` runs both.
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
    ],
  },
});
