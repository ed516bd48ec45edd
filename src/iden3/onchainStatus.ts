/**
 * Resolves Iden3OnchainSparseMerkleTreeProof2023 statuses from the configured chain only: the
 * issuer's revocation tree nodes are in the IdentityTreeStore contract (which `vc chain deploy`
 * deploys; the issuer publishes its nodes there with saveNodes), the issuer's latest state is on
 * the State contract, and the contract walks from that state to the credential's revocation nonce.
 *
 * The status id is `<issuer DID>/credentialStatus?revocationNonce=N&contractAddress=<chainId>:<address>&state=<genesis state>`
 * (as the js-sdk writes it). vc never reaches another chain for it: a status naming another chain
 * id, or a contract that is not the IdentityTreeStore of the configured chain's address book, is
 * refused with the reason. The contract's answer is checked (the proof leads to the revocation
 * root it names, and that root is the one of the issuer's state) before it is used.
 */
import type { CredentialStatus, CredentialStatusResolveOptions, CredentialStatusResolver, RevocationStatus } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { InterfaceAbi } from 'ethers';
import type { Context } from '../context.js';
import { UnprocessableError, VerificationError } from '../errors.js';
import { getChain } from '../chain/chainClient.js';
import { requireContractKind } from '../chain/contractKind.js';
import { readContract, TransactionRevertedError } from '../chain/transactions.js';
import { latestStateOnChain, type ChainStateStorage } from './chainState.js';
import type { Iden3Modules } from './modules.js';

/** The status type, as credentials carry it. */
export const ONCHAIN_STATUS_TYPE = 'Iden3OnchainSparseMerkleTreeProof2023';

/** What IdentityTreeStore.getRevocationStatusByIdAndState returns (an ethers Result with named fields). */
interface RawCredentialStatus {
  issuer: { state: bigint; claimsTreeRoot: bigint; revocationTreeRoot: bigint; rootOfRoots: bigint };
  mtp: { root: bigint; existence: boolean; siblings: bigint[]; index: bigint; value: bigint; auxExistence: boolean; auxIndex: bigint; auxValue: bigint };
}

/** The parts of an on-chain status id. */
export interface OnchainStatusId {
  chainId: number;
  contractAddress: string;
  revocationNonce: number;
  /** The issuer's genesis state (hex), for an issuer that never published a state. */
  stateHex: string | undefined;
}

const refuse = (reason: string): UnprocessableError => new UnprocessableError(`${ONCHAIN_STATUS_TYPE} status: ${reason}`, { field: 'credentialStatus.id' });

/** Reads an on-chain status id (see the module comment); a malformed one is refused with what is wrong. */
export function parseOnchainStatusId(status: CredentialStatus, issuer: string): OnchainStatusId {
  const id = String(status.id);
  const prefix = `${issuer}/credentialStatus?`;
  if (!id.startsWith(prefix)) throw refuse(`its id ${id} is not ${prefix}... (the issuer's DID, then the contract and the nonce)`);
  const params = new URLSearchParams(id.slice(prefix.length));
  const contract = params.get('contractAddress');
  const match = contract === null ? null : /^(\d{1,15}):(0x[0-9a-fA-F]{40})$/.exec(contract);
  if (match === null) throw refuse(`its id has no contractAddress=<chainId>:<0x address> (found ${contract === null ? 'none' : JSON.stringify(contract)})`);
  for (const name of ['revocationNonce', 'contractAddress', 'state']) {
    if (params.getAll(name).length > 1) throw refuse(`its id names ${name} ${params.getAll(name).length} times`);
  }
  const given = status.revocationNonce as unknown;
  if (given !== undefined && (typeof given !== 'number' || !Number.isSafeInteger(given) || given < 0)) throw refuse(`its revocationNonce ${JSON.stringify(given) ?? String(given)} is not a whole number`);
  const nonceParam = params.get('revocationNonce');
  if (nonceParam !== null && !/^\d{1,20}$/.test(nonceParam)) throw refuse(`its id's revocationNonce ${JSON.stringify(nonceParam)} is not a number`);
  if (nonceParam !== null && status.revocationNonce !== undefined && Number(nonceParam) !== Number(status.revocationNonce)) {
    throw refuse(`its id names revocation nonce ${nonceParam}, its revocationNonce is ${status.revocationNonce}`);
  }
  const revocationNonce = nonceParam !== null ? Number(nonceParam) : Number(status.revocationNonce);
  if (!Number.isSafeInteger(revocationNonce) || revocationNonce < 0) throw refuse('it names no revocation nonce');
  const state = params.get('state');
  if (state !== null && !/^[0-9a-f]{64}$/.test(state)) throw refuse(`its id's state ${JSON.stringify(state)} is not a 32-byte hex hash`);
  return { chainId: Number(match[1]), contractAddress: match[2]!, revocationNonce, stateHex: state ?? undefined };
}

/** Iden3OnchainSparseMerkleTreeProof2023 over the configured chain's IdentityTreeStore. */
export class OnchainTreeStatusResolver implements CredentialStatusResolver {
  constructor(
    private readonly ctx: Context,
    private readonly states: ChainStateStorage,
    private readonly modules: Iden3Modules,
  ) {}

  async resolve(credentialStatus: CredentialStatus, options?: CredentialStatusResolveOptions): Promise<RevocationStatus> {
    const issuerDID = options?.issuerDID;
    if (issuerDID === undefined) throw new Error('issuer DID is required to resolve an on-chain status');
    const status = parseOnchainStatusId(credentialStatus, issuerDID.string());
    const chain = await getChain(this.ctx);
    if (status.chainId !== chain.chainId) {
      throw refuse(`it names chain ${status.chainId}; vc reads statuses from the configured chain ${chain.chainId} only (never another network)`);
    }
    const treeStore = chain.addresses.identityTreeStore;
    if (treeStore === undefined) throw refuse(`the configured chain ${chain.chainId} has no IdentityTreeStore: set IDENTITY_TREE_STORE_ADDRESS (the deploying party's \`vc chain env\` gives it), or \`vc chain deploy\` deploys one`);
    await requireContractKind(this.ctx, 'identityTreeStore', treeStore, chain.addresses);
    if (status.contractAddress.toLowerCase() !== treeStore.toLowerCase()) {
      throw refuse(`it names contract ${status.contractAddress}, which is not the IdentityTreeStore ${treeStore} of the configured chain ${chain.chainId}`);
    }
    const state = await this.latestState(issuerDID, status);
    const { core, mt } = this.modules;
    const { iden3Artifact } = await import('../chain/artifacts.js');
    let raw: RawCredentialStatus;
    try {
      raw = await readContract<RawCredentialStatus>(
        this.ctx,
        { address: treeStore, abi: iden3Artifact('IdentityTreeStore').abi as InterfaceAbi, method: 'getRevocationStatusByIdAndState', args: [core.DID.idFromDID(issuerDID).bigInt(), state, status.revocationNonce] },
        `reading the revocation status of nonce ${status.revocationNonce} from the IdentityTreeStore ${treeStore}`,
      );
    } catch (error) {
      if (error instanceof TransactionRevertedError && error.revertName !== undefined) {
        throw new VerificationError(
          `${ONCHAIN_STATUS_TYPE} status: the IdentityTreeStore ${treeStore} has no tree nodes for the issuer's state ${mt.Hash.fromBigInt(state).hex()} (${error.revertName}): the issuer did not publish its revocation tree there`,
          { field: 'credentialStatus', cause: error },
        );
      }
      throw error;
    }
    return this.checked(raw, state, status.revocationNonce);
  }

  /** The issuer's latest state on the State contract, or the genesis state the id names when the issuer never published one. */
  private async latestState(issuerDID: DID, status: OnchainStatusId): Promise<bigint> {
    const { mt, sdk } = this.modules;
    const onChain = await latestStateOnChain(this.states, this.modules, issuerDID);
    if (onChain !== undefined) return onChain;
    if (status.stateHex === undefined) throw refuse(`issuer ${issuerDID.string()} has no state on chain and the status id names none`);
    const state = mt.Hash.fromHex(status.stateHex).bigInt();
    if (!sdk.isGenesisState(issuerDID, state)) throw refuse(`issuer ${issuerDID.string()} has no state on chain and ${status.stateHex} is not its genesis state`);
    return state;
  }

  /** The contract's answer as a js-sdk RevocationStatus, once it is shown to hold. */
  private async checked(raw: RawCredentialStatus, state: bigint, nonce: number): Promise<RevocationStatus> {
    const { mt } = this.modules;
    const roots = raw.issuer;
    const wrong = (what: string): VerificationError => new VerificationError(`${ONCHAIN_STATUS_TYPE} status: the IdentityTreeStore's answer does not hold: ${what}`, { field: 'credentialStatus' });
    if (BigInt(roots.state) !== state) throw wrong(`it is about state ${BigInt(roots.state)}, not ${state}`);
    if (mt.hashElems([BigInt(roots.claimsTreeRoot), BigInt(roots.revocationTreeRoot), BigInt(roots.rootOfRoots)]).bigInt() !== state) throw wrong('its three roots do not hash to the state');
    if (BigInt(raw.mtp.index) !== BigInt(nonce)) throw wrong(`its proof is for index ${BigInt(raw.mtp.index)}, not nonce ${nonce}`);
    const proof = mt.Proof.fromJSON({
      existence: raw.mtp.existence,
      siblings: raw.mtp.siblings.map((sibling) => BigInt(sibling).toString()),
      ...(raw.mtp.auxExistence ? { node_aux: { key: BigInt(raw.mtp.auxIndex).toString(), value: BigInt(raw.mtp.auxValue).toString() } } : {}),
    });
    const revocationRoot = mt.Hash.fromBigInt(BigInt(roots.revocationTreeRoot));
    const holds = await mt.verifyProof(revocationRoot, proof, BigInt(nonce), raw.mtp.existence ? BigInt(raw.mtp.value) : 0n);
    if (!holds) throw wrong('its Merkle proof does not lead to the revocation root of the state');
    return {
      mtp: proof,
      issuer: {
        state: mt.Hash.fromBigInt(state).hex(),
        claimsTreeRoot: mt.Hash.fromBigInt(BigInt(roots.claimsTreeRoot)).hex(),
        revocationTreeRoot: revocationRoot.hex(),
        rootOfRoots: mt.Hash.fromBigInt(BigInt(roots.rootOfRoots)).hex(),
      },
    };
  }
}
