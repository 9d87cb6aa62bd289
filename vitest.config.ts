import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/chaos/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start servers and child processes; two cores, so two at a time.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
