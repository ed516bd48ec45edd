/**
 * The address book: what is deployed on each chain (store namespace 'chain.addressBook', key =
 * chain id), and the addresses the rest of `vc` uses. Plain records and store reads only; the
 * deployment (./deployment/) writes it.
 */
import type { Context } from '../context.js';
import { NetworkError } from '../errors.js';
import type { VerifierCircuit, VerifierRecord } from './verifiers.js';

/** Store namespace of the address books (key: chain id). */
export const ADDRESS_BOOK_NS = 'chain.addressBook';

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
  'authV2VerifierImplementation',
  'authV2Verifier',
  'authV2ValidatorImplementation',
  'authV2Validator',
  'v3SmallVerifier',
  'v3Verifier',
  'v3ValidatorImplementation',
  'v3Validator',
  'ethIdentityValidatorImplementation',
  'ethIdentityValidator',
  'authV3VerifierImplementation',
  'authV3Verifier',
  'authV3ValidatorImplementation',
  'authV3Validator',
  'authV3_8_32VerifierImplementation',
  'authV3_8_32Verifier',
  'authV3_8_32ValidatorImplementation',
  'authV3_8_32Validator',
] as const;
export type ContractKey = (typeof CONTRACT_KEYS)[number];
/** Contracts deployed behind a proxy: those with a `<key>Implementation` step. */
export type ProxiedContractKey = { [K in ContractKey]: `${K}Implementation` extends ContractKey ? K : never }[ContractKey];

export interface DeployedContract {
  address: string;
  /** Hash of the creation data (or of the parts that define a proxy's identity). */
  fingerprint: string;
  txHash: string;
  blockNumber: number;
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
  /**
   * Deployment transactions signed and not yet seen mined, by step: recorded before they are
   * broadcast, so a run killed before it saw one mined is followed by one that takes the contract
   * the chain mined instead of deploying it again (or deploys it, when the chain never got it).
   */
  pendingDeployments?: Partial<Record<ContractKey, { txHash: string; fingerprint: string }>>;
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
  /** CredentialAtomicQueryV3StableValidator, when deployed by `vc` (V3 requests). */
  v3Validator: string | undefined;
  /** Every known contract by key (only what the address book holds, for external chains). */
  all: Partial<Record<ContractKey, string>>;
  /** Where the addresses come from. */
  source: 'deployment' | 'config';
}

/** The recorded address book of a chain, if any. */
export function readAddressBook(ctx: Context, chainId = ctx.config.chain.chainId): AddressBook | undefined {
  return ctx.store.get<AddressBook>(ADDRESS_BOOK_NS, String(chainId));
}

/** Records an address book (its updatedAt set to now). */
export function saveAddressBook(ctx: Context, book: AddressBook): void {
  book.updatedAt = ctx.now().toISOString();
  ctx.store.put(ADDRESS_BOOK_NS, String(book.chainId), book);
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
    v3Validator: all.v3Validator,
    all,
    source: 'deployment',
  };
}
