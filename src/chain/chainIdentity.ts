/**
 * Which chain a wallet talks to, beyond its chain id (every embedded chain is 152): the hash of
 * its block 0 and, on a vc embedded chain, a marker written into its state.
 *
 * anvil 1.7.1 keeps block 0 (and its hash) across --dump-state/--load-state and anvil_dumpState
 * once each start loads a snapshot with that one block 0 (./node/snapshots.ts keepOriginalGenesis:
 * anvil adds a genesis of its own at every start). A fresh chain's genesis hash depends only on the chain id and the second it started: two
 * homes whose chains started in the same second share it, and a home copied from another shares
 * its snapshot. So each home also writes a random marker of its own into a fixed storage slot of a
 * fixed address (anvil_setStorageAt; part of the state, saved and loaded with it, no block mined),
 * and records it (store namespace 'chain.identity', key = chain id) with the state directory it
 * was written for: a copied home sees another directory and writes a marker of its own.
 *
 * A publication journal records the identity of the chain it was journaled against, and is never
 * completed against another one.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from '../context.js';
import { jsonRpcCall } from './jsonRpc.js';

/** The account whose storage slot 0 holds the marker of a vc embedded chain ("vc" in hex). */
export const IDENTITY_MARKER_ADDRESS = '0x7663000000000000000000000000000000000000';
export const IDENTITY_MARKER_SLOT = '0x0';
const NO_MARKER = `0x${'0'.repeat(64)}`;

/** Store namespace of the identities of this home's embedded chains (key: chain id). */
export const CHAIN_IDENTITY_NS = 'chain.identity';

/** What tells one chain from another. */
export interface ChainIdentity {
  chainId: number;
  /** Hash of block 0. */
  genesisHash: string;
  /** The marker of a vc embedded chain; undefined on any other chain. */
  marker?: string;
}

/** The identity of this home's embedded chain of one chain id. */
export interface HomeChainIdentity {
  marker: string;
  genesisHash: string;
  /** The state directory the marker was written for (another one: a copied home). */
  stateDir: string;
  /** Markers this home's chain had before (a reset chain, a copied home): journals made there are this home's. */
  previous: string[];
  at: string;
}

/** Reads the identity of the chain at `rpcUrl` (its block 0 and the marker slot). */
export async function readChainIdentity(rpcUrl: string, chainId: number, timeoutMs = 5_000): Promise<ChainIdentity> {
  const block = await jsonRpcCall<{ hash?: unknown } | null>(rpcUrl, 'eth_getBlockByNumber', ['0x0', false], timeoutMs);
  const marker = await jsonRpcCall<unknown>(rpcUrl, 'eth_getStorageAt', [IDENTITY_MARKER_ADDRESS, IDENTITY_MARKER_SLOT, 'latest'], timeoutMs);
  const genesisHash = String(block?.hash ?? 'unknown');
  const markerValue = typeof marker === 'string' && BigInt(marker) !== 0n ? normalizeMarker(marker) : undefined;
  return { chainId, genesisHash, ...(markerValue === undefined ? {} : { marker: markerValue }) };
}

function normalizeMarker(value: string): string {
  return `0x${BigInt(value).toString(16).padStart(64, '0')}`;
}

/** True when two identities name the same chain. */
export function isSameChain(a: ChainIdentity, b: ChainIdentity): boolean {
  return a.chainId === b.chainId && a.genesisHash.toLowerCase() === b.genesisHash.toLowerCase() && (a.marker ?? NO_MARKER) === (b.marker ?? NO_MARKER);
}

/** A chain identity for messages: "chain 152 (genesis 0x563c6844…, marker 0x9f2a…)". */
export function describeChain(identity: ChainIdentity): string {
  const short = (hex: string): string => (hex.length > 12 ? `${hex.slice(0, 10)}…` : hex);
  return `chain ${identity.chainId} (genesis ${short(identity.genesisHash)}${identity.marker === undefined ? '' : `, marker ${short(identity.marker)}`})`;
}

/** The recorded identity of this home's embedded chain of `chainId`, if one was ever started. */
export function readHomeChainIdentity(ctx: Context, chainId: number): HomeChainIdentity | undefined {
  return ctx.store.get<HomeChainIdentity>(CHAIN_IDENTITY_NS, String(chainId));
}

/** True when `identity` is, or was, this home's own embedded chain (its marker current or previous). */
export function isOwnEmbeddedChain(ctx: Context, identity: ChainIdentity): boolean {
  const own = readHomeChainIdentity(ctx, identity.chainId);
  if (own === undefined || identity.marker === undefined) return false;
  return own.marker === identity.marker || own.previous.includes(identity.marker);
}

/** A fresh random marker. */
export function newIdentityMarker(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}
