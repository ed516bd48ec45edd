/**
 * The embedded reverse hash service's operations (RHS API of iden3, served by the issuer role):
 * store hash-checked tree nodes, and read a node's children. The nodes live in the wallet store.
 */
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { getIden3 } from '../../iden3/wallet.js';
import { useServedRhsUrl, type RhsNode } from '../../iden3/rhs.js';

/**
 * Called by the server once the issuer service listens at `issuerUrl`: unless RHS_URL is set,
 * credentials it issues name that address as their reverse hash service. Returns the URL they
 * name, or undefined with RHS_URL set. Listening on every interface (0.0.0.0, ::), they name the
 * loopback, which only this machine reaches: `reachable` is false and the caller says to set RHS_URL.
 */
export function announceServedRhs(ctx: Context, issuerUrl: string, listenHost: string): { url: string; reachable: boolean } | undefined {
  if (ctx.config.rhsUrl !== undefined) return undefined;
  const wildcard = listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '[::]';
  // On every interface, this machine reaches the service on the loopback; other machines need RHS_URL.
  const url = wildcard ? `http://127.0.0.1:${new URL(issuerUrl).port}` : issuerUrl;
  useServedRhsUrl(ctx, url);
  return { url, reachable: !wildcard };
}

/** Stores nodes after checking each hash against its children; returns how many were saved. */
export async function saveRhsNodes(ctx: Context, nodes: RhsNode[]): Promise<{ status: 'OK'; saved: number }> {
  return { status: 'OK', saved: (await getIden3(ctx)).rhsNodes.saveNodes(nodes) };
}

/** The children of a node hash (64 hex digits); NotFoundError when the service has no such node. */
export async function readRhsNode(ctx: Context, hash: string): Promise<{ node: { hash: string; children: string[] }; status: 'OK' }> {
  const node = /^[0-9a-fA-F]{64}$/.test(hash) ? (await getIden3(ctx)).rhsNodes.getNode(hash) : undefined;
  if (node === undefined) throw new NotFoundError(`no node ${hash.slice(0, 80)} in the reverse hash service`, { field: 'hash' });
  return { node, status: 'OK' };
}
