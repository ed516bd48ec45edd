/**
 * Idempotent deployment of the real iden3 contracts (from @iden3/contracts' compiled artifacts)
 * and the address book that records them per chain id (store namespace 'chain.addressBook').
 *
 * Every contract is a step whose fingerprint is a hash of its exact creation data (bytecode with
 * linked library addresses and constructor arguments). A step is skipped when the recorded
 * contract has that fingerprint and still has code on chain; otherwise it is (re)deployed, and
 * since dependants embed its address, they are redeployed too. Progress is recorded after every
 * step, so an interrupted deployment resumes where it stopped.
 *
 * Upgradeable contracts are deployed as iden3 does: implementation + OpenZeppelin 5
 * TransparentUpgradeableProxy (which creates its ProxyAdmin owned by the deployer) initialised
 * in the proxy constructor. The State proxy keeps its address (and its identity states) when only
 * its state-transition verifier changes: the verifier is swapped with State.setVerifier.
 *
 * The Groth16 verifiers are pluggable: the official ones shipped in @iden3/contracts by default,
 * or "dev" verifiers produced by our circuit build (snarkjs Solidity compiled with solc).
 */
import type { InterfaceAbi } from 'ethers';
import { DEV_CHAIN_IDS } from '../config/parse.js';
import type { Context } from '../context.js';
import { ConfigError, InputError, NetworkError, describeError } from '../errors.js';
import { checkpointLocalChain } from './anvil.js';
import {
  type Artifact,
  bytecodeHash,
  checkBytecode,
  iden3Artifact,
  iden3ContractsVersion,
  linkBytecode,
  openZeppelinArtifact,
  poseidonLibrary,
  requiredLibraries,
} from './artifacts.js';
import { connectChain, type ChainConnection } from './client.js';
import { DID_METHOD, didTypeFor } from './didType.js';
import { jsonRpcBatch } from './jsonRpc.js';
import { readContract, sendContractTransaction, sendTransaction } from './transactions.js';

/** Store namespace of the address books (key: chain id). */
export const ADDRESS_BOOK_NS = 'chain.addressBook';
/** Store namespace of the dev verifier artifacts provided by the circuit build (key: circuit). */
export const DEV_VERIFIERS_NS = 'chain.verifiers';
/** The auth method of the UniversalVerifier whose user id comes from the query proof itself. */
export const EMBEDDED_AUTH_METHOD = 'embeddedAuth';
/** The auth method verified by a separate authV2 proof. */
export const AUTH_V2_METHOD = 'authV2';

/** Circuits whose Groth16 verifier contract is pluggable. */
export type VerifierCircuit = 'stateTransition' | 'credentialAtomicQueryMTPV2OnChain';
export const VERIFIER_CIRCUITS: readonly VerifierCircuit[] = ['stateTransition', 'credentialAtomicQueryMTPV2OnChain'];

/** A compiled Groth16 verifier contract. */
export interface VerifierArtifact {
  abi: unknown[];
  bytecode: string;
}

/** Official verifier artifacts of @iden3/contracts, and the function each must expose. */
const OFFICIAL_VERIFIERS: Record<VerifierCircuit, { artifact: string; requiredFunction: string; why: string }> = {
  stateTransition: {
    artifact: 'Groth16VerifierStateTransition',
    requiredFunction: 'verifyProof(uint256[2],uint256[2][2],uint256[2],uint256[4])',
    why: 'the State contract calls IStateTransitionVerifier.verifyProof with 4 public signals',
  },
  credentialAtomicQueryMTPV2OnChain: {
    artifact: 'Groth16VerifierMTPWrapper',
    requiredFunction: 'verify(uint256[2],uint256[2][2],uint256[2],uint256[])',
    why: 'the MTP validator calls IGroth16Verifier.verify; compile the snarkjs verifier with a wrapper like Groth16VerifierMTPWrapper (11 signals)',
  },
};

/** The @iden3/contracts artifact of the official verifier of a circuit. */
export function officialVerifierArtifactName(circuit: VerifierCircuit): string {
  return OFFICIAL_VERIFIERS[circuit].artifact;
}

/** Every contract the deployment creates, by key. */
export const CONTRACT_KEYS = [
  'poseidon1',
  'poseidon2',
  'poseidon3',
  'poseidon4',
  'poseidon5',
  'poseidon6',
  'spongePoseidon',
  'poseidonFacade',
  'smtLib',
  'stateLib',
  'stateTransitionVerifier',
  'stateImplementation',
  'state',
  'verifierLib',
  'universalVerifierImplementation',
  'universalVerifier',
  'mtpVerifier',
  'mtpValidatorImplementation',
  'mtpValidator',
  'identityTreeStoreImplementation',
  'identityTreeStore',
  'authV2Verifier',
  'authV2ValidatorImplementation',
  'authV2Validator',
] as const;
export type ContractKey = (typeof CONTRACT_KEYS)[number];
/** Contracts deployed behind a proxy: those with a `<key>Implementation` step. */
type ProxiedContractKey = { [K in ContractKey]: `${K}Implementation` extends ContractKey ? K : never }[ContractKey];

export interface DeployedContract {
  address: string;
  /** Hash of the creation data (or of the parts that define a proxy's identity). */
  fingerprint: string;
  txHash: string;
  blockNumber: number;
}

export interface VerifierRecord {
  source: 'official' | 'dev';
  /** sha256 of the creation bytecode. */
  codeHash: string;
  /** Artifact name for official verifiers. */
  artifact: string | undefined;
}

/** What is deployed on one chain (store namespace 'chain.addressBook', key = chain id). */
export interface AddressBook {
  chainId: number;
  embedded: boolean;
  deployer: string;
  contractsPackage: string;
  /** The State contract's default id type (bytes2 hex). */
  defaultIdType: string;
  /** The DID network it was computed for (method:blockchain:network). */
  didNetwork: string;
  verifiers: Partial<Record<VerifierCircuit, VerifierRecord>>;
  contracts: Partial<Record<ContractKey, DeployedContract>>;
  /** True once every step and every configuration call succeeded. */
  complete: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The addresses the rest of `vc` uses. */
export interface ChainAddresses {
  /** State contract (STATE_CONTRACT_ADDRESS). */
  state: string;
  /** UniversalVerifier (BSC_ADDRESS). */
  universalVerifier: string;
  /** CredentialAtomicQueryMTPV2Validator (MTP_ADDRESS). */
  mtpValidator: string;
  /** PoseidonFacade hashing contract (POSEIDON_ADDRESS). */
  poseidon: string | undefined;
  /** IdentityTreeStore (on-chain reverse hash service), when deployed by `vc`. */
  identityTreeStore: string | undefined;
  /** Every known contract by key (only what the address book holds, for external chains). */
  all: Partial<Record<ContractKey, string>>;
  /** Where the addresses come from. */
  source: 'deployment' | 'config';
}

export interface DeployOptions {
  /** Dev verifiers to deploy instead of the official ones (remembered for later deployments). */
  verifiers?: Partial<Record<VerifierCircuit, VerifierArtifact>>;
  /** Forget remembered dev verifiers and deploy the official ones again. */
  officialVerifiers?: boolean;
  /** Redeploy every contract even when the recorded ones are intact. */
  force?: boolean;
  /** Allow dev verifiers on a chain that is not a development chain. */
  allowDevVerifiers?: boolean;
}

export interface DeployResult {
  chainId: number;
  rpcUrl: string;
  embedded: boolean;
  addresses: ChainAddresses;
  book: AddressBook;
  /** Contracts deployed by this call. */
  deployed: ContractKey[];
  /** Configuration transactions sent by this call (setVerifier, whitelisting...). */
  configured: string[];
  durationMs: number;
}

interface StoredDevVerifier extends VerifierArtifact {
  codeHash: string;
  savedAt: string;
}

interface ResolvedVerifier {
  circuit: VerifierCircuit;
  record: VerifierRecord;
  artifact: Artifact;
}

const LIBRARY_KEYS: Record<string, ContractKey> = {
  PoseidonUnit1L: 'poseidon1',
  PoseidonUnit2L: 'poseidon2',
  PoseidonUnit3L: 'poseidon3',
  PoseidonUnit4L: 'poseidon4',
  PoseidonUnit5L: 'poseidon5',
  PoseidonUnit6L: 'poseidon6',
  SpongePoseidon: 'spongePoseidon',
  SmtLib: 'smtLib',
  StateLib: 'stateLib',
  VerifierLib: 'verifierLib',
};

function didNetworkKey(ctx: Context): string {
  return `${DID_METHOD}:${ctx.config.chain.didBlockchain}:${ctx.config.chain.didNetwork}`;
}

/** Whether dev (non-ceremony) verifiers are acceptable on this chain. */
export function isDevChain(chainId: number, embedded: boolean): boolean {
  return embedded || DEV_CHAIN_IDS.includes(chainId);
}

/** The recorded address book of a chain, if any. */
export function readAddressBook(ctx: Context, chainId = ctx.config.chain.chainId): AddressBook | undefined {
  return ctx.store.get<AddressBook>(ADDRESS_BOOK_NS, String(chainId));
}

/** The public addresses of a (complete) address book. */
export function addressesOf(book: AddressBook): ChainAddresses {
  const all: Partial<Record<ContractKey, string>> = {};
  for (const key of CONTRACT_KEYS) {
    const entry = book.contracts[key];
    if (entry !== undefined) all[key] = entry.address;
  }
  const need = (key: ContractKey): string => {
    const address = all[key];
    if (address === undefined) throw new NetworkError(`the address book of chain ${book.chainId} has no ${key} contract; run \`vc chain deploy\``);
    return address;
  };
  return {
    state: need('state'),
    universalVerifier: need('universalVerifier'),
    mtpValidator: need('mtpValidator'),
    poseidon: all.poseidonFacade,
    identityTreeStore: all.identityTreeStore,
    all,
    source: 'deployment',
  };
}

/** Validates a dev verifier against the interface its caller contract uses. */
function validateDevVerifier(ethers: typeof import('ethers'), circuit: VerifierCircuit, verifier: VerifierArtifact): VerifierArtifact {
  const field = `verifiers.${circuit}`;
  if (!Array.isArray(verifier.abi)) throw new InputError(`${field}: abi must be an array`, { field });
  const bytecode = checkBytecode(verifier.bytecode, `${field}.bytecode`);
  let iface: import('ethers').Interface;
  try {
    iface = ethers.Interface.from(verifier.abi as InterfaceAbi);
  } catch (error) {
    throw new InputError(`${field}: abi is not a valid contract ABI (${describeError(error)})`, { field });
  }
  const { requiredFunction, why } = OFFICIAL_VERIFIERS[circuit];
  if (iface.getFunction(requiredFunction) === null) {
    throw new InputError(`${field}: the contract must expose ${requiredFunction} (${why})`, { field });
  }
  return { abi: verifier.abi, bytecode };
}

/**
 * Chooses each verifier: provided now, remembered dev one, or official. `remember` saves the
 * choice for later deployments (called once the choice is accepted for this chain).
 */
async function resolveVerifiers(
  ctx: Context,
  options: DeployOptions,
): Promise<{ verifiers: Record<VerifierCircuit, ResolvedVerifier>; remember: () => void }> {
  const ethers = await import('ethers');
  const result = {} as Record<VerifierCircuit, ResolvedVerifier>;
  const writes: Array<() => void> = [];
  for (const circuit of VERIFIER_CIRCUITS) {
    const provided = options.verifiers?.[circuit];
    let dev = ctx.store.get<StoredDevVerifier>(DEV_VERIFIERS_NS, circuit);
    if (provided !== undefined) {
      const valid = validateDevVerifier(ethers, circuit, provided);
      const stored: StoredDevVerifier = { ...valid, codeHash: bytecodeHash(valid.bytecode), savedAt: ctx.now().toISOString() };
      writes.push(() => ctx.store.put(DEV_VERIFIERS_NS, circuit, stored));
      dev = stored;
    } else if (options.officialVerifiers === true) {
      writes.push(() => ctx.store.delete(DEV_VERIFIERS_NS, circuit));
      dev = undefined;
    }
    if (dev !== undefined) {
      result[circuit] = {
        circuit,
        record: { source: 'dev', codeHash: dev.codeHash, artifact: undefined },
        artifact: { contractName: `dev ${circuit} verifier`, abi: dev.abi, bytecode: dev.bytecode, linkReferences: {} },
      };
    } else {
      const name = OFFICIAL_VERIFIERS[circuit].artifact;
      const artifact = iden3Artifact(name);
      result[circuit] = { circuit, record: { source: 'official', codeHash: bytecodeHash(artifact.bytecode), artifact: name }, artifact };
    }
  }
  return { verifiers: result, remember: () => writes.forEach((write) => write()) };
}

interface StepPlan {
  key: ContractKey;
  label: string;
  /** Creation data: linked bytecode + encoded constructor arguments. */
  data: string;
  /** What identifies this contract; defaults to a hash of `data`. */
  fingerprint: string;
}

class Deployment {
  readonly deployed: ContractKey[] = [];
  readonly configured: string[] = [];
  private done = 0;

  constructor(
    private readonly ctx: Context,
    private readonly connection: ChainConnection,
    private readonly ethers: typeof import('ethers'),
    readonly book: AddressBook,
    private readonly onProgress: (label: string, fraction: number) => void,
    private readonly totalSteps: number,
  ) {}

  address(key: ContractKey): string {
    const entry = this.book.contracts[key];
    if (entry === undefined) throw new Error(`internal: ${key} used before it was deployed`);
    return entry.address;
  }

  link(artifact: Artifact): string {
    const libraries: Record<string, string> = {};
    for (const library of requiredLibraries(artifact)) {
      const key = LIBRARY_KEYS[library];
      if (key === undefined) throw new Error(`internal: no deployment step provides library ${library}`);
      libraries[library] = this.address(key);
    }
    return linkBytecode(artifact, libraries);
  }

  plan(key: ContractKey, label: string, bytecode: string, constructorTypes: string[] = [], constructorArgs: unknown[] = [], fingerprintParts?: unknown[]): StepPlan {
    const args = constructorTypes.length === 0 ? '' : this.ethers.AbiCoder.defaultAbiCoder().encode(constructorTypes, constructorArgs).slice(2);
    const data = `${bytecode}${args}`;
    const fingerprint = fingerprintParts === undefined ? bytecodeHash(data) : bytecodeHash(this.ethers.id(JSON.stringify(fingerprintParts)));
    return { key, label, data, fingerprint };
  }

  /** Deploys a planned contract unless an identical one is recorded (the caller checked its code). */
  async run(step: StepPlan): Promise<string> {
    this.onProgress(step.label, this.done / this.totalSteps);
    const existing = this.book.contracts[step.key];
    if (existing === undefined || existing.fingerprint !== step.fingerprint) {
      const sent = await sendTransaction(this.ctx, { data: step.data }, { description: `deploying ${step.label}`, checkpoint: false });
      if (sent.contractAddress === undefined) throw new NetworkError(`deploying ${step.label}: the receipt has no contract address (tx ${sent.hash})`);
      this.book.contracts[step.key] = { address: sent.contractAddress, fingerprint: step.fingerprint, txHash: sent.hash, blockNumber: sent.blockNumber };
      this.deployed.push(step.key);
      this.save();
    }
    this.done++;
    return this.address(step.key);
  }

  /** A transparent proxy of `implementation`, initialised by `initData` in its constructor. */
  proxy(key: ContractKey, label: string, implementation: string, initData: string, fingerprintParts?: unknown[]): StepPlan {
    const proxy = openZeppelinArtifact('TransparentUpgradeableProxy');
    const owner = this.connection.signer.address;
    return this.plan(key, label, proxy.bytecode, ['address', 'address', 'bytes'], [implementation, owner, initData], fingerprintParts);
  }

  /**
   * Deploys the linked implementation of an @iden3/contracts artifact (step `<key>Implementation`)
   * and a transparent proxy initialised with `initialize(...initArgs)` (step `key`); returns the
   * proxy address.
   */
  async behindProxy(key: ProxiedContractKey, artifactName: string, initArgs: unknown[]): Promise<string> {
    const artifact = iden3Artifact(artifactName);
    const implementationKey: ContractKey = `${key}Implementation`;
    const implementation = await this.run(this.plan(implementationKey, `${artifactName} implementation`, this.link(artifact)));
    return this.run(this.proxy(key, `${artifactName} proxy`, implementation, this.encode(artifact, 'initialize', initArgs)));
  }

  encode(artifact: Artifact, method: string, args: unknown[]): string {
    return this.ethers.Interface.from(artifact.abi as InterfaceAbi).encodeFunctionData(method, args);
  }

  async configure(label: string, address: string, artifact: Artifact, method: string, args: unknown[]): Promise<void> {
    await sendContractTransaction(this.ctx, { address, abi: artifact.abi as InterfaceAbi, method, args }, { description: label, checkpoint: false });
    this.configured.push(label);
  }

  async read<T>(address: string, artifact: Artifact, method: string, args: unknown[] = []): Promise<T> {
    return readContract<T>(this.ctx, { address, abi: artifact.abi as InterfaceAbi, method, args }, `reading ${artifact.contractName}.${method}`);
  }

  save(): void {
    this.book.updatedAt = this.ctx.now().toISOString();
    this.ctx.store.put(ADDRESS_BOOK_NS, String(this.book.chainId), this.book);
  }
}

/** Returns the keys of recorded contracts that have no code on chain (lost chain state). */
async function missingContracts(connection: ChainConnection, book: AddressBook): Promise<ContractKey[]> {
  const entries = CONTRACT_KEYS.flatMap((key) => (book.contracts[key] === undefined ? [] : [[key, book.contracts[key]!.address] as const]));
  try {
    // One raw JSON-RPC batch: ethers takes ~10x longer to fetch and normalise 20 bytecodes.
    const codes = /^https?:/i.test(connection.rpcUrl)
      ? await jsonRpcBatch<string>(connection.rpcUrl, entries.map(([, address]) => ({ method: 'eth_getCode', params: [address, 'latest'] })))
      : await Promise.all(entries.map(([, address]) => connection.provider.getCode(address)));
    return entries.filter((_, i) => codes[i] === '0x').map(([key]) => key);
  } catch (error) {
    throw new NetworkError(`cannot read contract code from ${connection.rpcUrl}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Deploys (or completes, or updates) the iden3 contracts on the configured chain and records
 * them in the address book. Safe to run again: intact contracts are kept.
 */
export async function deployContracts(ctx: Context, options: DeployOptions = {}): Promise<DeployResult> {
  const started = Date.now();
  const connection = await connectChain(ctx);
  const ethers = await import('ethers');
  return ctx.store.withLock(`chain-deploy-${connection.chainId}`, async () => {
    const { verifiers, remember } = await resolveVerifiers(ctx, options);
    const devOnes = VERIFIER_CIRCUITS.filter((c) => verifiers[c].record.source === 'dev');
    if (devOnes.length > 0 && !isDevChain(connection.chainId, connection.embedded) && options.allowDevVerifiers !== true) {
      throw new ConfigError(
        `refusing to deploy dev Groth16 verifiers (${devOnes.join(', ')}: our own trusted setup, not a ceremony) on chain ${connection.chainId}, which is not a development chain; ` +
          'pass --allow-dev-verifiers to do it anyway, or --official-verifiers',
        { field: 'CHAIN_ID' },
      );
    }
    remember();
    const didType = await didTypeFor(ctx.config);
    const now = ctx.now().toISOString();
    const previous = options.force === true ? undefined : readAddressBook(ctx, connection.chainId);
    const book: AddressBook = previous ?? {
      chainId: connection.chainId,
      embedded: connection.embedded,
      deployer: connection.signer.address,
      contractsPackage: `@iden3/contracts@${iden3ContractsVersion()}`,
      defaultIdType: didType.hex,
      didNetwork: didNetworkKey(ctx),
      verifiers: {},
      contracts: {},
      complete: false,
      createdAt: now,
      updatedAt: now,
    };
    book.complete = false;
    book.embedded = connection.embedded;
    for (const key of await missingContracts(connection, book)) delete book.contracts[key];

    const step = ctx.progress.start(`deploying the iden3 contracts on chain ${connection.chainId}`);
    const totalSteps = CONTRACT_KEYS.length;
    const deployment = new Deployment(ctx, connection, ethers, book, (label, fraction) => step.update(`deploying ${label}`, fraction), totalSteps);
    try {
      // Poseidon hash libraries (bytecode generated by circomlibjs) and the libraries linking them.
      for (let inputs = 1; inputs <= 6; inputs++) {
        const lib = await poseidonLibrary(inputs);
        await deployment.run(deployment.plan(`poseidon${inputs}` as ContractKey, `PoseidonUnit${inputs}L`, lib.bytecode));
      }
      const sponge = iden3Artifact('SpongePoseidon');
      await deployment.run(deployment.plan('spongePoseidon', 'SpongePoseidon', deployment.link(sponge)));
      const facade = iden3Artifact('PoseidonFacade');
      await deployment.run(deployment.plan('poseidonFacade', 'PoseidonFacade', deployment.link(facade)));
      const smtLib = iden3Artifact('SmtLib');
      await deployment.run(deployment.plan('smtLib', 'SmtLib', deployment.link(smtLib)));
      await deployment.run(deployment.plan('stateLib', 'StateLib', deployment.link(iden3Artifact('StateLib'))));

      // State, behind a transparent proxy, with its state-transition verifier.
      const stVerifier = verifiers.stateTransition;
      const stVerifierAddress = await deployment.run(
        deployment.plan('stateTransitionVerifier', `${stVerifier.record.source} state-transition verifier`, stVerifier.artifact.bytecode),
      );
      const state = iden3Artifact('State');
      const stateImplementation = await deployment.run(deployment.plan('stateImplementation', 'State implementation', deployment.link(state)));
      const owner = connection.signer.address;
      // The cross-chain proof validator is left unset: no oracle signs global states on a local chain,
      // and State.processCrossChainProofs returns early for the empty proofs `vc` submits.
      const stateInit = deployment.encode(state, 'initialize', [stVerifierAddress, didType.hex, owner, ethers.ZeroAddress]);
      const stateAddress = await deployment.run(
        // Identity of the State proxy: implementation and owner only, so a verifier or id type
        // change is applied in place (below) instead of losing every identity state.
        deployment.proxy('state', 'State proxy', stateImplementation, stateInit, ['State', stateImplementation, owner]),
      );

      // UniversalVerifier, behind a transparent proxy.
      await deployment.run(deployment.plan('verifierLib', 'VerifierLib', deployment.link(iden3Artifact('VerifierLib'))));
      const universal = iden3Artifact('UniversalVerifier');
      const universalAddress = await deployment.behindProxy('universalVerifier', 'UniversalVerifier', [stateAddress, owner]);

      // The MTP v2 query validator with its Groth16 verifier.
      const mtpVerifier = verifiers.credentialAtomicQueryMTPV2OnChain;
      const mtpVerifierAddress = await deployment.run(
        deployment.plan('mtpVerifier', `${mtpVerifier.record.source} MTP query verifier`, mtpVerifier.artifact.bytecode),
      );
      const validatorAddress = await deployment.behindProxy('mtpValidator', 'CredentialAtomicQueryMTPV2Validator', [stateAddress, mtpVerifierAddress, owner]);

      // IdentityTreeStore: the on-chain reverse hash service (for RHS_URL-less setups using it).
      await deployment.behindProxy('identityTreeStore', 'IdentityTreeStore', [stateAddress]);

      // AuthV2Validator (official verifier): the 'authV2' auth method of the UniversalVerifier,
      // for clients that authenticate with a separate auth proof instead of embeddedAuth.
      const authVerifierAddress = await deployment.run(
        deployment.plan('authV2Verifier', 'official authV2 verifier', iden3Artifact('Groth16VerifierAuthV2Wrapper').bytecode),
      );
      const authValidatorAddress = await deployment.behindProxy('authV2Validator', 'AuthV2Validator', [stateAddress, authVerifierAddress, owner]);

      // Configuration, checked and applied idempotently.
      step.update('configuring the contracts', 0.97);
      const currentVerifier = await deployment.read<string>(stateAddress, state, 'getVerifier');
      if (currentVerifier.toLowerCase() !== stVerifierAddress.toLowerCase()) {
        await deployment.configure('State.setVerifier (state-transition verifier changed)', stateAddress, state, 'setVerifier', [stVerifierAddress]);
      }
      const currentIdType = await deployment.read<string>(stateAddress, state, 'getDefaultIdType');
      if (currentIdType.toLowerCase() !== didType.hex.toLowerCase()) {
        await deployment.configure(`State.setDefaultIdType(${didType.hex})`, stateAddress, state, 'setDefaultIdType', [didType.hex]);
      }
      if (!(await deployment.read<boolean>(universalAddress, universal, 'authMethodExists', [AUTH_V2_METHOD]))) {
        await deployment.configure(`UniversalVerifier.setAuthMethod(${AUTH_V2_METHOD})`, universalAddress, universal, 'setAuthMethod', [
          { authMethod: AUTH_V2_METHOD, validator: authValidatorAddress, params: '0x' },
        ]);
      }
      if (!(await deployment.read<boolean>(universalAddress, universal, 'authMethodExists', [EMBEDDED_AUTH_METHOD]))) {
        // embeddedAuth takes the user id from the query proof itself, so submitResponse never calls
        // its validator; but VerifierLib.authMethodExists treats a zero validator as "absent" (and
        // would let it be added again and again), so it gets the AuthV2Validator as a placeholder.
        await deployment.configure(`UniversalVerifier.setAuthMethod(${EMBEDDED_AUTH_METHOD})`, universalAddress, universal, 'setAuthMethod', [
          { authMethod: EMBEDDED_AUTH_METHOD, validator: authValidatorAddress, params: '0x' },
        ]);
      }
      if (!(await deployment.read<boolean>(universalAddress, universal, 'isWhitelistedValidator', [validatorAddress]))) {
        await deployment.configure('UniversalVerifier.addValidatorToWhitelist(MTP validator)', universalAddress, universal, 'addValidatorToWhitelist', [
          validatorAddress,
        ]);
      }

      book.defaultIdType = didType.hex;
      book.didNetwork = didNetworkKey(ctx);
      book.verifiers = { stateTransition: stVerifier.record, credentialAtomicQueryMTPV2OnChain: mtpVerifier.record };
      book.deployer = owner;
      book.complete = true;
      deployment.save();
      if (connection.embedded) await checkpointLocalChain(ctx);
      step.succeed(
        deployment.deployed.length === 0 && deployment.configured.length === 0
          ? `iden3 contracts already deployed on chain ${connection.chainId}`
          : `deployed ${deployment.deployed.length} contracts on chain ${connection.chainId}`,
      );
    } catch (error) {
      step.fail(`deployment on chain ${connection.chainId} failed`);
      // Keep what was deployed: the next run resumes from there.
      deployment.save();
      throw error;
    }
    return {
      chainId: connection.chainId,
      rpcUrl: connection.rpcUrl,
      embedded: connection.embedded,
      addresses: addressesOf(book),
      book,
      deployed: deployment.deployed,
      configured: deployment.configured,
      durationMs: Date.now() - started,
    };
  });
}

/** True when the recorded deployment is complete, current and still on chain. */
async function isDeploymentCurrent(ctx: Context, connection: ChainConnection, book: AddressBook | undefined): Promise<boolean> {
  if (book === undefined || !book.complete) return false;
  for (const circuit of VERIFIER_CIRCUITS) {
    const dev = ctx.store.get<StoredDevVerifier>(DEV_VERIFIERS_NS, circuit);
    const expected = dev?.codeHash ?? bytecodeHash(iden3Artifact(OFFICIAL_VERIFIERS[circuit].artifact).bytecode);
    if (book.verifiers[circuit]?.codeHash !== expected) return false;
  }
  // The id type follows from the DID network alone, so js-iden3-core need not be loaded here.
  if (book.didNetwork !== didNetworkKey(ctx)) return false;
  return (await missingContracts(connection, book)).length === 0;
}

const CONFIG_ADDRESS_VARIABLES = [
  ['STATE_CONTRACT_ADDRESS', 'stateContractAddress', 'state'],
  ['BSC_ADDRESS', 'verifierAddress', 'universalVerifier'],
  ['MTP_ADDRESS', 'mtpValidatorAddress', 'mtpValidator'],
  ['POSEIDON_ADDRESS', 'poseidonAddress', 'poseidonFacade'],
] as const;

/** Addresses on an external chain: configuration first, then an earlier `vc chain deploy`. */
async function externalAddresses(ctx: Context, connection: ChainConnection): Promise<ChainAddresses> {
  const { chain } = ctx.config;
  const book = readAddressBook(ctx, connection.chainId);
  const fromBook = book?.complete === true ? addressesOf(book).all : {};
  const resolved: Partial<Record<ContractKey, string>> = { ...fromBook };
  const missing: string[] = [];
  let fromConfig = false;
  for (const [variable, field, key] of CONFIG_ADDRESS_VARIABLES) {
    const configured = chain[field];
    if (configured !== undefined) {
      resolved[key] = configured;
      fromConfig = true;
    } else if (resolved[key] === undefined && key !== 'poseidonFacade') {
      missing.push(variable);
    }
  }
  if (missing.length > 0) {
    throw new ConfigError(
      `RPC_URL points to an external chain (${connection.chainId}) but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set; ` +
        'set the contract address(es) or run `vc chain deploy` to deploy the contracts there',
      { field: missing[0]! },
    );
  }
  const checks = CONFIG_ADDRESS_VARIABLES.filter(([, , key]) => resolved[key] !== undefined);
  let codes: string[];
  try {
    codes = await Promise.all(checks.map(([, , key]) => connection.provider.getCode(resolved[key]!)));
  } catch (error) {
    throw new NetworkError(`cannot read contract code from ${connection.rpcUrl}: ${describeError(error)}`, { cause: error });
  }
  const empty = checks.filter((_, i) => codes[i] === '0x');
  if (empty.length > 0) {
    const [variable, , key] = empty[0]!;
    throw new ConfigError(`${variable}=${resolved[key]} has no contract code on chain ${connection.chainId} (${connection.rpcUrl})`, { field: variable });
  }
  return {
    state: resolved.state!,
    universalVerifier: resolved.universalVerifier!,
    mtpValidator: resolved.mtpValidator!,
    poseidon: resolved.poseidonFacade,
    identityTreeStore: resolved.identityTreeStore,
    all: resolved,
    source: fromConfig ? 'config' : 'deployment',
  };
}

/**
 * The contract addresses every chain operation uses. On the embedded chain the contracts are
 * deployed automatically the first time (and again if the chain lost them); with RPC_URL they
 * come from configuration and nothing is deployed.
 */
export async function ensureDeployed(ctx: Context): Promise<ChainAddresses> {
  const connection = await connectChain(ctx);
  if (!connection.embedded) return externalAddresses(ctx, connection);
  const book = readAddressBook(ctx, connection.chainId);
  if (await isDeploymentCurrent(ctx, connection, book)) return addressesOf(book!);
  if (book?.complete === true) ctx.progress.info(`the local chain no longer matches its address book (chain ${connection.chainId}); redeploying what is missing`);
  return (await deployContracts(ctx)).addresses;
}
