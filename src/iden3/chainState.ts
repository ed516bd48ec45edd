/**
 * The js-sdk state storage bound to our chain client: reads (latest state, GIST proofs, roots) go
 * through the js-sdk's EthStateStorage on the State contract of the address book; state
 * transitions are sent through the chain module's transaction path (wallet lock, decoded
 * reverts, local chain checkpoint). The chain is connected on first use only, so creating DIDs
 * (which never reads the chain) does not start the local node.
 */
import type { EthStateStorage, IStateStorage, RootInfo, StateInfo, StateProof, UserStateTransitionInfo } from '@0xpolygonid/js-sdk';
import type { ZKProof } from '@iden3/js-jwz';
import type { InterfaceAbi, JsonRpcApiProvider, JsonRpcPayload, JsonRpcProvider, JsonRpcResult } from 'ethers';
import type { Context } from '../core/context.js';
import { getChain } from '../chain/client.js';
import { sendContractTransaction } from '../chain/transactions.js';
import type { Iden3Modules } from './modules.js';

interface ConnectedState {
  storage: EthStateStorage;
  stateAddress: string;
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
    return new ChainStateStorage(ctx, modules, new DeferredProvider());
  }

  private connected(): Promise<ConnectedState> {
    return this.ctx.lazy('iden3.stateStorage', async () => {
      const chain = await getChain(this.ctx);
      const { sdk } = this.modules;
      const storage = new sdk.EthStateStorage(
        { ...sdk.defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.addresses.state, chainId: chain.chainId },
        // No caching: a `vc` process publishes states and reads them back within seconds.
        { disableCache: true },
      );
      return { storage, stateAddress: chain.addresses.state };
    });
  }

  async getLatestStateById(id: bigint): Promise<StateInfo> {
    return (await this.connected()).storage.getLatestStateById(id);
  }

  async getStateInfoByIdAndState(id: bigint, state: bigint): Promise<StateInfo> {
    return (await this.connected()).storage.getStateInfoByIdAndState(id, state);
  }

  async getGISTProof(id: bigint): Promise<StateProof> {
    return (await this.connected()).storage.getGISTProof(id);
  }

  async getGISTRootInfo(root: bigint, userId: bigint): Promise<RootInfo> {
    return (await this.connected()).storage.getGISTRootInfo(root, userId);
  }

  /** Publishes a state transition proven by the stateTransition circuit; returns the tx hash. */
  async publishState(proof: ZKProof | undefined): Promise<string> {
    if (proof === undefined) throw new Error('a state transition proof is required');
    const { sdk } = this.modules;
    const { stateAddress } = await this.connected();
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
      { description: `publish the new state of identity ${signals.userId.string()} on the State contract` },
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
