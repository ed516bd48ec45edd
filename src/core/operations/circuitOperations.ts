/**
 * The zero-knowledge circuits: built from the project's circom sources with a development setup,
 * or the official files fetched for real networks.
 */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
// The ids only (a light module): the pipeline itself loads when an operation runs.
import { ON_DEMAND_CIRCUIT_IDS } from '../../circuits/sources.js';

const circuits = () => import('../circuitsAccess.js');

export const circuitsBuild = defineOperation({
  name: 'circuits.build',
  summary: 'compile the circuits with circom2, run a development trusted setup, export verifiers, compile the native prover (cached)',
  input: z.strictObject({
    force: z.boolean().describe('rebuild even when the cache has these sources').optional(),
    circuit: z
      .array(z.enum(ON_DEMAND_CIRCUIT_IDS))
      .min(1)
      .describe(`also build these circuits, otherwise built by the first V3 request or proof: ${ON_DEMAND_CIRCUIT_IDS.join(', ')}`)
      .optional(),
  }),
  mutates: true,
  run: async (ctx, input) => {
    const access = await circuits();
    const info = await access.buildCircuits(ctx, { force: input.force === true, ...(input.circuit === undefined ? {} : { extra: input.circuit }) });
    // The native prover too (tried again if an earlier build failed); VC_PROVER=native makes a failure an error.
    const prover = await access.chooseProver(ctx.env, { build: true, retryFailed: true, progress: ctx.progress });
    return { ...info, prover };
  },
});

export const circuitsStatus = defineOperation({
  name: 'circuits.status',
  summary: 'where the circuit files are, cache keys, constraint counts, development or official, which prover proves and why',
  input: z.strictObject({}),
  mutates: false,
  run: async (ctx) => {
    const access = await circuits();
    const [info, prover] = await Promise.all([access.circuitsStatus(ctx), access.nativeProverPlan(ctx).then((plan) => access.proverStatus(ctx.env, plan))]);
    return { ...info, prover };
  },
});

export const circuitsFetch = defineOperation({
  name: 'circuits.fetch',
  summary: 'download the official iden3 circuit files (resumable) for real networks; use them with CIRCUITS_PATH',
  input: z.strictObject({
    dir: z.string().min(1).default('circuits-official').describe('target directory'),
    url: z.string().min(1).describe('archive URL (default: the archive the js-sdk documents)').optional(),
    sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters').describe('expected sha256 of the archive').optional(),
  }),
  mutates: true,
  run: async (ctx, input, call) => {
    if (input.url !== undefined && !(/^https?:\/\//i.test(input.url) && URL.canParse(input.url))) {
      const { InputError } = await import('../../errors.js');
      throw new InputError(`${call.names('url')}: expected an http(s) URL of the circuits archive, got ${JSON.stringify(input.url.slice(0, 200))}`, { field: 'url' });
    }
    return (await circuits()).fetchOfficialCircuits(ctx, {
      dir: input.dir,
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.sha256 === undefined ? {} : { sha256: input.sha256 }),
    });
  },
});
