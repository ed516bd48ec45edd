/**
 * The chain client of one process: which chain (the embedded anvil node or RPC_URL), an ethers
 * provider and signer, and the address book of the iden3 contracts. Created lazily through the
 * Context so commands that never touch the chain never load ethers or start the node.
 */
import type { JsonRpcApiProvider, Wallet } from 'ethers';
import type { Context } from '../core/context.js';
import { ConfigError, NetworkError, describeError } from '../errors.js';
import { checkpointLocalChain, ensureLocalNode, type LocalNodeInfo } from './anvil.js';
import { JsonRpcCallError, jsonRpcCall } from './jsonRpc.js';
import type { ChainAddresses } from './deploy.js';

/**
 * Private key of anvil's first development account (from its default public test mnemonic
 * "test test ... junk"). It holds 10000 ETH on every fresh anvil chain; it is not a secret and is
 * only ever used on the embedded local chain.
 */
export const LOCAL_DEV_ACCOUNT_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** Attempts and pauses (ms) before an RPC endpoint is declared unreachable. */
const RPC_RETRY_DELAYS_MS = [0, 500, 1_500];
const RPC_PROBE_TIMEOUT_MS = 4_000;

/** A connected chain without the contract addresses (what deployment itself needs). */
export interface ChainConnection {
  rpcUrl: string;
  chainId: number;
  /** True for the anvil node managed by `vc`, false for RPC_URL. */
  embedded: boolean;
  provider: JsonRpcApiProvider;
  /** Signs every transaction: WALLET_KEY, or the funded dev account on the local chain. */
  signer: Wallet;
  /** The local node, when embedded. */
  node: LocalNodeInfo | undefined;
  /** Per-process queue serialising transactions of this signer (see transactions.ts). */
  txQueue: { tail: Promise<unknown> };
}

/** A connected chain with the iden3 contracts deployed or configured. */
export interface ChainClient extends ChainConnection {
  addresses: ChainAddresses;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Calls eth_chainId with bounded retries; NetworkError (exit 4) naming the URL when it never answers. */
export async function probeEndpoint(url: string): Promise<number> {
  let lastError: unknown;
  for (const delay of RPC_RETRY_DELAYS_MS) {
    if (delay > 0) await sleep(delay);
    try {
      return Number(BigInt(await jsonRpcCall<string>(url, 'eth_chainId', [], RPC_PROBE_TIMEOUT_MS)));
    } catch (error) {
      lastError = error;
      // An endpoint that answers with a JSON-RPC error is up but refuses: retrying will not help.
      if (error instanceof JsonRpcCallError && error.kind === 'rpc') break;
    }
  }
  throw new NetworkError(`cannot reach the chain RPC endpoint ${url} after ${RPC_RETRY_DELAYS_MS.length} attempts: ${describeError(lastError)}`, {
    field: 'RPC_URL',
    cause: lastError,
  });
}

async function probeWebSocket(provider: JsonRpcApiProvider, url: string): Promise<number> {
  let lastError: unknown;
  for (const delay of RPC_RETRY_DELAYS_MS) {
    if (delay > 0) await sleep(delay);
    try {
      const result = await Promise.race([
        provider.send('eth_chainId', []) as Promise<string>,
        sleep(RPC_PROBE_TIMEOUT_MS).then(() => {
          throw new Error(`no answer within ${RPC_PROBE_TIMEOUT_MS} ms`);
        }),
      ]);
      return Number(BigInt(result));
    } catch (error) {
      lastError = error;
    }
  }
  throw new NetworkError(`cannot reach the chain RPC endpoint ${url} after ${RPC_RETRY_DELAYS_MS.length} attempts: ${describeError(lastError)}`, {
    field: 'RPC_URL',
    cause: lastError,
  });
}

async function createConnection(ctx: Context): Promise<ChainConnection> {
  const { chain } = ctx.config;
  const embedded = chain.rpcUrl === undefined;
  let node: LocalNodeInfo | undefined;
  let rpcUrl: string;
  if (embedded) {
    node = await ensureLocalNode(ctx);
    rpcUrl = node.rpcUrl;
  } else {
    rpcUrl = chain.rpcUrl!;
  }

  const ethers = await import('ethers');
  const network = ethers.Network.from(chain.chainId);
  let provider: JsonRpcApiProvider;
  let reportedChainId: number;
  if (/^wss?:/i.test(rpcUrl)) {
    provider = new ethers.WebSocketProvider(rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
    reportedChainId = await probeWebSocket(provider, rpcUrl).catch(async (error: unknown) => {
      await provider.destroy();
      throw error;
    });
  } else {
    reportedChainId = embedded ? chain.chainId : await probeEndpoint(rpcUrl);
    // A static network stops ethers from re-detecting the chain (and retrying forever when down);
    // anvil mines instantly, so receipts are polled quickly there.
    // cacheTimeout -1: ethers otherwise answers a repeated eth_getTransactionCount from a 250 ms
    // cache, handing out a nonce that was just used.
    provider = new ethers.JsonRpcProvider(rpcUrl, network, { staticNetwork: network, pollingInterval: embedded ? 50 : 2_000, cacheTimeout: -1 });
  }
  if (reportedChainId !== chain.chainId) {
    await provider.destroy();
    throw new ConfigError(`the chain at RPC_URL ${rpcUrl} has chain id ${reportedChainId}, but CHAIN_ID is ${chain.chainId}`, { field: 'CHAIN_ID' });
  }

  const key = chain.walletKey ?? (embedded ? LOCAL_DEV_ACCOUNT_KEY : undefined);
  if (key === undefined) {
    await provider.destroy();
    throw new ConfigError('WALLET_KEY is required to sign transactions on the chain at RPC_URL', { field: 'WALLET_KEY' });
  }
  const signer = new ethers.Wallet(key, provider);

  ctx.onClose(() => provider.destroy());
  if (embedded) {
    // Registered after the provider's closer so it runs before it (closers run in reverse):
    // whatever this command changed on the local chain is saved before the process ends.
    ctx.onClose(async () => {
      await checkpointLocalChain(ctx);
    });
  }
  return { rpcUrl, chainId: chain.chainId, embedded, provider, signer, node, txQueue: { tail: Promise.resolve() } };
}

/**
 * The connection to the configured chain (starting the local node when needed), without making
 * sure the contracts exist. Most code wants getChain instead.
 */
export function connectChain(ctx: Context): Promise<ChainConnection> {
  return ctx.lazy('chain.connection', () => createConnection(ctx));
}

/**
 * Stops the embedded node if this process started it (a `vc serve` shutting down); a node that
 * was already running when we connected belongs to someone else and keeps running.
 */
export async function stopLocalNodeIfStartedHere(ctx: Context): Promise<boolean> {
  const pending = ctx.peek<ChainConnection>('chain.connection');
  if (pending === undefined) return false;
  const connection = await pending.catch(() => undefined);
  if (connection?.node?.started !== true) return false;
  const { stopLocalNode } = await import('./anvil.js');
  const result = await stopLocalNode(ctx, { persist: true });
  return result.stopped;
}

/**
 * The chain client: connection plus contract addresses. On the embedded chain the contracts are
 * deployed the first time; with RPC_URL they come from configuration (or an earlier `vc chain deploy`).
 */
export function getChain(ctx: Context): Promise<ChainClient> {
  return ctx.lazy('chain', async () => {
    const connection = await connectChain(ctx);
    const { ensureDeployed } = await import('./deploy.js');
    const book = await ensureDeployed(ctx);
    return { ...connection, addresses: book };
  });
}
