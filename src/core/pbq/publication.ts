/**
 * Publishing an issuer's state as a recoverable transaction. Issuing and revoking change the
 * issuer's trees and then publish the new state on chain; a crash between those steps used to
 * leave the wallet out of step with the State contract for good ("the State contract holds a
 * state this wallet never published"). Now every publication is journaled first:
 *
 *   prepared       the journal names the credentials (without their Merkle proofs) and revocation
 *                  nonces, and the on-chain state it starts from; nothing else has changed yet
 *   trees-updated  their claims and nonces are in the trees; the journal holds the new state
 *   nodes-saved    when the issuer's statuses are read from the chain's IdentityTreeStore: its
 *                  tree nodes are saved there (sent again by any retry; saving a node twice is a no-op)
 *   sent           the state transition is broadcast; the journal holds its hash
 *   mined          its receipt arrived; the local node's state is being saved
 *
 * and completing one (recording the published state, attaching each credential's
 * Iden3SparseMerkleTreeProof, saving the credentials, deleting the journal) is idempotent. Before
 * any new issuance or revocation, and on `vc issuer credentials`, the journal is reconciled with
 * the chain: a new state that landed is adopted and its credentials completed; one that never
 * landed (the node lost it, the transaction was dropped or reverted) is published again from the
 * trees, which already hold its claims, so no retry duplicates a claim.
 *
 * The journal names the chain it was made against (chain id, genesis hash and, on a vc embedded
 * chain, its marker: src/chain/chainIdentity.ts), and is never completed against another chain:
 * a wallet pointed at another chain (RPC_URL, another home's node) is refused, naming both. Only
 * this home's own embedded chain replaced by a later one of its own (`vc chain reset`) takes the
 * journal over, and then only by publishing it again from the trees. Journals written before
 * chains had identities carry none and are reconciled as before.
 */
import type { W3CCredential } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import { letEventLoopRun } from '../../eventLoop.js';
import type { Context } from '../../context.js';
import type { Merkletree } from '@iden3/js-merkletree';
import { ConfigError, ConflictError, NetworkError, describeError, redactUrls } from '../../errors.js';
import { crashPoint, killNodePoint } from '../../faults.js';
import { describeChain, isOwnEmbeddedChain, isSameChain, readChainIdentity, type ChainIdentity } from '../../chain/chainIdentity.js';
import { getChain } from '../../chain/chainClient.js';
import { requireContractKind } from '../../chain/contractKind.js';
import { readContract, sendContractTransaction, TransactionRevertedError } from '../../chain/transactions.js';
import { ONCHAIN_STATUS_TYPE } from '../../iden3/onchainStatus.js';
import { ensureDurableLocalChain } from '../../chain/durability.js';
import { localNodeStatus } from '../../chain/node/lifecycle.js';
import { PENDING_PUBLICATIONS_NS } from '../../iden3/storage.js';
import { getIden3, getIden3Prover, type Iden3 } from '../../iden3/wallet.js';
import { keepIssuedCredential } from '../holder/holderStore.js';
import { currentTreeState, treeStateForPublishedState, TREE_STATES_NS, type TreeStateRecord } from './issuerState.js';

/** Store namespace of the credentials each issuer of this wallet issued: `<issuer DID>/<credential id>`. */
export const ISSUED_NS = 'iden3.issued';

/** The record of one issued credential. */
export interface IssuedRecord {
  id: string;
  revocationNonce: number;
}

/** The credentials `issuer` issued from this wallet (completed publications only). */
export function issuedRecords(ctx: Context, issuer: string): IssuedRecord[] {
  return ctx.store.list<IssuedRecord>(ISSUED_NS, `${issuer}/`).map((entry) => entry.value);
}

/** Whether `issuer` issued the credential `id` from this wallet (one record read, however many it issued). */
export function isIssued(ctx: Context, issuer: string, id: string): boolean {
  return ctx.store.get<IssuedRecord>(ISSUED_NS, `${issuer}/${id}`) !== undefined;
}

/** Whether `issuer` issued any credential from this wallet. */
export function hasIssued(ctx: Context, issuer: string): boolean {
  return ctx.store.hasAny(ISSUED_NS, `${issuer}/`);
}

/**
 * Store namespace of the revocation nonces the credentials of each issuer of this wallet use:
 * `<issuer DID>/<nonce>` → the credential's id. New nonces are checked against it one read each
 * (pbqIssuance.ts revocationNonces), not against every credential of the wallet.
 */
export const NONCES_NS = 'iden3.revocationNonces';

/** What the nonce index holds for one nonce. */
export interface NonceRecord {
  id: string;
}

/**
 * Records that `issuer` issued `credential` from this wallet, with its revocation nonce as used:
 * call it inside a store transaction, so that both are recorded or neither.
 */
export function recordIssued(ctx: Context, issuer: string, credential: { id: string; credentialStatus: { revocationNonce?: number | string | undefined } }): void {
  const revocationNonce = Number(credential.credentialStatus.revocationNonce);
  ctx.store.put<IssuedRecord>(ISSUED_NS, `${issuer}/${credential.id}`, { id: credential.id, revocationNonce });
  ctx.store.put<NonceRecord>(NONCES_NS, `${issuer}/${revocationNonce}`, { id: credential.id });
}

/**
 * Store namespace of the completed batches (`vc issuer issue --batch`) whose result was not yet
 * written out (by their own run, or by another command that reconciled an interrupted run's
 * journal): by batch key, the credentials the next run of the same batch returns instead of
 * issuing them again. A record goes once a run's output is written (forgetCompletedBatch).
 */
export const COMPLETED_BATCHES_NS = 'iden3.completedBatches';

/** A batch completed for a run that did not see it complete. */
export interface CompletedBatch {
  issuer: string;
  credentials: string[];
  txId: string;
  state: string;
  at: string;
}

/** Store namespace of the journal: one pending publication per issuer DID (src/iden3/storage.ts). */
export { PENDING_PUBLICATIONS_NS };

export type PublicationKind = 'issue' | 'revoke';

/** The journal of one publication (see the module comment for its stages). */
export interface PendingPublication {
  kind: PublicationKind;
  issuer: string;
  /** The credentials it completes, as W3C JSON without their Merkle proofs. */
  credentials: Record<string, unknown>[];
  revokedNonces: number[];
  stage: 'prepared' | 'trees-updated' | 'nodes-saved' | 'sent' | 'mined';
  /** The chain it was journaled against (absent in journals older than chain identities). */
  chain?: ChainIdentity;
  /** The on-chain state it starts from (hex); undefined when the identity never published. */
  baseState: string | undefined;
  newState?: Omit<TreeStateRecord, 'txId' | 'at'>;
  txHash?: string;
  /** The block the chain was at when the transaction was sent (where to look for its event). */
  fromBlock?: number;
  createdAt: string;
  /** A digest of the batch input that asked for it (`vc issuer issue --batch`), to recognise a re-run. */
  batchKey?: string;
}

/** A completed publication. */
export interface PublicationResult {
  txId: string;
  state: TreeStateRecord;
  /** The journaled credentials, each with its Iden3SparseMerkleTreeProof. */
  credentials: W3CCredential[];
  /** The revocation nonces it published. */
  revokedNonces: number[];
  batchKey?: string | undefined;
}

/** The work of one publication. */
export interface PublicationWork {
  kind: PublicationKind;
  credentials: W3CCredential[];
  revokedNonces: number[];
  batchKey?: string;
}

function saveJournal(ctx: Context, journal: PendingPublication): void {
  ctx.store.put<PendingPublication>(PENDING_PUBLICATIONS_NS, journal.issuer, journal);
}

/** The pending publication of `issuer`, if an interrupted command left one. */
export function pendingPublication(ctx: Context, issuer: string): PendingPublication | undefined {
  return ctx.store.get<PendingPublication>(PENDING_PUBLICATIONS_NS, issuer);
}

/** The identity of the chain this context is connected to. */
async function connectedChainIdentity(ctx: Context): Promise<ChainIdentity> {
  const chain = await getChain(ctx);
  try {
    return await readChainIdentity(chain.rpcUrl, chain.chainId);
  } catch (error) {
    throw new NetworkError(`cannot read which chain ${redactUrls(chain.rpcUrl)} is (its block 0): ${describeError(error)}`, { cause: error });
  }
}

/**
 * Refuses to reconcile a journal made against another chain than the connected one (ConfigError,
 * exit 3, naming both). This home's own embedded chain replaced by a newer one of its own is
 * accepted: the journal is returned without its transaction (which was on the old chain), to be
 * published again.
 */
async function checkJournalChain(ctx: Context, journal: PendingPublication): Promise<PendingPublication> {
  if (journal.chain === undefined) return journal;
  const current = await connectedChainIdentity(ctx);
  if (isSameChain(journal.chain, current)) return journal;
  const chain = await getChain(ctx);
  if (chain.embedded && isOwnEmbeddedChain(ctx, journal.chain) && isOwnEmbeddedChain(ctx, current)) {
    ctx.progress.info(`the interrupted ${journal.kind} of ${journal.issuer} was made on an earlier chain of this wallet (${describeChain(journal.chain)}); taking it over on ${describeChain(current)}`);
    const { txHash: _txHash, ...rest } = journal;
    return { ...rest, chain: current };
  }
  throw new ConfigError(
    `the interrupted ${journal.kind} of ${journal.issuer} was journaled against ${describeChain(journal.chain)}, but this wallet is connected to ${describeChain(current)} at ${redactUrls(chain.rpcUrl)}: ` +
      'it is never completed on another chain; connect to the chain it was made on (its own node, or the RPC_URL it used) and run the command again',
    { field: chain.embedded ? 'CHAIN_ID' : 'RPC_URL' },
  );
}

/** The state the State contract holds for `did` (hex), or undefined when it never published. */
async function onChainState(iden3: Iden3, did: DID): Promise<string | undefined> {
  const { core, mt, sdk } = iden3.modules;
  try {
    const info = await iden3.states.getLatestStateById(core.DID.idFromDID(did).bigInt());
    return info.state === undefined || info.state === 0n ? undefined : mt.Hash.fromBigInt(info.state).hex();
  } catch (error) {
    if (sdk.isIdentityDoesNotExistError(error)) return undefined;
    throw error;
  }
}

/**
 * Publishes `work` (credentials to add, nonces to revoke) as one state transition, journaled so
 * that a crash at any step is recovered by the next command. The caller holds the issuer's lock
 * and has reconciled any earlier journal (recoverPendingPublication).
 */
export async function publishRecoverably(ctx: Context, did: DID, work: PublicationWork): Promise<PublicationResult> {
  const iden3 = await getIden3(ctx);
  const issuer = did.string();
  if (pendingPublication(ctx, issuer) !== undefined) throw new ConflictError(`an interrupted publication of ${issuer} is still pending; it must be reconciled first`);
  const journal: PendingPublication = {
    kind: work.kind,
    issuer,
    credentials: work.credentials.map((credential) => JSON.parse(JSON.stringify(credential)) as Record<string, unknown>),
    revokedNonces: work.revokedNonces,
    stage: 'prepared',
    baseState: await onChainState(iden3, did),
    chain: await connectedChainIdentity(ctx),
    createdAt: ctx.now().toISOString(),
    ...(work.batchKey === undefined ? {} : { batchKey: work.batchKey }),
  };
  saveJournal(ctx, journal);
  crashPoint(`${work.kind}:prepared`);
  return runPublication(ctx, iden3, did, journal);
}

/**
 * Adds the journal's claims and nonces that are not in the trees yet (a retry adds nothing twice):
 * the claims one by one, then the new claims root to the roots tree once (a batch adds one root,
 * as iden3 does for one publication). A crash between two claims leaves some in; a retry adds the
 * rest.
 */
async function applyToTrees(iden3: Iden3, did: DID, journal: PendingPublication): Promise<void> {
  const { sdk } = iden3.modules;
  const model = await iden3.identityWallet.getDIDTreeModel(did);
  for (const json of journal.credentials) {
    const credential = sdk.W3CCredential.fromJSON(json);
    const claim = credential.getCoreClaimFromProof(sdk.ProofType.BJJSignature);
    if (claim === undefined) throw new ConflictError(`credential ${String(json.id)} has no BJJSignature2021 core claim`);
    const { hi, hv } = claim.hiHv();
    if ((await model.claimsTree.generateProof(hi)).proof.existence) continue;
    await iden3.dataStorage.mt.addToMerkleTree(did.string(), sdk.MerkleTreeType.Claims, hi, hv);
    // Only an issuance carries credentials, so only it reaches this point.
    crashPoint('issue:claim-added');
    await letEventLoopRun();
  }
  if (journal.credentials.length > 0) {
    const fresh = await iden3.identityWallet.getDIDTreeModel(did);
    const claimsRoot = await fresh.claimsTree.root();
    if (!(await fresh.rootsTree.generateProof(claimsRoot.bigInt())).proof.existence) {
      await iden3.dataStorage.mt.addToMerkleTree(did.string(), sdk.MerkleTreeType.Roots, claimsRoot.bigInt(), 0n);
    }
  }
  for (const nonce of journal.revokedNonces) {
    if (!(await model.revocationTree.generateProof(BigInt(nonce))).proof.existence) {
      await iden3.dataStorage.mt.addToMerkleTree(did.string(), sdk.MerkleTreeType.Revocations, BigInt(nonce), 0n);
    }
  }
}

/**
 * Runs (or, with `resumedFrom`, runs again from the trees) the steps of a journaled publication.
 * A resumed publication whose trees were updated before does not stop at that step's crash point
 * again: a kill there would leave what a kill at the step it was interrupted at left.
 */
async function runPublication(ctx: Context, iden3: Iden3, did: DID, journal: PendingPublication, resumedFrom?: PendingPublication['stage']): Promise<PublicationResult> {
  const { sdk } = iden3.modules;
  await applyToTrees(iden3, did, journal);
  if (resumedFrom === undefined || resumedFrom === 'prepared') crashPoint(`${journal.kind}:trees-updated`);
  const { tree: _tree, txId: _txId, at: _at, ...newState } = await currentTreeState(iden3, did);
  journal.newState = newState;
  journal.stage = 'trees-updated';
  // Where to look for the transaction's event if the process dies before its hash is recorded.
  journal.fromBlock = await (await getChain(ctx)).provider.getBlockNumber();
  saveJournal(ctx, journal);

  await iden3.identityWallet.publishRevocationInfoByCredentialStatusType(did, sdk.CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, {
    rhsUrl: iden3.rhsUrl,
    revokedNonces: journal.revokedNonces,
  });
  await publishToIdentityTreeStore(ctx, iden3, did, journal);
  const old = treeStateForPublishedState(ctx, iden3, did, journal.baseState);
  const { proofService } = await getIden3Prover(ctx);
  const chain = await getChain(ctx);
  const step = ctx.progress.start('proving the state transition and publishing it on the State contract');
  let txId: string;
  try {
    txId = await iden3.states.withPublicationJournal(
      {
        onSent: ({ hash, fromBlock }) => {
          journal.txHash = hash;
          journal.fromBlock = Math.min(fromBlock, journal.fromBlock ?? fromBlock);
          journal.stage = 'sent';
          saveJournal(ctx, journal);
          crashPoint(`${journal.kind}:tx-sent`);
        },
        onMined: async () => {
          journal.stage = 'mined';
          saveJournal(ctx, journal);
          crashPoint(`${journal.kind}:receipt`);
          await killNodePoint(`${journal.kind}:receipt`, chain.embedded ? (await localNodeStatus(ctx)).record?.pid : undefined);
        },
      },
      () => proofService.transitState(did, old.tree, old.genesis, iden3.states, chain.signer),
    );
    step.succeed(`published the new state of ${did.string()} (tx ${txId})`);
  } catch (error) {
    step.fail();
    throw error;
  }
  await ensureDurable(ctx, chain.embedded);
  return completePublication(ctx, iden3, did, journal, txId);
}

/** The most tree nodes one IdentityTreeStore.saveNodes transaction carries (each is hashed and stored on chain). */
const TREE_STORE_NODES_PER_TX = 100;

/** True when the IdentityTreeStore at `address` holds the node of `hash` (hex). */
async function treeStoreHasNode(ctx: Context, iden3: Iden3, address: string, hash: string): Promise<boolean> {
  const { iden3Artifact } = await import('../../chain/artifacts.js');
  try {
    await readContract(ctx, { address, abi: iden3Artifact('IdentityTreeStore').abi as never, method: 'getNode', args: [iden3.modules.mt.Hash.fromHex(hash).bigInt()] }, `reading node ${hash} of the IdentityTreeStore ${address}`);
    return true;
  } catch (error) {
    if (error instanceof TransactionRevertedError && error.revertName === 'NodeNotFound') return false;
    throw error;
  }
}

/** Every node of a tree (middle: its two children; leaf: key, value, 1), as IdentityTreeStore.saveNodes takes them. */
async function treeNodes(iden3: Iden3, tree: Merkletree): Promise<bigint[][]> {
  const { mt } = iden3.modules;
  const nodes: bigint[][] = [];
  await tree.walk(await tree.root(), async (node) => {
    if (node instanceof mt.NodeMiddle) nodes.push([node.childL.bigInt(), node.childR.bigInt()]);
    else if (node instanceof mt.NodeLeaf) nodes.push([node.entry[0].bigInt(), node.entry[1].bigInt(), 1n]);
    await Promise.resolve();
  });
  return nodes;
}

/**
 * Publishes the issuer's revocation tree nodes and its new state node to the chain's
 * IdentityTreeStore when statuses are read there (Iden3OnchainSparseMerkleTreeProof2023): this
 * publication carries a credential with such a status, or the state it starts from is there
 * already (an earlier publication did so, and every later one must, or those credentials could no
 * longer be resolved from the new state). The first time, the whole revocation tree goes (nonces
 * revoked before); after that, what this publication changed. Nodes are content addressed and
 * saving one again changes nothing, so a run recovered from a crash at any step sends them again;
 * the state transition, sent after their receipts, is what makes them matter (its checkpoint of
 * the embedded chain saves them too).
 */
async function publishToIdentityTreeStore(ctx: Context, iden3: Iden3, did: DID, journal: PendingPublication): Promise<void> {
  const chain = await getChain(ctx);
  const carriesOnchain = journal.credentials.some((credential) => (credential.credentialStatus as { type?: unknown } | undefined)?.type === ONCHAIN_STATUS_TYPE);
  const address = chain.addresses.identityTreeStore;
  if (address === undefined) {
    if (!carriesOnchain) return;
    throw new ConfigError(`the ${journal.kind} of ${journal.issuer} carries ${ONCHAIN_STATUS_TYPE} statuses, but the configured chain ${chain.chainId} has no IdentityTreeStore: set IDENTITY_TREE_STORE_ADDRESS (the deploying party's \`vc chain env\` gives it), or \`vc chain deploy\` deploys one`);
  }
  await requireContractKind(ctx, 'identityTreeStore', address, chain.addresses);
  const continued = journal.baseState !== undefined && (await treeStoreHasNode(ctx, iden3, address, journal.baseState));
  if (!carriesOnchain && !continued) return;
  const { sdk } = iden3.modules;
  const model = await iden3.identityWallet.getDIDTreeModel(did);
  const changed = (await sdk.getNodesRepresentation(continued ? journal.revokedNonces : [], model, model.state)).map((node) => node.children.map((child) => child.bigInt()));
  const nodes = continued ? changed : [...(await treeNodes(iden3, model.revocationTree)), ...changed];
  const { iden3Artifact } = await import('../../chain/artifacts.js');
  const abi = iden3Artifact('IdentityTreeStore').abi as never;
  const step = ctx.progress.start(`publishing ${nodes.length} tree nodes of ${journal.issuer} to the IdentityTreeStore ${address}`);
  try {
    for (let start = 0; start < nodes.length; start += TREE_STORE_NODES_PER_TX) {
      await sendContractTransaction(
        ctx,
        { address, abi, method: 'saveNodes', args: [nodes.slice(start, start + TREE_STORE_NODES_PER_TX)] },
        { description: `save the tree nodes of ${journal.issuer} in the IdentityTreeStore`, checkpoint: false },
      );
    }
    step.succeed(`published ${nodes.length} tree nodes to the IdentityTreeStore`);
  } catch (error) {
    step.fail();
    throw error;
  }
  journal.stage = 'nodes-saved';
  saveJournal(ctx, journal);
  crashPoint(`${journal.kind}:nodes-saved`);
}

/** On the embedded node, success is reported only once the node's state with the transaction is saved. */
async function ensureDurable(ctx: Context, embedded: boolean): Promise<void> {
  if (!embedded) return;
  await ensureDurableLocalChain(ctx, 'the state transition');
}

/** Records the published state, attaches the credentials' Merkle proofs, and closes the journal. */
async function completePublication(ctx: Context, iden3: Iden3, did: DID, journal: PendingPublication, txId: string): Promise<PublicationResult> {
  const { sdk } = iden3.modules;
  const record: TreeStateRecord = { ...journal.newState!, txId, at: ctx.now().toISOString() };
  ctx.store.put<TreeStateRecord>(TREE_STATES_NS, `${journal.issuer}/${record.state}`, record);
  const completed: W3CCredential[] = [];
  for (const json of journal.credentials) {
    const [credential] = await iden3.identityWallet.generateIden3SparseMerkleTreeProof(did, [sdk.W3CCredential.fromJSON(json)], txId);
    await iden3.dataStorage.credential.saveCredential(credential!);
    // What this issuer issued is recorded here, not inferred from the credential store (which
    // also holds what holders of this wallet were given, and anything given to prove-submit).
    ctx.store.transaction(() => recordIssued(ctx, journal.issuer, credential!));
    // A credential for one of this wallet's own holder DIDs is the holder's too (never one for another holder).
    keepIssuedCredential(ctx, JSON.parse(JSON.stringify(credential)) as Record<string, unknown>, 'iden3', { quiet: true });
    completed.push(credential!);
    await letEventLoopRun();
  }
  if (journal.batchKey !== undefined) {
    // Whoever completes a batch, its runs get it until one writes it out (forgetCompletedBatch).
    ctx.store.put<CompletedBatch>(COMPLETED_BATCHES_NS, journal.batchKey, { issuer: journal.issuer, credentials: completed.map((c) => c.id), txId, state: record.state, at: record.at });
  }
  ctx.store.delete(PENDING_PUBLICATIONS_NS, journal.issuer);
  return { txId, state: record, credentials: completed, revokedNonces: journal.revokedNonces, batchKey: journal.batchKey };
}

/** The hash of the transaction that moved `did` to `state`, found from the State contract's StateUpdated event. */
async function findStateTransaction(ctx: Context, iden3: Iden3, did: DID, state: string, fromBlock: number | undefined): Promise<string> {
  const chain = await getChain(ctx);
  const { Interface } = await import('ethers');
  const { iden3Artifact } = await import('../../chain/artifacts.js');
  const events = new Interface(iden3Artifact('StateLib').abi as never);
  const event = events.getEvent('StateUpdated')!;
  const id = iden3.modules.core.DID.idFromDID(did).bigInt();
  const stateValue = iden3.modules.mt.Hash.fromHex(state).bigInt();
  const logs = await chain.provider.getLogs({ address: chain.addresses.state, topics: [event.topicHash], fromBlock: fromBlock ?? 0, toBlock: 'latest' });
  for (const log of logs) {
    const parsed = events.parseLog(log);
    if (parsed !== null && BigInt(parsed.args.id as bigint) === id && BigInt(parsed.args.state as bigint) === stateValue) return log.transactionHash;
  }
  throw new ConflictError(`the State contract holds state ${state} for ${did.string()}, but no StateUpdated event from block ${fromBlock ?? 0} names it`);
}

/** True when `state` (hex; undefined for genesis) is the genesis or a published state of `did` in this wallet. */
function knowsState(ctx: Context, iden3: Iden3, did: DID, state: string | undefined): boolean {
  try {
    treeStateForPublishedState(ctx, iden3, did, state);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a broadcast transaction that is still pending; true when it was mined successfully. */
async function settleTransaction(ctx: Context, hash: string): Promise<boolean> {
  const chain = await getChain(ctx);
  const known = await chain.provider.getTransaction(hash);
  if (known === null) return false;
  const confirmations = chain.embedded ? 1 : ctx.config.chain.confirmations;
  const receipt = await chain.provider.waitForTransaction(hash, confirmations, (chain.embedded ? 30_000 : 300_000) + (confirmations - 1) * 15_000).catch((error: unknown) => {
    throw new NetworkError(`the state transition ${hash} is still pending (${describeError(error)}); run the command again once it is mined`, { cause: error });
  });
  return receipt?.status === 1;
}

/**
 * Reconciles the journal of an interrupted publication of `did` with the chain: completes it when
 * its state landed, publishes it again when it did not. Returns what was completed, if anything.
 * The caller holds the issuer's lock.
 */
export async function recoverPendingPublication(ctx: Context, did: DID): Promise<PublicationResult | undefined> {
  const issuer = did.string();
  let journal = pendingPublication(ctx, issuer);
  if (journal === undefined) return undefined;
  journal = await checkJournalChain(ctx, journal);
  const iden3 = await getIden3(ctx);
  let onChain = await onChainState(iden3, did);
  if (journal.newState !== undefined && onChain !== journal.newState.state && onChain === journal.baseState && journal.txHash !== undefined) {
    // Broadcast but not (yet) reflected: wait for it if the chain still has it, then look again.
    if (await settleTransaction(ctx, journal.txHash)) onChain = await onChainState(iden3, did);
  }
  if (journal.newState !== undefined && onChain === journal.newState.state) {
    const txId = journal.txHash ?? (await findStateTransaction(ctx, iden3, did, onChain, journal.fromBlock));
    ctx.progress.info(`completing the interrupted ${journal.kind} of ${issuer}: its state transition ${txId} is on chain`);
    const { embedded } = await getChain(ctx);
    // CONFIRMATIONS on a chain vc does not run: a state seen on chain must also be deep enough.
    if (!embedded && ctx.config.chain.confirmations > 1 && !(await settleTransaction(ctx, txId))) {
      throw new NetworkError(`the state transition ${txId} of the interrupted ${journal.kind} left the chain (a reorganisation?); run the command again to publish it again`);
    }
    await ensureDurable(ctx, embedded);
    return completePublication(ctx, iden3, did, journal, txId);
  }
  if (onChain !== journal.baseState && knowsState(ctx, iden3, did, onChain)) {
    // The chain went back to an older state of ours (a node restored from an older snapshot, a
    // reset chain): the trees hold everything, so the prepared state is published from there.
    ctx.progress.info(`the chain holds an older state of ${issuer} (${onChain ?? 'genesis'}) than the interrupted ${journal.kind} started from; publishing from it`);
    journal = { ...journal, baseState: onChain };
  }
  if (onChain !== journal.baseState) {
    throw new ConflictError(
      `the State contract holds state ${onChain ?? '(none)'} for ${issuer}, neither the state an interrupted ${journal.kind} started from (${journal.baseState ?? 'genesis'}) nor the one it prepared (${journal.newState?.state ?? 'not computed'}); was the chain replaced?`,
    );
  }
  ctx.progress.info(`publishing again the state an interrupted ${journal.kind} of ${issuer} prepared (it never reached the chain)`);
  // Published again on the connected chain (checked above): the journal now names it.
  const resumedFrom = journal.stage;
  journal = { ...journal, stage: 'prepared', chain: await connectedChainIdentity(ctx) };
  delete journal.txHash;
  saveJournal(ctx, journal);
  return runPublication(ctx, iden3, did, journal, resumedFrom);
}
