/**
 * Idempotent deployment of the real iden3 contracts (from @iden3/contracts' compiled artifacts):
 * the recipe (./recipe.ts) run by the step engine (./stepEngine.ts), recorded in the address book
 * (../addressBook.ts); and the addresses every chain operation uses, deployed on the embedded
 * chain the first time or taken from configuration for RPC_URL.
 */
import { DEV_CHAIN_IDS } from '../../config/parse.js';
import type { Context } from '../../context.js';
import { ConfigError, NetworkError, describeError } from '../../errors.js';
import { CONTRACT_KEYS, addressesOf, readAddressBook, type AddressBook, type ChainAddresses, type ContractKey } from '../addressBook.js';
import { iden3ContractsVersion } from '../artifacts.js';
import { connectChain, type ChainConnection } from '../connection.js';
import { DID_METHOD, didTypeFor } from '../didType.js';
import { jsonRpcBatch } from '../jsonRpc.js';
import { checkpointLocalChain } from '../node/snapshots.js';
import { VERIFIER_CIRCUITS, expectedVerifierCodeHash, resolveVerifiers, type VerifierArtifact, type VerifierCircuit } from '../verifiers.js';
import { DEPLOYMENT_RECIPE } from './recipe.js';
import { Deployment } from './stepEngine.js';

export interface DeployOptions {
  /** Dev verifiers to deploy instead of the official ones (remembered for later deployments). */
  verifiers?: Partial<Record<VerifierCircuit, VerifierArtifact>>;
  /** Forget remembered dev verifiers and deploy the official ones again. */
  officialVerifiers?: boolean;
  /** Redeploy every contract even when the recorded ones are intact. */
  force?: boolean;
  /** Allow dev verifiers on a chain that is not a development chain. */
  allowDevVerifiers?: boolean;
}

export interface DeployResult {
  chainId: number;
  rpcUrl: string;
  embedded: boolean;
  addresses: ChainAddresses;
  book: AddressBook;
  /** Contracts deployed by this call. */
  deployed: ContractKey[];
  /** Configuration transactions sent by this call (setVerifier, whitelisting...). */
  configured: string[];
  durationMs: number;
}

function didNetworkKey(ctx: Context): string {
  return `${DID_METHOD}:${ctx.config.chain.didBlockchain}:${ctx.config.chain.didNetwork}`;
}

/** Whether dev (non-ceremony) verifiers are acceptable on this chain. */
export function isDevChain(chainId: number, embedded: boolean): boolean {
  return embedded || DEV_CHAIN_IDS.includes(chainId);
}

/** Returns the keys of recorded contracts that have no code on chain (lost chain state). */
async function missingContracts(connection: ChainConnection, book: AddressBook): Promise<ContractKey[]> {
  const entries = CONTRACT_KEYS.flatMap((key) => (book.contracts[key] === undefined ? [] : [[key, book.contracts[key]!.address] as const]));
  try {
    // One raw JSON-RPC batch: ethers takes ~10x longer to fetch and normalise 20 bytecodes.
    const codes = /^https?:/i.test(connection.rpcUrl)
      ? await jsonRpcBatch<string>(connection.rpcUrl, entries.map(([, address]) => ({ method: 'eth_getCode', params: [address, 'latest'] })))
      : await Promise.all(entries.map(([, address]) => connection.provider.getCode(address)));
    return entries.filter((_, i) => codes[i] === '0x').map(([key]) => key);
  } catch (error) {
    throw new NetworkError(`cannot read contract code from ${connection.rpcUrl}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Deploys (or completes, or updates) the iden3 contracts on the configured chain and records
 * them in the address book. Safe to run again: intact contracts are kept.
 */
export async function deployContracts(ctx: Context, options: DeployOptions = {}): Promise<DeployResult> {
  const started = Date.now();
  const connection = await connectChain(ctx);
  const ethers = await import('ethers');
  return ctx.store.withLock(`chain-deploy-${connection.chainId}`, async () => {
    const { verifiers, remember } = await resolveVerifiers(ctx, options);
    const devOnes = VERIFIER_CIRCUITS.filter((c) => verifiers[c].record.source === 'dev');
    if (devOnes.length > 0 && !isDevChain(connection.chainId, connection.embedded) && options.allowDevVerifiers !== true) {
      throw new ConfigError(
        `refusing to deploy dev Groth16 verifiers (${devOnes.join(', ')}: our own trusted setup, not a ceremony) on chain ${connection.chainId}, which is not a development chain; ` +
          'pass --allow-dev-verifiers to do it anyway, or --official-verifiers',
        { field: 'CHAIN_ID' },
      );
    }
    remember();
    const didType = await didTypeFor(ctx.config);
    const now = ctx.now().toISOString();
    const previous = options.force === true ? undefined : readAddressBook(ctx, connection.chainId);
    const book: AddressBook = previous ?? {
      chainId: connection.chainId,
      embedded: connection.embedded,
      deployer: connection.signer.address,
      contractsPackage: `@iden3/contracts@${iden3ContractsVersion()}`,
      defaultIdType: didType.hex,
      didNetwork: didNetworkKey(ctx),
      verifiers: {},
      contracts: {},
      complete: false,
      createdAt: now,
      updatedAt: now,
    };
    book.complete = false;
    book.embedded = connection.embedded;
    for (const key of await missingContracts(connection, book)) delete book.contracts[key];

    const step = ctx.progress.start(`deploying the iden3 contracts on chain ${connection.chainId}`);
    const owner = connection.signer.address;
    const deployment = new Deployment(
      ctx,
      connection,
      ethers,
      book,
      { owner, defaultIdType: didType.hex, zeroAddress: ethers.ZeroAddress, verifiers },
      DEPLOYMENT_RECIPE,
      (text, fraction) => step.update(text, fraction),
    );
    try {
      await deployment.runAll();
      book.defaultIdType = didType.hex;
      book.didNetwork = didNetworkKey(ctx);
      book.verifiers = Object.fromEntries(VERIFIER_CIRCUITS.map((circuit) => [circuit, verifiers[circuit].record]));
      book.deployer = owner;
      book.complete = true;
      deployment.save();
      if (connection.embedded) await checkpointLocalChain(ctx);
      step.succeed(
        deployment.deployed.length === 0 && deployment.configured.length === 0
          ? `iden3 contracts already deployed on chain ${connection.chainId}`
          : `deployed ${deployment.deployed.length} contracts on chain ${connection.chainId}`,
      );
    } catch (error) {
      step.fail(`deployment on chain ${connection.chainId} failed`);
      // Keep what was deployed: the next run resumes from there.
      deployment.save();
      throw error;
    }
    return {
      chainId: connection.chainId,
      rpcUrl: connection.rpcUrl,
      embedded: connection.embedded,
      addresses: addressesOf(book),
      book,
      deployed: deployment.deployed,
      configured: deployment.configured,
      durationMs: Date.now() - started,
    };
  });
}

/** True when the recorded deployment is complete, current and still on chain. */
async function isDeploymentCurrent(ctx: Context, connection: ChainConnection, book: AddressBook | undefined): Promise<boolean> {
  if (book === undefined || !book.complete) return false;
  // A contract this version of vc deploys and the book lacks (a home deployed by an older vc): the
  // next chain command deploys it, keeping the rest.
  if (CONTRACT_KEYS.some((key) => book.contracts[key] === undefined)) return false;
  for (const circuit of VERIFIER_CIRCUITS) {
    if (book.verifiers[circuit]?.codeHash !== expectedVerifierCodeHash(ctx, circuit)) return false;
  }
  // The id type follows from the DID network alone, so js-iden3-core need not be loaded here.
  if (book.didNetwork !== didNetworkKey(ctx)) return false;
  return (await missingContracts(connection, book)).length === 0;
}

const CONFIG_ADDRESS_VARIABLES = [
  ['STATE_CONTRACT_ADDRESS', 'stateContractAddress', 'state'],
  ['BSC_ADDRESS', 'verifierAddress', 'universalVerifier'],
  ['MTP_ADDRESS', 'mtpValidatorAddress', 'mtpValidator'],
  ['POSEIDON_ADDRESS', 'poseidonAddress', 'poseidonFacade'],
  ['V3_ADDRESS', 'v3ValidatorAddress', 'v3Validator'],
  ['IDENTITY_TREE_STORE_ADDRESS', 'identityTreeStoreAddress', 'identityTreeStore'],
] as const;

/** Contracts a chain may lack: only the commands that use them need their variable. */
const OPTIONAL_CONTRACTS: readonly ContractKey[] = ['poseidonFacade', 'v3Validator', 'identityTreeStore'];

/** Addresses on an external chain: configuration first, then an earlier `vc chain deploy`. */
async function externalAddresses(ctx: Context, connection: ChainConnection): Promise<ChainAddresses> {
  const { chain } = ctx.config;
  const book = readAddressBook(ctx, connection.chainId);
  const fromBook = book?.complete === true ? addressesOf(book).all : {};
  const resolved: Partial<Record<ContractKey, string>> = { ...fromBook };
  const missing: string[] = [];
  let fromConfig = false;
  for (const [variable, field, key] of CONFIG_ADDRESS_VARIABLES) {
    const configured = chain[field];
    if (configured !== undefined) {
      resolved[key] = configured;
      fromConfig = true;
    } else if (resolved[key] === undefined && !OPTIONAL_CONTRACTS.includes(key)) {
      missing.push(variable);
    }
  }
  if (missing.length > 0) {
    throw new ConfigError(
      `RPC_URL points to an external chain (${connection.chainId}) but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set; ` +
        'set the contract address(es) or run `vc chain deploy` to deploy the contracts there',
      { field: missing[0]! },
    );
  }
  const checks = CONFIG_ADDRESS_VARIABLES.filter(([, , key]) => resolved[key] !== undefined);
  let codes: string[];
  try {
    codes = await Promise.all(checks.map(([, , key]) => connection.provider.getCode(resolved[key]!)));
  } catch (error) {
    throw new NetworkError(`cannot read contract code from ${connection.rpcUrl}: ${describeError(error)}`, { cause: error });
  }
  const empty = checks.filter((_, i) => codes[i] === '0x');
  if (empty.length > 0) {
    const [variable, , key] = empty[0]!;
    throw new ConfigError(`${variable}=${resolved[key]} has no contract code on chain ${connection.chainId} (${connection.rpcUrl})`, { field: variable });
  }
  return {
    state: resolved.state!,
    universalVerifier: resolved.universalVerifier!,
    mtpValidator: resolved.mtpValidator!,
    poseidon: resolved.poseidonFacade,
    identityTreeStore: resolved.identityTreeStore,
    v3Validator: resolved.v3Validator,
    all: resolved,
    source: fromConfig ? 'config' : 'deployment',
  };
}

/**
 * The contract addresses every chain operation uses. On the embedded chain the contracts are
 * deployed automatically the first time (and again if the chain lost them); with RPC_URL they
 * come from configuration and nothing is deployed.
 */
export async function ensureDeployed(ctx: Context): Promise<ChainAddresses> {
  const connection = await connectChain(ctx);
  if (!connection.embedded) return externalAddresses(ctx, connection);
  const book = readAddressBook(ctx, connection.chainId);
  if (await isDeploymentCurrent(ctx, connection, book)) return addressesOf(book!);
  if (book?.complete === true) ctx.progress.info(`the local chain no longer matches its address book (chain ${connection.chainId}); redeploying what is missing`);
  return (await deployContracts(ctx)).addresses;
}
