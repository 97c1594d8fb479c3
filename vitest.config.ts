import { defineConfig } from 'vitest/config';

// The machines have 2 cores and each real `claude` takes hundreds of MB:
// run test files in at most two forked workers, and give end-to-end waits room.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/support/setup-env.ts'],
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    testTimeout: 90_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
