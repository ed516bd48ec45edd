/**
 * The js-sdk state storage bound to our chain client: reads (latest state, GIST proofs, roots) are
 * calls to the State contract of the address book through the chain client's provider, and
 * state transitions are sent through the chain module's transaction path (wallet lock, decoded
 * reverts, local chain checkpoint). The chain is connected on first use only, so creating DIDs
 * (which never reads the chain) does not start the local node.
 *
 * The js-sdk's own EthStateStorage is not used: it builds a new JsonRpcProvider for every call
 * (no static network, never destroyed: ethers then retries a failed network detection forever,
 * logging to stdout every second) and its raw ethers errors would reach the user as crashes.
 * Here every read goes through readContract, whose failures are mapped by toChainError (a revert
 * keeps its decoded reason in the message, so the js-sdk's isIdentityDoesNotExistError and
 * friends still recognise "Identity does not exist"; an unreachable chain is a NetworkError).
 */
import type { IStateStorage, RootInfo, StateInfo, StateProof, UserStateTransitionInfo } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { ZKProof } from '@iden3/js-jwz';
import type { InterfaceAbi, JsonRpcApiProvider, JsonRpcPayload, JsonRpcProvider, JsonRpcResult } from 'ethers';
import type { Context } from '../context.js';
import { UnprocessableError } from '../errors.js';
import { getChain } from '../chain/chainClient.js';
import { readContract, sendContractTransaction, type SendTransactionOptions } from '../chain/transactions.js';
import type { Iden3Modules } from './modules.js';

/** StateInfo as the State contract returns it (an ethers Result with named fields). */
interface RawStateInfo {
  id: bigint;
  state: bigint;
  replacedByState: bigint;
  createdAtTimestamp: bigint;
  replacedAtTimestamp: bigint;
  createdAtBlock: bigint;
  replacedAtBlock: bigint;
}
interface RawGistProof {
  root: bigint;
  existence: boolean;
  siblings: bigint[];
  index: bigint;
  value: bigint;
  auxExistence: boolean;
  auxIndex: bigint;
  auxValue: bigint;
}
interface RawRootInfo {
  root: bigint;
  replacedByRoot: bigint;
  createdAtTimestamp: bigint;
  replacedAtTimestamp: bigint;
  createdAtBlock: bigint;
  replacedAtBlock: bigint;
}

function toStateInfo(raw: RawStateInfo): StateInfo {
  return {
    id: BigInt(raw.id),
    state: BigInt(raw.state),
    replacedByState: BigInt(raw.replacedByState),
    createdAtTimestamp: BigInt(raw.createdAtTimestamp),
    replacedAtTimestamp: BigInt(raw.replacedAtTimestamp),
    createdAtBlock: BigInt(raw.createdAtBlock),
    replacedAtBlock: BigInt(raw.replacedAtBlock),
  };
}

/**
 * An identity's latest state on the State contract, or undefined when it never published one (its
 * genesis state then stands; each caller says what vouches for that). Other failures propagate.
 */
export async function latestStateOnChain(states: IStateStorage, modules: Iden3Modules, did: DID): Promise<bigint | undefined> {
  try {
    const info = await states.getLatestStateById(modules.core.DID.idFromDID(did).bigInt());
    if (info.state === undefined || info.state === 0n) throw new Error('the State contract returned an empty state');
    return info.state;
  } catch (error) {
    if (modules.sdk.isIdentityDoesNotExistError(error)) return undefined;
    throw error;
  }
}

/** IStateStorage over the configured chain, connected lazily. */
export class ChainStateStorage implements IStateStorage {
  private readonly provider: JsonRpcApiProvider;

  private constructor(
    private readonly ctx: Context,
    private readonly modules: Iden3Modules,
    provider: JsonRpcApiProvider,
  ) {
    this.provider = provider;
  }

  /** Creates the storage; nothing connects until a method needs the chain. */
  static async create(ctx: Context, modules: Iden3Modules): Promise<ChainStateStorage> {
    const ethers = await import('ethers');
    // A provider that forwards every call to the chain client's provider once it exists: the
    // js-sdk asks for a provider when wallets are constructed, long before any chain access.
    class DeferredProvider extends ethers.JsonRpcApiProvider {
      constructor() {
        super(ctx.config.chain.chainId, { staticNetwork: ethers.Network.from(ctx.config.chain.chainId) });
      }
      override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
        const chain = await getChain(ctx);
        const inner = chain.provider as unknown as { _send(p: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> };
        return inner._send(payload);
      }
    }
    const provider = new DeferredProvider();
    ctx.onClose(() => provider.destroy());
    return new ChainStateStorage(ctx, modules, provider);
  }

  /** Calls a view function of the State contract; failures are VcErrors (see the module comment). */
  private async readState<T>(id: bigint, method: string, args: unknown[], description: string): Promise<T> {
    const chain = await getChain(this.ctx);
    this.requireSameChain(id, chain.chainId);
    const { iden3Artifact } = await import('../chain/artifacts.js');
    return readContract<T>(this.ctx, { address: chain.addresses.state, abi: iden3Artifact('State').abi as InterfaceAbi, method, args }, description);
  }

  /** Refuses identities of another chain: their state is not on this State contract. */
  private requireSameChain(id: bigint, chainId: number): void {
    const { core } = this.modules;
    const typed = core.Id.fromBigInt(id);
    let idChainId: number | undefined;
    try {
      idChainId = core.getChainId(core.DID.blockchainFromId(typed), core.DID.networkIdFromId(typed));
    } catch {
      idChainId = undefined;
    }
    if (idChainId !== chainId) {
      const did = core.DID.parseFromId(typed).string();
      throw new UnprocessableError(`identity ${did} does not belong to the configured chain ${chainId}: its state cannot be read from this State contract`);
    }
  }

  async getLatestStateById(id: bigint): Promise<StateInfo> {
    return toStateInfo(await this.readState<RawStateInfo>(id, 'getStateInfoById', [id], `read the latest state of identity ${id} from the State contract`));
  }

  async getStateInfoByIdAndState(id: bigint, state: bigint): Promise<StateInfo> {
    return toStateInfo(await this.readState<RawStateInfo>(id, 'getStateInfoByIdAndState', [id, state], `read state ${state} of identity ${id} from the State contract`));
  }

  async getGISTProof(id: bigint): Promise<StateProof> {
    const raw = await this.readState<RawGistProof>(id, 'getGISTProof', [id], `read the GIST proof of identity ${id} from the State contract`);
    return {
      root: BigInt(raw.root),
      existence: raw.existence,
      siblings: Array.from(raw.siblings, (sibling) => BigInt(sibling)),
      index: BigInt(raw.index),
      value: BigInt(raw.value),
      auxExistence: raw.auxExistence,
      auxIndex: BigInt(raw.auxIndex),
      auxValue: BigInt(raw.auxValue),
    };
  }

  async getGISTRootInfo(root: bigint, userId: bigint): Promise<RootInfo> {
    const raw = await this.readState<RawRootInfo>(userId, 'getGISTRootInfo', [root], `read GIST root ${root} from the State contract`);
    return {
      root: BigInt(raw.root),
      replacedByRoot: BigInt(raw.replacedByRoot),
      createdAtTimestamp: BigInt(raw.createdAtTimestamp),
      replacedAtTimestamp: BigInt(raw.replacedAtTimestamp),
      createdAtBlock: BigInt(raw.createdAtBlock),
      replacedAtBlock: BigInt(raw.replacedAtBlock),
    };
  }

  /** Told about the next state transition as soon as it is broadcast and mined (see withPublicationJournal). */
  private journalHooks: Pick<SendTransactionOptions, 'onSent' | 'onMined'> | undefined;

  /**
   * Runs `fn` (which publishes one state transition) with `hooks` told the transaction's hash the
   * moment it is broadcast and its receipt when mined. Callers hold the issuer's lock, so one
   * publication runs at a time.
   */
  async withPublicationJournal<T>(hooks: Pick<SendTransactionOptions, 'onSent' | 'onMined'>, fn: () => Promise<T>): Promise<T> {
    this.journalHooks = hooks;
    try {
      return await fn();
    } finally {
      this.journalHooks = undefined;
    }
  }

  /** Publishes a state transition proven by the stateTransition circuit; returns the tx hash. */
  async publishState(proof: ZKProof | undefined): Promise<string> {
    if (proof === undefined) throw new Error('a state transition proof is required');
    const { sdk } = this.modules;
    const stateAddress = (await getChain(this.ctx)).addresses.state;
    const { iden3Artifact } = await import('../chain/artifacts.js');
    const signals = new sdk.StateTransitionPubSignals();
    signals.pubSignalsUnmarshal(new TextEncoder().encode(JSON.stringify(proof.pub_signals)));
    const { a, b, c } = sdk.prepareZkpProof(proof.proof);
    const sent = await sendContractTransaction(
      this.ctx,
      {
        address: stateAddress,
        abi: iden3Artifact('State').abi as InterfaceAbi,
        method: 'transitState',
        args: [signals.userId.bigInt(), signals.oldUserState.bigInt(), signals.newUserState.bigInt(), signals.isOldStateGenesis, a, b, c],
      },
      { description: `publish the new state of identity ${signals.userId.string()} on the State contract`, ...this.journalHooks },
    );
    return sent.hash;
  }

  async publishStateGeneric(_signer: unknown, _info?: UserStateTransitionInfo): Promise<string> {
    throw new Error('generic state transitions (Ethereum-based identities) are not used by vc');
  }

  getRpcProvider(): JsonRpcProvider {
    // The js-sdk types this as JsonRpcProvider but only uses the JsonRpcApiProvider surface.
    return this.provider as JsonRpcProvider;
  }
}
