import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: no chain and no proofs (the binary and servers may run, without a chain);
 * `npm run test:unit` runs it alone. `integration`: real chains, circuits and proofs; its global
 * setup builds the circuits once and deploys the contracts once into a template home that each
 * file copies. Every run first builds dist/ incrementally (test/setup/build.ts), so the tests that
 * spawn `vc` never run a stale build.
 */
const INTEGRATION = [
  'test/chain/**/*.test.ts',
  'test/circom/**/*.test.ts',
  'test/circuits/**/*.test.ts',
  'test/core/pbq/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/iden3/**/*.test.ts',
  'test/errors.redaction.test.ts',
];

export default defineConfig({
  test: {
    // Tests start real nodes, servers and provers: generous limits, and no more workers than cores.
    testTimeout: 180_000,
    hookTimeout: 1_200_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: INTEGRATION, globalSetup: ['test/setup/build.ts'] },
      },
      {
        extends: true,
        test: { name: 'integration', include: INTEGRATION, globalSetup: ['test/setup/build.ts', 'test/setup/chainTemplate.ts'] },
      },
    ],
  },
});
