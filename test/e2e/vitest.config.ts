import { defineConfig } from 'vitest/config';

/** Chromium tests of the renderer (`npx vitest run --config test/e2e/vitest.config.ts`): one file at a time. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
