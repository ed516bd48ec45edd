/**
 * The chain connection of one process: which chain (the embedded anvil node or RPC_URL), an
 * ethers provider and signer. Created lazily through the Context so commands that never touch the
 * chain never load ethers or start the node. The chain client (connection plus the contract
 * addresses) is built on it by ./chainClient.ts; both are cached here so a dead node drops both.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonRpcApiProvider, Wallet } from 'ethers';
import { ServiceKey, type Context } from '../context.js';
import { ConfigError, NetworkError, describeError } from '../errors.js';
import type { ChainAddresses } from './addressBook.js';
import { ensureLocalNode, markLocalNodeUsed } from './node/lifecycle.js';
import type { LocalNodeInfo } from './node/nodeRecord.js';
import { isLocalNodeProcess } from './node/process.js';
import { checkpointLocalChain } from './node/snapshots.js';
import { JsonRpcCallError, jsonRpcCall, probeChainId, rpcEndpoint } from './jsonRpc.js';

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

/** Runs `probe` on the bounded retry schedule; NetworkError (exit 4) naming the URL when it never succeeds. */
async function withProbeRetries(url: string, probe: () => Promise<number>, isFinal: (error: unknown) => boolean = () => false): Promise<number> {
  let lastError: unknown;
  for (const delay of RPC_RETRY_DELAYS_MS) {
    if (delay > 0) await sleep(delay);
    try {
      return await probe();
    } catch (error) {
      lastError = error;
      if (isFinal(error)) break;
    }
  }
  throw new NetworkError(`cannot reach the chain RPC endpoint ${rpcEndpoint(url).url} after ${RPC_RETRY_DELAYS_MS.length} attempts: ${describeError(lastError)}`, {
    field: 'RPC_URL',
    cause: lastError,
  });
}

/** Calls eth_chainId with bounded retries; NetworkError (exit 4) naming the URL when it never answers. */
export function probeEndpoint(url: string): Promise<number> {
  return withProbeRetries(
    url,
    async () => Number(BigInt(await jsonRpcCall<string>(url, 'eth_chainId', [], RPC_PROBE_TIMEOUT_MS))),
    // An endpoint that answers with a JSON-RPC error is up but refuses: retrying will not help.
    (error) => error instanceof JsonRpcCallError && error.kind === 'rpc',
  );
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
  // RPC_URL is http(s) only (the configuration refuses WebSocket endpoints).
  const reportedChainId = embedded ? chain.chainId : await probeEndpoint(rpcUrl);
  // A static network stops ethers from re-detecting the chain (and retrying forever when down);
  // anvil mines instantly, so receipts are polled quickly there.
  // cacheTimeout -1: ethers otherwise answers a repeated eth_getTransactionCount from a 250 ms
  // cache, handing out a nonce that was just used.
  // fetch refuses a URL with `user:password@`: basic-auth credentials travel as a header.
  const endpoint = rpcEndpoint(rpcUrl);
  const request = new ethers.FetchRequest(endpoint.url);
  if (endpoint.credentials !== undefined) {
    request.setCredentials(endpoint.credentials.username, endpoint.credentials.password);
    // The user put them in an http:// URL (a node on a private network): sent as asked.
    request.allowInsecureAuthentication = true;
  }
  const provider: JsonRpcApiProvider = new ethers.JsonRpcProvider(request, network, { staticNetwork: network, pollingInterval: embedded ? 50 : 2_000, cacheTimeout: -1 });
  if (reportedChainId !== chain.chainId) {
    await provider.destroy();
    throw new ConfigError(`the chain at RPC_URL ${endpoint.url} has chain id ${reportedChainId}, but CHAIN_ID is ${chain.chainId}`, { field: 'CHAIN_ID' });
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
      // The idle time of the node counts from the end of the command.
      if (node !== undefined) markLocalNodeUsed(ctx, node);
      try {
        await checkpointLocalChain(ctx);
      } catch (error) {
        // The command's own outcome stands, but an unsaved chain state must not pass unnoticed.
        const text = `the local chain's state was not saved: ${describeError(error)}`;
        if (ctx.progress.warn !== undefined) ctx.progress.warn(text);
        else ctx.progress.info(`warning: ${text}`);
      }
    });
  }
  return { rpcUrl, chainId: chain.chainId, embedded, provider, signer, node, txQueue: { tail: Promise.resolve() } };
}

/** Context keys of the cached connection and client (see forgetChainConnection). */
const CONNECTION_KEY = new ServiceKey<ChainConnection>('chain.connection');
/** The chain client (connection + addresses) of src/chain/chainClient.ts, dropped with its connection. */
export const CHAIN_KEY = new ServiceKey<ChainClient>('chain');
const CONNECTION_HEALTH_KEY = new ServiceKey<ConnectionHealth>('chain.connectionHealth');

/** Outcome of the latest attempt to connect in this context (read by the health check). */
interface ConnectionHealth {
  failure: string | undefined;
}

function connectionHealth(ctx: Context): Promise<ConnectionHealth> {
  return ctx.lazy(CONNECTION_HEALTH_KEY, async (): Promise<ConnectionHealth> => ({ failure: undefined }));
}

/**
 * Why the latest attempt of this context to connect to the chain failed, or undefined when it
 * succeeded or none was made. A long-lived server reports it as not ready.
 */
export async function lastConnectionFailure(ctx: Context): Promise<string | undefined> {
  return (await ctx.peek(CONNECTION_HEALTH_KEY))?.failure;
}

async function createTrackedConnection(ctx: Context): Promise<ChainConnection> {
  const health = await connectionHealth(ctx);
  try {
    const connection = await createConnection(ctx);
    health.failure = undefined;
    return connection;
  } catch (error) {
    health.failure = describeError(error);
    throw error;
  }
}

/** True when a cached connection's embedded node is no longer running (killed, crashed, stopped). */
/** True when the embedded node this connection talks to is no longer running. */
export function isEmbeddedNodeGone(connection: ChainConnection): boolean {
  return connection.embedded && connection.node !== undefined && !isLocalNodeProcess(connection.node);
}

/**
 * Drops the cached chain client and connection built on `connection`, so the next chain request
 * reconnects (ensureLocalNode restarting the embedded node from its saved state). Entries already
 * replaced by a newer connection are kept. Returns whether anything was dropped.
 */
export async function forgetChainConnection(ctx: Context, connection: Pick<ChainConnection, 'provider'>): Promise<boolean> {
  let dropped = false;
  const unsettled = Symbol('unsettled');
  for (const key of [CHAIN_KEY, CONNECTION_KEY]) {
    const pending = ctx.peek<ChainConnection>(key as ServiceKey<ChainConnection>);
    if (pending === undefined) continue;
    // Only settled entries are examined: one still being created is a newer connection, or the
    // very getChain that called us (awaiting it here would deadlock).
    const current = await Promise.race([pending, Promise.resolve(unsettled)]).catch(() => undefined);
    if (current !== unsettled && current?.provider === connection.provider && ctx.forget(key, pending)) dropped = true;
  }
  // Its node is gone: stop the provider's timers now rather than when the context closes.
  if (dropped) await connection.provider.destroy();
  return dropped;
}

/**
 * After a failed call on the embedded chain: when the node is really gone or no longer answers,
 * forget the connection so the next request restarts it, instead of failing for the lifetime of
 * a long-running server. Returns whether the connection was dropped.
 */
export async function forgetConnectionIfNodeFailed(ctx: Context, connection: ChainConnection): Promise<boolean> {
  if (!connection.embedded || connection.node === undefined) return false;
  const answering = isLocalNodeProcess(connection.node) && (await probeChainId(connection.rpcUrl, 1_500)) === connection.chainId;
  return answering ? false : forgetChainConnection(ctx, connection);
}

/**
 * The connection to the configured chain (starting the local node when needed), without making
 * sure the contracts exist. Most code wants getChain instead. A cached connection whose embedded
 * node died is replaced (the node is restarted from its saved state).
 */
export async function connectChain(ctx: Context): Promise<ChainConnection> {
  const connection = await ctx.lazy(CONNECTION_KEY, () => createTrackedConnection(ctx));
  if (!isEmbeddedNodeGone(connection)) {
    // A long-lived `vc serve` uses the node request after request: each use postpones its idle shutdown.
    if (connection.node !== undefined) markLocalNodeUsed(ctx, connection.node);
    return connection;
  }
  await forgetChainConnection(ctx, connection);
  return ctx.lazy(CONNECTION_KEY, () => createTrackedConnection(ctx));
}

/**
 * Stops the embedded node if this process started it (a `vc serve` shutting down); a node that
 * was already running when we connected belongs to someone else and keeps running.
 */
export async function stopLocalNodeIfStartedHere(ctx: Context): Promise<boolean> {
  const pending = ctx.peek(CONNECTION_KEY);
  if (pending === undefined) return false;
  const connection = await pending.catch(() => undefined);
  if (connection?.node?.started !== true) return false;
  const { stopLocalNode } = await import('./node/lifecycle.js');
  const result = await stopLocalNode(ctx, { persist: true });
  return result.stopped;
}


