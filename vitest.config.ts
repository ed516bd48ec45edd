import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: no chain and no proofs (the binary and servers may run, without a chain);
 * `npm run test:unit` runs it alone. `integration`: real chains, circuits and proofs; its global
 * setup builds the circuits once and deploys the contracts once into a template home that each
 * file copies. Every run first builds dist/ incrementally (test/setup/build.ts), so the tests that
 * spawn `vc` never run a stale build.
 */
/**
 * The V3-generation circuits (authV2/authV3, credentialAtomicQueryV3, V3OnChain) against the
 * official vectors (test/circom/vectors): their files check hundreds of witnesses of
 * 50-110k-constraint circuits, at the official sizes too (tens of minutes on 2 cores), so they are
 * their own project, run by `npm run test:circuits`, outside `npm test`; the sizes vc proves with in
 * `npm test` (V3OnChain-16-16-64-16-32, credentialAtomicQueryV3-16-16-64, authV2) are exercised by
 * the e2e tests with real proofs.
 */
const CIRCUITS_V3 = ['test/circom/authV3.test.ts', 'test/circom/credentialAtomicQueryV3.test.ts', 'test/circom/credentialAtomicQueryV3OnChain.test.ts'];

const INTEGRATION = [
  'test/chain/**/*.test.ts',
  'test/circom/**/*.test.ts',
  'test/circuits/**/*.test.ts',
  'test/core/pbq/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/iden3/**/*.test.ts',
  'test/errors.redaction.test.ts',
];

/**
 * The unit project runs its files without isolation (`isolate: false`): each of the 2 workers is
 * one process that runs file after file, so a file does not pay for a fresh process, its imports
 * and a cold JIT again (in-process BBS+ files: a quarter of their CPU time). What a file leaves
 * in the process (a loaded library, a cache, a changed global) is seen by the next, so a unit test
 * restores what it changes (process.env, timers, globals), as they do. The few files whose subject
 * is a fresh process's own state (library.test.ts: the randomness MATTR's WebAssembly draws while it
 * loads, in this process; config.test.ts: the iden3 library's chain table before vc extends it) are UNIT_ISOLATED, run as before in a process each by the project
 * `unit-isolated`; `npm run test:unit` runs both (`--project 'unit*'`).
 */
const UNIT_ISOLATED = [
  'test/sd/library.test.ts',
  // Checks @iden3/js-iden3-core's own chain table, which vc adds its development chains to once a file has used them.
  'test/config/config.test.ts',
  // Compare vc's Poseidon, merklization and BabyJubJub code with the libraries' own functions, which
  // vc replaces process-wide once a file has loaded the iden3 modules (src/iden3/modules.ts).
  'test/iden3/poseidonWasm.test.ts',
  'test/iden3/poseidon.test.ts',
  'test/iden3/merklizeOnce.test.ts',
  'test/iden3/hasher.test.ts',
  'test/iden3/babyJubSigner.test.ts',
]

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
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...INTEGRATION, ...CIRCUITS_V3, ...UNIT_ISOLATED], isolate: false, globalSetup: ['test/setup/build.ts'] },
      },
      {
        extends: true,
        test: { name: 'unit-isolated', include: UNIT_ISOLATED, globalSetup: ['test/setup/build.ts'] },
      },
      {
        extends: true,
        test: { name: 'integration', include: INTEGRATION, exclude: [...CIRCUITS_V3, ...UNIT_ISOLATED], globalSetup: ['test/setup/build.ts', 'test/setup/chainTemplate.ts'] },
      },
      {
        extends: true,
        test: { name: 'circuits', include: CIRCUITS_V3, globalSetup: ['test/setup/build.ts'] },
      },
    ],
  },
});
