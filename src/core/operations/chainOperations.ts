/**
 * The chain: the embedded local node (started on demand) and the iden3 contracts on it, or the
 * configured external network.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { defineOperation } from '../operation.js';

const chain = () => import('../chainAccess.js');

/** Variables naming another party's contracts: with any of them set, this wallet deploys nothing. */
const CONFIGURED_CONTRACT_VARIABLES = [
  ['STATE_CONTRACT_ADDRESS', 'stateContractAddress'],
  ['BSC_ADDRESS', 'verifierAddress'],
  ['MTP_ADDRESS', 'mtpValidatorAddress'],
  ['V3_ADDRESS', 'v3ValidatorAddress'],
  ['IDENTITY_TREE_STORE_ADDRESS', 'identityTreeStoreAddress'],
] as const;

const verifierArtifactSchema = z.object({
  abi: z.array(z.unknown()),
  bytecode: z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex bytecode'),
});

export const chainUp = defineOperation({
  name: 'chain.up',
  summary: 'start the local chain node (if not running) and deploy the contracts (if not deployed), kept up (no idle shutdown) until vc chain down; --port/--host keep it on a fixed address other wallets can use',
  input: z.strictObject({
    port: z.number().int().min(1).max(65535).describe('the port the node keeps from now on (restarted there if it runs elsewhere)').optional(),
    host: z
      .string()
      .refine((host) => isIP(host) !== 0, 'expected an IP address such as 127.0.0.1, 0.0.0.0 (every interface) or ::1')
      .describe('the IP address it listens on from now on (default 127.0.0.1; 0.0.0.0 for other machines)')
      .optional(),
  }),
  mutates: true,
  run: async (ctx, input, call) => {
    if (input.port !== undefined || input.host !== undefined) {
      if (ctx.config.chain.rpcUrl !== undefined) {
        const { InputError } = await import('../../errors.js');
        throw new InputError(`${call.names(input.port !== undefined ? 'port' : 'host')} applies to the embedded node; RPC_URL names another chain`, { field: input.port !== undefined ? 'port' : 'host' });
      }
      await (await chain()).fixLocalNodeAddress(ctx, input);
    }
    // Up until `vc chain down`: no idle shutdown (other wallets may use it through RPC_URL).
    if (ctx.config.chain.rpcUrl === undefined) (await chain()).keepLocalNodeUp(ctx, true);
    const status = await (await chain()).chainStatus(ctx);
    if (ctx.config.chain.rpcUrl !== undefined) return status;
    // The embedded node gets the verifiers of the circuits in use now, before its addresses are
    // handed out (a verifier change later replaces the MTP validator, changing MTP_ADDRESS).
    const verifiers = await (await chain()).verifiersMatchingCircuits(ctx);
    if (Object.keys(verifiers).length === 0) return status;
    const deployed = await (await chain()).chainDeploy(ctx, { verifiers });
    return deployed.deployed.length === 0 && deployed.configured.length === 0 ? status : (await chain()).chainStatus(ctx);
  },
});

export const chainStatus = defineOperation({
  name: 'chain.status',
  summary: 'chain id, block number, RPC URL and every contract address (starts and deploys the local chain if needed)',
  input: z.strictObject({}),
  mutates: true,
  run: async (ctx) => (await chain()).chainStatus(ctx),
});

export const chainEnv = defineOperation({
  name: 'chain.env',
  summary: 'the variables another party sets to use this chain and its contracts (never WALLET_KEY: each party signs with its own)',
  input: z.strictObject({}),
  result: z.record(z.string(), z.string()),
  mutates: true,
  run: async (ctx) => {
    const status = await (await chain()).chainStatus(ctx);
    const { didBlockchain, didNetwork } = ctx.config.chain;
    return {
      CHAIN_ID: String(status.chainId),
      NETWORK_NAME: `${didBlockchain}:${didNetwork}`,
      // An RPC URL with a path, query or user info carries a key: each party sets its own.
      ...(status.rpcUrl.includes('/…') ? {} : { RPC_URL: status.rpcUrl }),
      STATE_CONTRACT_ADDRESS: status.contracts.state,
      BSC_ADDRESS: status.contracts.universalVerifier,
      MTP_ADDRESS: status.contracts.mtpValidator,
      ...(status.contracts.poseidon === undefined ? {} : { POSEIDON_ADDRESS: status.contracts.poseidon }),
      ...(status.contracts.v3Validator === undefined ? {} : { V3_ADDRESS: status.contracts.v3Validator }),
      ...(status.contracts.identityTreeStore === undefined ? {} : { IDENTITY_TREE_STORE_ADDRESS: status.contracts.identityTreeStore }),
    };
  },
});

export const chainPs = defineOperation({
  name: 'chain.ps',
  summary: "the embedded chain nodes of this user, every wallet home: home, chain id, port, pid, when started, idle time and when it stops for idleness",
  input: z.strictObject({}),
  mutates: false,
  run: async () => (await chain()).chainPs(),
});

export const chainDown = defineOperation({
  name: 'chain.down',
  summary: 'stop the local chain node, saving its state (the next command restarts it where it was)',
  input: z.strictObject({}),
  mutates: true,
  run: async (ctx) => (await chain()).chainDown(ctx),
});

export const chainReset = defineOperation({
  name: 'chain.reset',
  summary: 'stop the local chain and delete its state and address book (identity states on it are lost)',
  input: z.strictObject({ confirm: z.boolean().describe('confirm the deletion').optional() }),
  mutates: true,
  run: async (ctx, input, call) => {
    if (input.confirm !== true) {
      const { InputError } = await import('../../errors.js');
      throw new InputError(`this deletes the local chain (every identity state and deployed contract on it): confirm it with ${call.names('confirm')}`, { field: 'confirm' });
    }
    return (await chain()).chainReset(ctx, { confirm: true });
  },
});

export const chainDeploy = defineOperation({
  name: 'chain.deploy',
  summary: 'deploy the iden3 contracts on the configured chain (idempotent: intact contracts are kept, and a contract a killed run sent is recorded, not deployed again); on a development chain with development circuits, their verifiers',
  input: z.strictObject({
    force: z.boolean().describe('redeploy every contract even if the recorded ones are intact').optional(),
    stateTransitionVerifier: verifierArtifactSchema.describe('{abi, bytecode} of a development Groth16 verifier for the stateTransition circuit').optional(),
    mtpVerifier: verifierArtifactSchema.describe('{abi, bytecode} of a development Groth16 verifier for credentialAtomicQueryMTPV2OnChain').optional(),
    officialVerifiers: z.boolean().describe('forget development verifiers and deploy the official @iden3/contracts ones').optional(),
    allowDevVerifiers: z.boolean().describe('allow development verifiers on a chain that is not a development chain').optional(),
  }),
  mutates: true,
  run: async (ctx, input) => {
    const { chain: configured } = ctx.config;
    const configuredVariables = CONFIGURED_CONTRACT_VARIABLES.filter(([, field]) => configured[field] !== undefined).map(([variable]) => variable);
    if (configuredVariables.length > 0) {
      // Those are another party's contracts: deploying here would create a second set nobody uses.
      const { InputError } = await import('../../errors.js');
      throw new InputError(
        `${configuredVariables.join(', ')} ${configuredVariables.length === 1 ? 'is' : 'are'} set: these contracts are a deployment this wallet uses, not its own; their deployer runs vc chain deploy (unset them to deploy a set of your own)`,
        { field: configuredVariables[0]! },
      );
    }
    const given = {
      ...(input.stateTransitionVerifier === undefined ? {} : { stateTransition: input.stateTransitionVerifier }),
      ...(input.mtpVerifier === undefined ? {} : { credentialAtomicQueryMTPV2OnChain: input.mtpVerifier }),
    };
    // Without a choice, the verifiers that match the circuits in use: on a development chain with
    // development circuits, their own (official verifiers would reject every proof of them).
    const chosen = Object.keys(given).length > 0 || input.officialVerifiers === true;
    return (await chain()).chainDeploy(ctx, {
      verifiers: chosen ? given : await (await chain()).verifiersMatchingCircuits(ctx),
      force: input.force === true,
      officialVerifiers: input.officialVerifiers === true,
      allowDevVerifiers: input.allowDevVerifiers === true,
    });
  },
});
