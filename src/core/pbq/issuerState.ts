/**
 * An identity's tree states: the genesis state and every state this wallet published on chain are
 * remembered (namespace iden3.treeStates), because a transition must start from the exact state
 * the contract holds. Publishing itself is journaled in ./publication.ts.
 */
import type { TreeState } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { Context } from '../../context.js';
import { getIden3, type Iden3 } from '../../iden3/wallet.js';
import { TREE_STATES_NS, knownTreeState, type KnownTreeState, type TreeStateRecord } from '../../iden3/storage.js';

export { TREE_STATES_NS, type TreeStateRecord };

/** The current tree state of an identity, as stored hex. */
export async function currentTreeState(iden3: Iden3, did: DID): Promise<TreeStateRecord & { tree: TreeState }> {
  const model = await iden3.identityWallet.getDIDTreeModel(did);
  const tree: TreeState = {
    state: model.state,
    claimsRoot: await model.claimsTree.root(),
    revocationRoot: await model.revocationTree.root(),
    rootOfRoots: await model.rootsTree.root(),
  };
  return {
    tree,
    state: tree.state.hex(),
    claimsRoot: tree.claimsRoot.hex(),
    revocationRoot: tree.revocationRoot.hex(),
    rootOfRoots: tree.rootOfRoots.hex(),
    txId: undefined,
    at: new Date().toISOString(),
  };
}

/** Remembers the genesis tree state of a newly created identity. */
export async function recordGenesisState(ctx: Context, did: string): Promise<void> {
  const iden3 = await getIden3(ctx);
  const current = await currentTreeState(iden3, iden3.modules.core.DID.parse(did));
  const { tree: _tree, ...record } = current;
  ctx.store.put<TreeStateRecord>(TREE_STATES_NS, `${did}/${record.state}`, { ...record, at: ctx.now().toISOString() });
}

/** True when `state` (hex) of `did` was published on chain by this wallet (a record with its transaction). */
export function isPublishedState(ctx: Context, did: string, state: string): boolean {
  return ctx.store.get<TreeStateRecord>(TREE_STATES_NS, `${did}/${state}`)?.txId !== undefined;
}

function toTreeState(iden3: Iden3, record: KnownTreeState): TreeState {
  const { Hash } = iden3.modules.mt;
  return {
    state: Hash.fromHex(record.state),
    claimsRoot: Hash.fromHex(record.claimsRoot),
    revocationRoot: Hash.fromHex(record.revocationRoot),
    rootOfRoots: Hash.fromHex(record.rootOfRoots),
  };
}

/**
 * The tree state a transition starts from: the genesis state when the identity never published
 * (`state` undefined), otherwise the published state `state` (hex), which this wallet must know.
 */
export function treeStateForPublishedState(ctx: Context, iden3: Iden3, did: DID, state: string | undefined): { tree: TreeState; genesis: boolean } {
  const known = knownTreeState(ctx.store, did.string(), state);
  return { tree: toTreeState(iden3, known), genesis: known.txId === undefined };
}
