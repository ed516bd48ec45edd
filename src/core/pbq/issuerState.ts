/**
 * Publishing an identity's tree state: the RHS nodes of the new state, then the state transition
 * on the State contract (stateTransition circuit proof). The tree states an identity has had on
 * chain are remembered (namespace iden3.treeStates), because a transition must start from the
 * exact state the contract holds: the genesis state when the identity never published, otherwise
 * the latest published one.
 */
import type { TreeState } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { Context } from '../context.js';
import { ConflictError } from '../../errors.js';
import { getChain } from '../../chain/client.js';
import { getIden3, getIden3Prover, type Iden3 } from '../../iden3/wallet.js';

const TREE_STATES_NS = 'iden3.treeStates';

/** A tree state as stored (hex hashes). */
export interface TreeStateRecord {
  state: string;
  claimsRoot: string;
  revocationRoot: string;
  rootOfRoots: string;
  /** Transaction that published it; undefined for the genesis state. */
  txId: string | undefined;
  at: string;
}

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

function toTreeState(iden3: Iden3, record: TreeStateRecord): TreeState {
  const { Hash } = iden3.modules.mt;
  return {
    state: Hash.fromHex(record.state),
    claimsRoot: Hash.fromHex(record.claimsRoot),
    revocationRoot: Hash.fromHex(record.revocationRoot),
    rootOfRoots: Hash.fromHex(record.rootOfRoots),
  };
}

/** The state the State contract holds for `did` (genesis when it never published), as a tree state. */
async function onChainTreeState(ctx: Context, iden3: Iden3, did: DID): Promise<{ tree: TreeState; genesis: boolean }> {
  const { core, mt, sdk } = iden3.modules;
  const didString = did.string();
  let onChain: string | undefined;
  try {
    const info = await iden3.states.getLatestStateById(core.DID.idFromDID(did).bigInt());
    if (info.state !== undefined && info.state !== 0n) onChain = mt.Hash.fromBigInt(info.state).hex();
  } catch (error) {
    if (!sdk.isIdentityDoesNotExistError(error)) throw error;
  }
  const records = ctx.store.list<TreeStateRecord>(TREE_STATES_NS, `${didString}/`).map((r) => r.value);
  if (onChain === undefined) {
    const genesis = records.find((r) => r.txId === undefined);
    if (genesis === undefined) throw new ConflictError(`the genesis tree state of ${didString} is not recorded in this wallet`);
    return { tree: toTreeState(iden3, genesis), genesis: true };
  }
  const known = records.find((r) => r.state === onChain);
  if (known === undefined) {
    throw new ConflictError(`the State contract holds state ${onChain} for ${didString}, which this wallet never published (was the chain replaced?)`);
  }
  return { tree: toTreeState(iden3, known), genesis: known.txId === undefined };
}

/**
 * Publishes the identity's current trees: RHS nodes (including revoked nonces), then the state
 * transition proof on chain. Returns the transaction hash and the published state.
 */
export async function publishIdentityState(ctx: Context, did: DID, revokedNonces: number[] = []): Promise<{ txId: string; state: TreeStateRecord }> {
  const iden3 = await getIden3(ctx);
  const { sdk } = iden3.modules;
  await iden3.identityWallet.publishRevocationInfoByCredentialStatusType(did, sdk.CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, {
    rhsUrl: iden3.rhsUrl,
    revokedNonces,
  });
  const { proofService } = await getIden3Prover(ctx);
  const chain = await getChain(ctx);
  const old = await onChainTreeState(ctx, iden3, did);
  const step = ctx.progress.start('proving the state transition and publishing it on the State contract');
  let txId: string;
  try {
    txId = await proofService.transitState(did, old.tree, old.genesis, iden3.states, chain.signer);
    step.succeed(`published the new state of ${did.string()} (tx ${txId})`);
  } catch (error) {
    step.fail();
    throw error;
  }
  const current = await currentTreeState(iden3, did);
  const { tree: _tree, ...record } = current;
  const stored: TreeStateRecord = { ...record, txId, at: ctx.now().toISOString() };
  ctx.store.put<TreeStateRecord>(TREE_STATES_NS, `${did.string()}/${stored.state}`, stored);
  return { txId, state: stored };
}
