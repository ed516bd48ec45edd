import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real nodes, servers and provers: generous limits, and no more workers than cores.
    testTimeout: 180_000,
    hookTimeout: 1_200_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
