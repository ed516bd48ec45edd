/**
 * The identity of this home's embedded chain (see ../chainIdentity.ts), claimed by a node this
 * home just started: its marker is written into the node's state when the state has none of this
 * home's (a fresh or reset chain, a snapshot older than markers, a home copied from another), and
 * saved at once, so the chain carries it from then on.
 */
import type { Context } from '../../context.js';
import { CHAIN_IDENTITY_NS, IDENTITY_MARKER_ADDRESS, IDENTITY_MARKER_SLOT, newIdentityMarker, readChainIdentity, readHomeChainIdentity, type ChainIdentity, type HomeChainIdentity } from '../chainIdentity.js';
import { jsonRpcCall } from '../jsonRpc.js';
import type { LocalNodeRecord } from './nodeRecord.js';
import { checkpointNode } from './snapshots.js';

/** Makes sure the node this home started carries this home's marker; returns the chain's identity. */
export async function claimNodeIdentity(ctx: Context, record: LocalNodeRecord): Promise<ChainIdentity> {
  const current = await readChainIdentity(record.rpcUrl, record.chainId);
  const own = readHomeChainIdentity(ctx, record.chainId);
  if (own !== undefined && own.stateDir === record.stateDir && current.marker === own.marker) return current;
  const marker = newIdentityMarker();
  await jsonRpcCall<boolean>(record.rpcUrl, 'anvil_setStorageAt', [IDENTITY_MARKER_ADDRESS, IDENTITY_MARKER_SLOT, marker], 5_000);
  const previous = [...(own?.previous ?? []), ...(own === undefined ? [] : [own.marker]), ...(current.marker === undefined ? [] : [current.marker])];
  const identity: HomeChainIdentity = {
    marker,
    genesisHash: current.genesisHash,
    stateDir: record.stateDir,
    previous: previous.filter((value, i) => value !== marker && previous.indexOf(value) === i),
    at: ctx.now().toISOString(),
  };
  ctx.store.put<HomeChainIdentity>(CHAIN_IDENTITY_NS, String(record.chainId), identity);
  // Saved now: a kill -9 of the node must not lose the marker the journals will name.
  await checkpointNode(ctx, record);
  return { ...current, marker };
}

/** True when the node answering at `rpcUrl` carries a marker, and it is not this home's (a node of another home). */
export async function carriesAnotherMarker(ctx: Context, rpcUrl: string, chainId: number, stateDir: string): Promise<boolean> {
  const own = readHomeChainIdentity(ctx, chainId);
  if (own === undefined || own.stateDir !== stateDir) return false;
  const current = await readChainIdentity(rpcUrl, chainId).catch(() => undefined);
  return current?.marker !== undefined && current.marker !== own.marker;
}
