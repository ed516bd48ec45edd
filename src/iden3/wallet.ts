/**
 * The js-sdk wiring of one Context: data storages on the wallet store, the KMS with BJJ keys kept
 * in the store, identity and credential wallets, the status resolvers (RHS, the chain's
 * IdentityTreeStore, the issuer's iden3comm agent) and the RHS publisher, the state
 * storage on our chain, and (on demand) the proof service with its circuit files.
 */
import type { Hasher } from '@iden3/js-jsonld-merklization';
import { memoizingHasher } from './hasher.js';
import type { CredentialWallet, IdentityWallet, IDataStorage, ProofService, TreeState, W3CCredential } from '@0xpolygonid/js-sdk';
import type { DID } from '@iden3/js-iden3-core';
import type { Proof } from '@iden3/js-merkletree';
import { ServiceKey, type Context } from '../context.js';
import { ChainStateStorage } from './chainState.js';
import { Iden3Documents } from './documents.js';
import { loadIden3Modules, type Iden3Modules } from './modules.js';
import { TimedProver } from './prover.js';
import { proverOffload } from './proverPool.js';
import { selectProver } from '../circuits/nativeProver.js';
import { RhsNodeStore, RhsStatusResolver, StoreRhsPublisher } from './rhs.js';
import { AgentStatusResolver } from './agentStatus.js';
import { babyJubKeyProvider } from './babyJubSigner.js';
import { OnchainTreeStatusResolver } from './onchainStatus.js';
import { credentialStorage, IDENTITIES_NS, PENDING_PUBLICATIONS_NS, PROFILES_NS, StoreDataSource, knownTreeState, StoreMerkleTreeStorage, StorePrivateKeyStore, treeStateRecords, type KnownTreeState } from './storage.js';
import { registerDidNetwork } from '../chain/didType.js';
import type { AuthVerifierCircuit } from '../chain/verifiers.js';

/** Everything the proof-by-query operations need from the js-sdk. */
export interface Iden3 {
  modules: Iden3Modules;
  dataStorage: IDataStorage;
  identityWallet: IdentityWallet;
  credentialWallet: CredentialWallet;
  states: ChainStateStorage;
  documents: Iden3Documents;
  rhsNodes: RhsNodeStore;
  /** The RHS base URL written into credential statuses (RHS_URL or the embedded one). */
  rhsUrl: string;
  /** The DID method/blockchain/network identities are created on. */
  didNetwork: { method: string; blockchain: string; network: string; chainId: number };
  /** Poseidon for JSON-LD merklization, remembering its results across credentials (./hasher.ts). */
  hasher: Hasher;
}

/** The proof service and its prover (which records timings). */
export interface Iden3Prover {
  proofService: ProofService;
  prover: TimedProver;
  circuitsDir: string;
}

const IDEN3_KEY = new ServiceKey<Iden3>('iden3');
const CIRCUITS_DIR_KEY = new ServiceKey<string>('iden3.circuitsDir');
const PROVER_KEY = new ServiceKey<Iden3Prover>('iden3.prover');

/** The js-sdk wiring of this Context, created on first use. */
export function getIden3(ctx: Context): Promise<Iden3> {
  return ctx.lazy(IDEN3_KEY, () => createIden3(ctx));
}

async function createIden3(ctx: Context): Promise<Iden3> {
  const modules = await loadIden3Modules();
  const { sdk } = modules;
  const registration = await registerDidNetwork(ctx.config);
  const store = ctx.store;
  const { embeddedRhsBaseUrl } = await import('./rhs.js');
  const rhsUrl = await embeddedRhsBaseUrl(ctx);

  const states = await ChainStateStorage.create(ctx, modules);
  const dataStorage: IDataStorage = {
    credential: credentialStorage(store, sdk),
    identity: new sdk.IdentityStorage(new StoreDataSource(store, IDENTITIES_NS, 'did'), new StoreDataSource(store, PROFILES_NS, 'id')),
    mt: new StoreMerkleTreeStorage(store, modules),
    states,
  };

  const rhsNodes = new RhsNodeStore(store, modules);
  const resolvers = new sdk.CredentialStatusResolverRegistry();
  resolvers.register(sdk.CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, new RhsStatusResolver(rhsNodes, states, modules));
  resolvers.register(sdk.CredentialStatusType.Iden3OnchainSparseMerkleTreeProof2023, new OnchainTreeStatusResolver(ctx, states, modules));
  const agentStatus = new AgentStatusResolver(modules);
  resolvers.register(sdk.CredentialStatusType.Iden3commRevocationStatusV1, agentStatus);
  const credentialWallet = new sdk.CredentialWallet(dataStorage, resolvers);

  const publishers = new sdk.CredentialStatusPublisherRegistry();
  publishers.register(sdk.CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, new StoreRhsPublisher(rhsNodes, ctx.config.rhsUrl));

  const kms = new sdk.KMS();
  kms.registerKeyProvider(sdk.KmsKeyType.BabyJubJub, await babyJubKeyProvider(modules, new StorePrivateKeyStore(store)));
  const identityWallet = new sdk.IdentityWallet(kms, dataStorage, credentialWallet, { credentialStatusPublisherRegistry: publishers });
  agentStatus.attach({ ctx, modules, identityWallet, dataStorage });

  return {
    modules,
    dataStorage,
    identityWallet,
    credentialWallet,
    states,
    documents: new Iden3Documents(store, sdk),
    rhsNodes,
    rhsUrl,
    didNetwork: { method: registration.method, blockchain: registration.blockchain, network: registration.network, chainId: registration.chainId },
    hasher: memoizingHasher(new (await import('@iden3/js-jsonld-merklization')).PoseidonHasher()),
  };
}

/**
 * Which circuits a flow proves with: 'mtp' the default set (credentialAtomicQueryMTPV2OnChain and
 * stateTransition), 'v3' the same plus the V3 on-chain query circuit (its 16-16-64-16-32 size,
 * built on first use, and the full size when it is built already), 'iden3comm' the same default
 * set plus the off-chain ones of iden3comm answers (authV2, credentialAtomicQueryV3-16-16-64, and
 * the full credentialAtomicQueryV3 when it is built already); no contract verifies those. 'v3auth'
 * is 'v3' with authV2 (built on first use), whose proofs the UniversalVerifier's `authV2` auth
 * method verifies (vc holder prove-submit --auth authV2); 'v3authV3' and 'v3authV3-8-32' the same
 * with authV3 or authV3-8-32 (the methods of those names).
 */
export type CircuitFamily = 'mtp' | 'v3' | 'v3auth' | 'v3authV3' | 'v3authV3-8-32' | 'iden3comm';

/** The family proving a V3 query with a separate auth proof of `circuit`, submitted with the auth method of that name. */
export function authCircuitFamily(circuit: AuthVerifierCircuit): CircuitFamily {
  return circuit === 'authV2' ? 'v3auth' : circuit === 'authV3' ? 'v3authV3' : 'v3authV3-8-32';
}

/** The auth circuit whose on-chain method a family submits with, if any. */
function familyAuthCircuit(family: CircuitFamily): AuthVerifierCircuit | undefined {
  return family === 'v3auth' ? 'authV2' : family === 'v3authV3' ? 'authV3' : family === 'v3authV3-8-32' ? 'authV3-8-32' : undefined;
}

/** The on-demand circuits of a family. */
async function extraCircuits(ctx: Context, family: CircuitFamily): Promise<Array<import('../circuits/sources.js').OnDemandCircuitId>> {
  if (family === 'mtp') return [];
  const { V3_ON_CHAIN_SMALL_CIRCUIT, AUTH_V2_CIRCUIT, V3_SMALL_CIRCUIT, V3_CIRCUIT } = await import('../circuits/sources.js');
  const { availableOnDemandCircuits } = await import('../circuits/build.js');
  if (family === 'iden3comm') return [AUTH_V2_CIRCUIT, V3_SMALL_CIRCUIT, ...(await availableOnDemandCircuits(ctx)).filter((id) => id === V3_CIRCUIT)];
  const auth = familyAuthCircuit(family);
  const wanted: Array<import('../circuits/sources.js').OnDemandCircuitId> = auth === undefined ? [V3_ON_CHAIN_SMALL_CIRCUIT] : [V3_ON_CHAIN_SMALL_CIRCUIT, auth];
  return [...new Set<import('../circuits/sources.js').OnDemandCircuitId>([...wanted, ...(await availableOnDemandCircuits(ctx))])];
}

/**
 * The circuit files (CIRCUITS_PATH, or the project's own circuits built once and cached), with
 * the embedded chain's Groth16 verifiers made to match them: circuits with development keys
 * (our own trusted setup) only verify against the verifier contracts generated from those keys,
 * so on the embedded chain those are deployed (once; the chain module remembers them).
 */
async function circuitsDirectory(ctx: Context, family: CircuitFamily): Promise<string> {
  const { ensureCircuits, loadVerifierArtifact } = await import('../circuits/build.js');
  const options = { extra: await extraCircuits(ctx, family) };
  const info = await ensureCircuits(ctx, options);
  // iden3comm's proofs are verified off chain: no verifier contract to align.
  if (family === 'iden3comm') return info.dir;
  if (ctx.config.chain.rpcUrl === undefined && info.development) {
    const { DEV_VERIFIERS_NS, VERIFIER_CIRCUITS } = await import('../chain/verifiers.js');
    const { deployContracts } = await import('../chain/deployment/deployContracts.js');
    const { bytecodeHash } = await import('../chain/artifacts.js');
    const wanted: Partial<Record<(typeof VERIFIER_CIRCUITS)[number], { abi: unknown[]; bytecode: string }>> = {};
    let stale = false;
    for (const circuit of VERIFIER_CIRCUITS.filter((id) => info.circuits.some((c) => c.id === id && c.development))) {
      const artifact = await loadVerifierArtifact(ctx, circuit, options);
      wanted[circuit] = { abi: artifact.abi, bytecode: artifact.bytecode };
      const deployed = ctx.store.get<{ codeHash?: string }>(DEV_VERIFIERS_NS, circuit);
      if (deployed?.codeHash !== bytecodeHash(artifact.bytecode)) stale = true;
    }
    if (stale) {
      ctx.progress.info('deploying the Groth16 verifiers of the development circuits on the embedded chain');
      const deployed = await deployContracts(ctx, { verifiers: wanted });
      // A chain client this context made before takes the new addresses (a long-lived server's,
      // or one made before the first V3 use): a validator whose verifier changed is a new proxy,
      // and a request registered with the old one would refuse every proof.
      const { CHAIN_KEY } = await import('../chain/connection.js');
      const cached = await ctx.peek(CHAIN_KEY)?.catch(() => undefined);
      if (cached !== undefined && cached.chainId === deployed.chainId) cached.addresses = deployed.addresses;
    }
  } else if (ctx.config.chain.rpcUrl !== undefined) {
    // Another party deployed the contracts: their verifiers must be those of these circuits (an
    // auth circuit's only when this flow submits its proofs: built for another use, it is not in use here).
    const { checkVerifiersMatchCircuits } = await import('../chain/verifierMatch.js');
    const { isAuthVerifierCircuit } = await import('../chain/verifiers.js');
    const ids = info.circuits.map((c) => c.id).filter((id) => !isAuthVerifierCircuit(id) || id === familyAuthCircuit(family));
    await checkVerifiersMatchCircuits(ctx, { dir: info.dir, development: info.development, ids });
  }
  return info.dir;
}

/**
 * Refuses (ConfigError, exit 3) when the chain's verifier of an auth circuit (authV2, authV3,
 * authV3-8-32: behind the UniversalVerifier's auth method of that name) does not hold the
 * verification key of that circuit in use, or the method is missing: every such auth proof would
 * be refused by the contract.
 */
export async function requireAuthVerifier(ctx: Context, circuit: AuthVerifierCircuit): Promise<void> {
  const { ensureCircuits } = await import('../circuits/build.js');
  const { checkVerifiersMatchCircuits } = await import('../chain/verifierMatch.js');
  const info = await ensureCircuits(ctx, { extra: await extraCircuits(ctx, authCircuitFamily(circuit)) });
  await checkVerifiersMatchCircuits(ctx, { dir: info.dir, development: info.development, ids: info.circuits.map((c) => c.id) }, [circuit]);
}

const CIRCUITS_DIR_KEYS: Record<CircuitFamily, ServiceKey<string>> = {
  mtp: CIRCUITS_DIR_KEY,
  v3: new ServiceKey<string>('iden3.circuitsDir.v3'),
  v3auth: new ServiceKey<string>('iden3.circuitsDir.v3auth'),
  v3authV3: new ServiceKey<string>('iden3.circuitsDir.v3authV3'),
  'v3authV3-8-32': new ServiceKey<string>('iden3.circuitsDir.v3authV3-8-32'),
  iden3comm: new ServiceKey<string>('iden3.circuitsDir.iden3comm'),
};
const PROVER_KEYS: Record<CircuitFamily, ServiceKey<Iden3Prover>> = {
  mtp: PROVER_KEY,
  v3: new ServiceKey<Iden3Prover>('iden3.prover.v3'),
  v3auth: new ServiceKey<Iden3Prover>('iden3.prover.v3auth'),
  v3authV3: new ServiceKey<Iden3Prover>('iden3.prover.v3authV3'),
  'v3authV3-8-32': new ServiceKey<Iden3Prover>('iden3.prover.v3authV3-8-32'),
  iden3comm: new ServiceKey<Iden3Prover>('iden3.prover.iden3comm'),
};

/**
 * The circuit directory, with the embedded chain's verifiers aligned to it (once per Context).
 * Proof-by-query operations call this before they first touch the chain, so requests are
 * registered with the validator that will verify proofs of these circuits.
 */
export function proofCircuitsDir(ctx: Context, family: CircuitFamily = 'mtp'): Promise<string> {
  return ctx.lazy(CIRCUITS_DIR_KEYS[family], () => circuitsDirectory(ctx, family));
}

/** The proof service of this Context (needs the circuit files; builds them on first use). */
export function getIden3Prover(ctx: Context, family: CircuitFamily = 'mtp'): Promise<Iden3Prover> {
  return ctx.lazy(PROVER_KEYS[family], async () => {
    const iden3 = await getIden3(ctx);
    const { sdk } = iden3.modules;
    const circuitsDir = await proofCircuitsDir(ctx, family);
    const circuitStorage = new sdk.FSCircuitStorage({ dirname: circuitsDir });
    const prover = new TimedProver(circuitStorage, iden3.modules, () => proverOffload(ctx), circuitsDir, () => selectProver(ctx));
    const proofService = new sdk.ProofService(iden3.identityWallet, iden3.credentialWallet, circuitStorage, iden3.states, {
      prover,
      documentLoader: iden3.documents.loader() as never,
      hasher: iden3.hasher,
    });
    authAtChainState(ctx, iden3, proofService);
    return { proofService, prover, circuitsDir };
  });
}

/** The part of the js-sdk's input generator (ProofService._inputsGenerator) that prepares the holder's auth claim. */
interface AuthInputsGenerator {
  prepareAuthBJJCredential(did: DID, treeState?: TreeState): Promise<{ credential: W3CCredential; incProof: { proof: Proof; treeState: TreeState }; nonRevProof: { proof: Proof; treeState: TreeState }; coreClaim: unknown }>;
}

/**
 * The holder's auth claim proved at the state the State contract holds for the holder.
 *
 * js-sdk 1.45's on-chain query inputs (credentialAtomicQueryV3OnChain, MTPV2OnChain, SigV2OnChain)
 * take the holder's state and the auth claim's inclusion proof from the auth credential's own
 * Iden3SparseMerkleTreeProof, written at genesis, while the non-revocation proof and the GIST proof
 * are current: once the holder's identity has published a state (it issued a credential), the
 * circuit gets the genesis state and a GIST proof of another state, and refuses ("Assert Failed",
 * the GIST check of lib/authV3.circom). The auth claim prepared here carries, in that credential's
 * place, a copy whose Iden3SparseMerkleTreeProof is the inclusion proof at the state on chain (the
 * genesis state while the identity has published none), and the non-revocation proof is made at the
 * same state. An identity whose tree states this wallet does not record keeps the js-sdk's choice;
 * a state on chain this wallet never published is refused with the reason.
 */
function authAtChainState(ctx: Context, iden3: Iden3, proofService: ProofService): void {
  const { sdk, core, mt } = iden3.modules;
  const generator = (proofService as unknown as { _inputsGenerator: AuthInputsGenerator })._inputsGenerator;
  const prepare = generator.prepareAuthBJJCredential.bind(generator);
  generator.prepareAuthBJJCredential = async (did, treeState) => {
    const state = treeState ?? (await chainTreeState(ctx, iden3, did));
    const prepared = await prepare(did, state);
    const smt = prepared.credential.getIden3SparseMerkleTreeProof();
    if (state === undefined || smt === undefined) return prepared;
    const atState = new sdk.Iden3SparseMerkleTreeProof({
      issuerData: { ...smt.issuerData, state: { ...smt.issuerData.state, value: state.state, claimsTreeRoot: state.claimsRoot, revocationTreeRoot: state.revocationRoot, rootOfRoots: state.rootOfRoots } },
      mtp: prepared.incProof.proof,
      coreClaim: smt.coreClaim,
    });
    const proofs = Array.isArray(prepared.credential.proof) ? prepared.credential.proof : [prepared.credential.proof];
    const credential = Object.assign(new sdk.W3CCredential(), prepared.credential, { proof: proofs.map((proof) => (proof === smt ? atState : proof)) });
    return { ...prepared, credential };
  };

  async function chainTreeState(ctx: Context, iden3: Iden3, did: DID): Promise<TreeState | undefined> {
    const gist = await iden3.states.getGISTProof(core.DID.idFromDID(did).bigInt());
    // An identity this wallet does not hold (a js-sdk wallet's DID given to vc?) keeps the js-sdk's choice.
    const records = treeStateRecords(ctx.store, did.string());
    if (records.length === 0) return undefined;
    // A publication whose transaction landed is recorded once its receipt is read (and the embedded
    // node's state saved): until then the state on chain is the one its journal names. A state
    // the wallet never published is refused with the reason (ConflictError), not proved against.
    const pending = ctx.store.get<{ newState?: KnownTreeState }>(PENDING_PUBLICATIONS_NS, did.string())?.newState;
    const known = knownTreeState(ctx.store, did.string(), gist.existence ? mt.Hash.fromBigInt(gist.value).hex() : undefined, pending, records);
    return { state: mt.Hash.fromHex(known.state), claimsRoot: mt.Hash.fromHex(known.claimsRoot), revocationRoot: mt.Hash.fromHex(known.revocationRoot), rootOfRoots: mt.Hash.fromHex(known.rootOfRoots) };
  }
}

const AUTH_PROVER_KEYS = new Map<string, ServiceKey<{ prover: TimedProver; circuitsDir: string }>>();

/**
 * vc's prover of an authV3 circuit (authV3 or authV3-8-32: iden3comm JWZ answers whose request
 * accepts no authV2), on a circuit set holding it, built on first use (once per Context).
 */
export function getAuthV3Prover(ctx: Context, circuitId: 'authV3' | 'authV3-8-32'): Promise<{ prover: TimedProver; circuitsDir: string }> {
  let key = AUTH_PROVER_KEYS.get(circuitId);
  if (key === undefined) {
    key = new ServiceKey(`iden3.prover.${circuitId}`);
    AUTH_PROVER_KEYS.set(circuitId, key);
  }
  return ctx.lazy(key, async () => {
    const iden3 = await getIden3(ctx);
    const { ensureCircuits } = await import('../circuits/build.js');
    const circuitsDir = (await ensureCircuits(ctx, { extra: [circuitId] })).dir;
    const circuitStorage = new iden3.modules.sdk.FSCircuitStorage({ dirname: circuitsDir });
    return { prover: new TimedProver(circuitStorage, iden3.modules, () => proverOffload(ctx), circuitsDir, () => selectProver(ctx)), circuitsDir };
  });
}
