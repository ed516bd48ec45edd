/**
 * The chain client: the connection of ./connection.ts plus the contract addresses, deployed on
 * the embedded chain the first time (./deployment/deployContracts.ts). Kept apart from the
 * connection so that deployment, which sends transactions over a bare connection, never depends
 * back on it (no import cycle).
 */
import type { Context } from '../context.js';
import { CHAIN_KEY, connectChain, forgetChainConnection, isEmbeddedNodeGone, type ChainClient } from './connection.js';
import { ensureDeployed } from './deployment/deployContracts.js';
import { markLocalNodeUsed } from './node/lifecycle.js';

export type { ChainClient };

async function createChainClient(ctx: Context): Promise<ChainClient> {
  const connection = await connectChain(ctx);
  const book = await ensureDeployed(ctx);
  return { ...connection, addresses: book };
}

/**
 * The chain client: connection plus contract addresses. On the embedded chain the contracts are
 * deployed the first time; with RPC_URL they come from configuration (or an earlier `vc chain deploy`).
 * A cached client whose embedded node died is rebuilt on a restarted node.
 */
export async function getChain(ctx: Context): Promise<ChainClient> {
  const chain = await ctx.lazy(CHAIN_KEY, () => createChainClient(ctx));
  if (!isEmbeddedNodeGone(chain)) {
    // Each use postpones the node's idle shutdown (a `vc serve` keeps its client for hours).
    if (chain.node !== undefined) markLocalNodeUsed(ctx, chain.node);
    return chain;
  }
  await forgetChainConnection(ctx, chain);
  return ctx.lazy(CHAIN_KEY, () => createChainClient(ctx));
}
