/**
 * `vc chain ...`: commander wiring only; the operations live in src/chain/manage.ts.
 */
import type { Command } from 'commander';
import type { CliRuntime } from './runtime.js';
import { readJsonFile } from './io.js';
import { InputError } from '../errors.js';

interface DeployFlags {
  force?: boolean;
  officialVerifiers?: boolean;
  allowDevVerifiers?: boolean;
  stateTransitionVerifier?: string;
  mtpVerifier?: string;
}

function readVerifierFile(file: string, option: string): { abi: unknown[]; bytecode: string } {
  const value = readJsonFile(file, option) as { abi?: unknown; bytecode?: unknown };
  if (typeof value !== 'object' || value === null || !Array.isArray(value.abi) || typeof value.bytecode !== 'string') {
    throw new InputError(`${option}: ${file} must be a JSON object with "abi" (array) and "bytecode" (hex string)`, { field: option });
  }
  return { abi: value.abi, bytecode: value.bytecode };
}

function contractLines(contracts: { state: string; universalVerifier: string; mtpValidator: string; poseidon: string | undefined }): string {
  return `State ${contracts.state}, UniversalVerifier ${contracts.universalVerifier}, MTP validator ${contracts.mtpValidator}` +
    (contracts.poseidon === undefined ? '' : `, Poseidon ${contracts.poseidon}`);
}

/** Registers the `vc chain` group. */
export function registerChainCommands(program: Command, rt: CliRuntime): Command {
  const group = program
    .command('chain')
    .description('manage the chain: the embedded local node (started on demand) and the iden3 contracts on it')
    .addHelpText('after', `\nExamples:\n  $ vc chain status            # starts the embedded node and deploys on first use\n  $ vc chain down              # stops the node, keeping its state\n  $ vc chain reset --yes       # forget the local chain and its deployment\n  $ RPC_URL=https://... WALLET_KEY=... vc chain deploy`);

  group
    .command('up')
    .description('start the local chain node (if not running) and deploy the contracts (if not deployed)')
    .action(async () => {
      const { chainStatus } = await import('../core/chain.js');
      const result = await chainStatus(await rt.ctx());
      const how = result.node?.started === true ? 'started' : result.embedded ? 'already running' : 'external';
      rt.output.result(result, { summary: `chain ${result.chainId} ${how} at ${result.rpcUrl}, block ${result.blockNumber}` });
    });

  group
    .command('status')
    .description('print chain id, block number, RPC URL and every contract address (starts and deploys the local chain if needed)')
    .action(async () => {
      const { chainStatus } = await import('../core/chain.js');
      const result = await chainStatus(await rt.ctx());
      rt.output.result(result, {
        summary: `chain ${result.chainId} (${result.embedded ? 'embedded' : 'external'}) at ${result.rpcUrl}, block ${result.blockNumber}: ${contractLines(result.contracts)}`,
      });
    });

  group
    .command('down')
    .description('stop the local chain node, saving its state (the next command restarts it where it was)')
    .action(async () => {
      const { chainDown } = await import('../core/chain.js');
      const result = await chainDown(await rt.ctx());
      rt.output.result(result, {
        summary: result.stopped ? `local chain node (pid ${result.pid}) stopped, state saved` : 'the local chain node was not running',
      });
    });

  group
    .command('reset')
    .description('stop the local chain and delete its state and address book (identity states on it are lost)')
    .option('--yes', 'confirm the deletion')
    .action(async (options: { yes?: boolean }) => {
      const { chainReset } = await import('../core/chain.js');
      const result = await chainReset(await rt.ctx(), { confirm: options.yes === true });
      rt.output.result(result, { summary: `local chain state deleted (${result.removedStateDir})` });
    });

  group
    .command('deploy')
    .description('deploy the iden3 contracts on the configured chain (idempotent: intact contracts are kept)')
    .option('--force', 'redeploy every contract even if the recorded ones are intact')
    .option('--state-transition-verifier <file>', 'JSON {abi, bytecode} of a dev Groth16 verifier for the stateTransition circuit')
    .option('--mtp-verifier <file>', 'JSON {abi, bytecode} of a dev Groth16 verifier (IGroth16Verifier) for credentialAtomicQueryMTPV2OnChain')
    .option('--official-verifiers', 'forget dev verifiers and deploy the official @iden3/contracts ones')
    .option('--allow-dev-verifiers', 'allow dev verifiers on a chain that is not a development chain')
    .action(async (options: DeployFlags) => {
      const { chainDeploy } = await import('../core/chain.js');
      const verifiers: Partial<Record<'stateTransition' | 'credentialAtomicQueryMTPV2OnChain', { abi: unknown[]; bytecode: string }>> = {};
      if (options.stateTransitionVerifier !== undefined) {
        verifiers.stateTransition = readVerifierFile(options.stateTransitionVerifier, '--state-transition-verifier');
      }
      if (options.mtpVerifier !== undefined) verifiers.credentialAtomicQueryMTPV2OnChain = readVerifierFile(options.mtpVerifier, '--mtp-verifier');
      const result = await chainDeploy(await rt.ctx(), {
        verifiers,
        force: options.force === true,
        officialVerifiers: options.officialVerifiers === true,
        allowDevVerifiers: options.allowDevVerifiers === true,
      });
      rt.output.result(result, {
        summary:
          result.deployed.length === 0 && result.configured.length === 0
            ? `contracts already deployed on chain ${result.chainId}: ${contractLines(result.contracts)}`
            : `deployed ${result.deployed.length} contracts on chain ${result.chainId} in ${(result.durationMs / 1000).toFixed(1)} s: ${contractLines(result.contracts)}`,
      });
    });

  return group;
}
