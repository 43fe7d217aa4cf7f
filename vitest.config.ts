import { defineConfig } from 'vitest/config';

// Tests spawn real shells and PTYs: few workers and generous timeouts keep them honest on a 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
