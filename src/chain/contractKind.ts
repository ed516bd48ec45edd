/**
 * Whether a contract address taken from configuration (V3_ADDRESS, IDENTITY_TREE_STORE_ADDRESS) is
 * that kind of contract. externalAddresses only checks that code is there; an address copied from
 * the wrong line of `vc chain env` (the State contract, the UniversalVerifier, the MTP validator)
 * has code too, and the first call vc makes to it reverts with nothing but "require(false)". One
 * read only that kind of contract answers as expected says so first, naming the variable; its
 * result is kept for the process (the context), so each address is read once.
 */
import { ServiceKey, type Context } from '../context.js';
import { ConfigError } from '../errors.js';
import type { ChainAddresses, ContractKey } from './addressBook.js';
import { iden3Artifact } from './artifacts.js';
import { connectChain } from './connection.js';
import { toChainError } from './transactions.js';

export type CheckedContractKind = 'v3Validator' | 'identityTreeStore';

interface KindCheck {
  variable: 'V3_ADDRESS' | 'IDENTITY_TREE_STORE_ADDRESS';
  field: 'v3ValidatorAddress' | 'identityTreeStoreAddress';
  /** The contract it must be (its @iden3/contracts artifact). */
  contract: string;
  /** The contract's name with its article, for messages. */
  aContract: string;
  /** A view function of that contract, without arguments. */
  method: string;
  /** Whether the decoded answer is that contract's. */
  accepts: (answer: unknown) => boolean;
}

const CHECKS: Record<CheckedContractKind, KindCheck> = {
  v3Validator: {
    variable: 'V3_ADDRESS',
    field: 'v3ValidatorAddress',
    contract: 'CredentialAtomicQueryV3StableValidator',
    aContract: 'a CredentialAtomicQueryV3StableValidator',
    // The MTP validator answers this too, with its own circuit: the V3 one must be among the ids.
    method: 'getSupportedCircuitIds',
    accepts: (answer) => Array.isArray(answer) && answer.some((id) => String(id).startsWith('credentialAtomicQueryV3')),
  },
  identityTreeStore: {
    variable: 'IDENTITY_TREE_STORE_ADDRESS',
    field: 'identityTreeStoreAddress',
    contract: 'IdentityTreeStore',
    aContract: 'an IdentityTreeStore',
    // A getter only the IdentityTreeStore has among the iden3 contracts.
    method: 'MAX_SMT_DEPTH',
    accepts: (answer) => typeof answer === 'bigint' && answer > 0n,
  },
};

/** What the other configured contracts are called, to say which one the address is instead. */
const CONTRACT_NAMES: Partial<Record<ContractKey, string>> = {
  state: 'the State contract (STATE_CONTRACT_ADDRESS)',
  universalVerifier: 'the UniversalVerifier (BSC_ADDRESS)',
  mtpValidator: 'the MTP validator (MTP_ADDRESS)',
  poseidonFacade: 'the PoseidonFacade (POSEIDON_ADDRESS)',
  v3Validator: 'the V3 validator (V3_ADDRESS)',
  identityTreeStore: 'the IdentityTreeStore (IDENTITY_TREE_STORE_ADDRESS)',
};

function otherContractAt(addresses: ChainAddresses, address: string, own: CheckedContractKind): string | undefined {
  for (const [key, name] of Object.entries(CONTRACT_NAMES) as Array<[ContractKey, string]>) {
    if (key !== own && addresses.all[key]?.toLowerCase() === address.toLowerCase()) return name;
  }
  return undefined;
}

async function checkKind(ctx: Context, kind: CheckedContractKind, address: string, addresses: ChainAddresses): Promise<true> {
  const check = CHECKS[kind];
  const connection = await connectChain(ctx);
  const ethers = await import('ethers');
  const iface = ethers.Interface.from(iden3Artifact(check.contract).abi as never);
  let answer: unknown;
  let refusal: string | undefined;
  try {
    const raw = await connection.provider.call({ to: address, data: iface.encodeFunctionData(check.method, []) });
    try {
      const decoded = iface.decodeFunctionResult(check.method, raw);
      answer = decoded.length === 1 ? decoded[0] : decoded;
    } catch {
      refusal = `its ${check.method}() answers no ${check.contract} result`;
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // A revert (no such function, no fallback) is the contract's answer; anything else is the network's.
    if (code !== 'CALL_EXCEPTION') throw await toChainError(ctx, error, `read ${check.method}() of ${check.variable}=${address}`, connection, [iface.fragments as never]);
    refusal = `its ${check.method}() reverts`;
  }
  if (refusal === undefined && !check.accepts(answer)) refusal = `its ${check.method}() answers ${describe(answer)}`;
  if (refusal === undefined) return true;
  const other = otherContractAt(addresses, address, kind);
  throw new ConfigError(
    `${check.variable}=${address} is not ${check.aContract} on chain ${connection.chainId} (${other === undefined ? refusal : `it is ${other}`}); ` +
      `set ${check.variable} to the ${check.contract}'s address (the deploying party's \`vc chain env\` gives it)`,
    { field: check.variable },
  );
}

function describe(answer: unknown): string {
  const text = JSON.stringify(answer, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/**
 * Refuses (ConfigError naming the variable, exit 3) when `address`, the chain's contract of this
 * kind, comes from configuration and is not that kind of contract. An address of vc's own
 * deployment (the address book) is not read.
 */
export async function requireContractKind(ctx: Context, kind: CheckedContractKind, address: string, addresses: ChainAddresses): Promise<void> {
  const configured = ctx.config.chain[CHECKS[kind].field];
  if (configured === undefined || configured.toLowerCase() !== address.toLowerCase()) return;
  await ctx.lazy(new ServiceKey<true>(`chain.contractKind.${kind}.${address.toLowerCase()}`), () => checkKind(ctx, kind, address, addresses));
}
