/**
 * The chain management operations behind `vc chain up|status|down|reset|deploy`: plain inputs
 * and a Context in, plain result objects out.
 */
import type { Context } from '../context.js';
import { InputError, NetworkError, redactUrls } from '../errors.js';
import { ADDRESS_BOOK_NS, readAddressBook, type AddressBook, type ChainAddresses } from './addressBook.js';
import { getChain } from './chainClient.js';
import { deployContracts, type DeployOptions } from './deployment/deployContracts.js';
import { keepLocalNodeUp, localNodeStatus, resetLocalChainState, stopLocalNode } from './node/lifecycle.js';
import { listLocalNodes, type ListedNode } from './node/nodeList.js';
import type { LocalNodeState } from './node/nodeRecord.js';
import type { VerifierRecord } from './verifiers.js';
import { chainErrorReason } from './transactions.js';

export interface ChainStatusResult {
  chainId: number;
  blockNumber: number;
  /** The RPC endpoint, origin only when it has a path, query or user info (API keys live there). */
  rpcUrl: string;
  embedded: boolean;
  /** The account that signs transactions. */
  signer: string;
  node: { pid: number; port: number; startedAt: string; stateDir: string; started: boolean; recovered: boolean } | undefined;
  contracts: ChainAddresses;
  verifiers: AddressBook['verifiers'] | undefined;
  defaultIdType: string | undefined;
}

/** Connects (starting the local node and deploying on first use) and describes the chain. */
export async function chainStatus(ctx: Context): Promise<ChainStatusResult> {
  const chain = await getChain(ctx);
  let blockNumber: number;
  try {
    blockNumber = await chain.provider.getBlockNumber();
  } catch (error) {
    throw new NetworkError(`cannot read the block number from ${chain.rpcUrl}: ${chainErrorReason(error)}`, { cause: error });
  }
  const book = readAddressBook(ctx, chain.chainId);
  const node = chain.node;
  return {
    chainId: chain.chainId,
    blockNumber,
    // A display value: an external RPC URL often carries an API key, so only its origin is shown.
    rpcUrl: redactUrls(chain.rpcUrl),
    embedded: chain.embedded,
    signer: chain.signer.address,
    node:
      node === undefined
        ? undefined
        : { pid: node.pid, port: node.port, startedAt: node.startedAt, stateDir: node.stateDir, started: node.started, recovered: node.recovered },
    contracts: chain.addresses,
    verifiers: book?.verifiers,
    defaultIdType: book?.defaultIdType,
  };
}

export interface ChainDownResult {
  stopped: boolean;
  pid: number | undefined;
  /** What the local node was doing before: running, already stopped, or dead (killed). */
  previousState: LocalNodeState;
}

/** Stops the embedded node, saving its state (the next command restarts it where it was). */
export async function chainDown(ctx: Context): Promise<ChainDownResult> {
  const before = await localNodeStatus(ctx);
  const { stopped, pid } = await stopLocalNode(ctx);
  // `vc chain up` kept it up until now: from the next start on, it stops when idle again.
  if (ctx.config.chain.rpcUrl === undefined) keepLocalNodeUp(ctx, false);
  return { stopped, pid, previousState: before.state };
}

export interface ChainResetResult {
  stoppedPid: number | undefined;
  removedStateDir: string;
  removedAddressBooks: number[];
}

/** Stops the embedded node and deletes its chain state and the address books of embedded chains. */
export async function chainReset(ctx: Context, options: { confirm: boolean }): Promise<ChainResetResult> {
  if (!options.confirm) {
    throw new InputError('resetting deletes the local chain (every identity state and deployed contract on it): it needs confirmation', { field: 'confirm' });
  }
  const { stoppedPid, removed } = await resetLocalChainState(ctx);
  const removedAddressBooks: number[] = [];
  for (const { key, value } of ctx.store.list<AddressBook>(ADDRESS_BOOK_NS)) {
    // Address books of external chains describe contracts that still exist there: keep them.
    if (value.embedded) {
      ctx.store.delete(ADDRESS_BOOK_NS, key);
      removedAddressBooks.push(Number(key));
    }
  }
  return { stoppedPid, removedStateDir: removed, removedAddressBooks };
}

export interface ChainDeployResult {
  chainId: number;
  rpcUrl: string;
  embedded: boolean;
  deployed: string[];
  configured: string[];
  contracts: ChainAddresses;
  verifiers: Partial<Record<string, VerifierRecord>>;
  durationMs: number;
}

/** Deploys (or completes) the contracts on the configured chain. */
export async function chainDeploy(ctx: Context, options: DeployOptions): Promise<ChainDeployResult> {
  const result = await deployContracts(ctx, options);
  return {
    chainId: result.chainId,
    rpcUrl: redactUrls(result.rpcUrl),
    embedded: result.embedded,
    deployed: result.deployed,
    configured: result.configured,
    contracts: result.addresses,
    verifiers: result.book.verifiers,
    durationMs: result.durationMs,
  };
}

export interface ChainPsResult {
  nodes: ListedNode[];
}

/** The embedded nodes of this user, every home (`vc chain ps`). */
export function chainPs(): ChainPsResult {
  return { nodes: listLocalNodes() };
}
