/**
 * iden3comm `proofs/1.0/contract-invoke-request` (issue 28), the verifier's side: `vc verifier
 * contract-request` asks a wallet to prove V3 on-chain requests this chain's UniversalVerifier
 * holds and to submit the proofs itself (UniversalVerifier.submitResponse, method id 06c86a91),
 * the way Privado ID verifiers ask for on-chain verification. The message is the js-sdk's
 * ContractInvokeRequest: transaction_data names the contract, method and chain, the scope holds
 * the requests as registered (read back from the chain, so the wallet proves what the validator
 * checks), and accept holds the one profile vc's wallets satisfy on this chain: plain JSON, whose
 * auth is embedded in the query proofs (embeddedAuth).
 *
 * The message comes from the UniversalVerifier's own DID (its verifierID, type 0x01A1,
 * did:iden3:privado:main), not from the wallet's verifier identity: a js-sdk wallet proves the
 * scope for the message's `from` (the proofs carry its id as verifierID, which the query hash
 * includes), so the requests must be bound to that verifier (registered with its verifierID:
 * vc verifier request --bind-verifier, or a nullifier session), and `from` must name it.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError } from '../../errors.js';
import { getChain } from '../../chain/chainClient.js';
import { registeredRequest, requestIdExists, universalVerifierId } from '../../chain/universalVerifier.js';
import { getIden3 } from '../../iden3/wallet.js';
import { registeredVerifierId } from '../pbq/nullifier.js';
import { SUBMIT_RESPONSE_METHOD_ID } from '../pbq/prove.js';
import { V3_ON_CHAIN_REQUEST_CIRCUIT, credentialRequestSchema, type CredentialRequest } from '../pbq/pbqSchemas.js';
import type { FieldNamer } from '../validate.js';
import { DEFAULT_EXPIRES_SECONDS, MAX_EXPIRES_SECONDS } from './authRequest.js';

export const CONTRACT_INVOKE_REQUEST_TYPE = 'https://iden3-communication.io/proofs/1.0/contract-invoke-request';
export const CONTRACT_INVOKE_RESPONSE_TYPE = 'https://iden3-communication.io/proofs/1.0/contract-invoke-response';
export const PLAIN_MEDIA_TYPE = 'application/iden3comm-plain-json';
/** The accept profile of embedded auth (the query proofs carry the holder's auth): what vc's requests ask for. */
export const EMBEDDED_AUTH_ACCEPT_PROFILE = `iden3comm/v1;env=${PLAIN_MEDIA_TYPE}`;
/** The accept profile of ethIdentity auth (the sender is the holder's Ethereum identity). */
export const ETH_IDENTITY_ACCEPT_PROFILE = 'iden3comm/v1;env=application/iden3comm-signed-json;alg=ES256K-R';
/** The most requests one message carries (as many as a wallet answers in one scope). */
export const MAX_CONTRACT_SCOPE = 16;

/** The transaction a contract-invoke-request asks for (the js-sdk's ContractInvokeTransactionData). */
export interface ContractInvokeTransactionData {
  contract_address: string;
  method_id: string;
  chain_id: number;
  network?: string | undefined;
  txHash?: string | undefined;
}

/** A contract-invoke-request as vc makes it (the js-sdk's ContractInvokeRequest). */
export interface ContractInvokeRequestMessage {
  id: string;
  thid: string;
  typ: string;
  type: typeof CONTRACT_INVOKE_REQUEST_TYPE;
  from: string;
  to?: string;
  body: {
    reason?: string;
    transaction_data: ContractInvokeTransactionData;
    scope: Array<{ id: number; circuitId: string; query: Record<string, unknown>; params?: Record<string, unknown> }>;
    accept?: string[];
  };
  created_time?: number;
  expires_time?: number;
}

/** Options of `vc verifier contract-request`. */
export interface ContractRequestOptions {
  /** The registered requests (their ids, decimal). */
  id: string[];
  reason?: string | undefined;
  /** The holder DID the request is for (the js-sdk's wallet needs `to`; a wallet may fill it in). */
  to?: string | undefined;
  expires?: number | undefined;
}

/** The request `id` as registered on the UniversalVerifier, when vc registered it (its metadata is the request's JSON). */
export async function registeredCredentialRequest(ctx: Context, id: number): Promise<CredentialRequest | undefined> {
  const { metadata } = await registeredRequest(ctx, id);
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  const checked = credentialRequestSchema.safeParse(parsed);
  return checked.success && checked.data.id === id ? checked.data : undefined;
}

/** The network name of transaction_data, as Privado ID writes it (polygon-amoy): the DID blockchain and network of this chain. */
export function contractNetworkName(ctx: Context): string {
  return `${ctx.config.chain.didBlockchain}-${ctx.config.chain.didNetwork}`;
}

/**
 * `vc verifier contract-request`: the contract-invoke-request for requests registered on this
 * chain's UniversalVerifier (V3 on chain), from the wallet's verifier DID.
 */
export async function createContractInvokeRequest(ctx: Context, options: ContractRequestOptions, names: FieldNamer): Promise<ContractInvokeRequestMessage> {
  const ids: number[] = [];
  for (const given of options.id) {
    const id = /^[1-9][0-9]{0,15}$/.test(given) ? Number(given) : Number.NaN;
    if (!Number.isSafeInteger(id)) throw new InputError(`${names('id')}: ${JSON.stringify(given.slice(0, 40))} is not a request id (a positive integer, as vc verifier request gives it)`, { field: 'id' });
    if (ids.includes(id)) throw new InputError(`${names('id')}: request ${id} is given twice`, { field: 'id' });
    ids.push(id);
  }
  const expires = options.expires ?? DEFAULT_EXPIRES_SECONDS;
  if (!Number.isSafeInteger(expires) || expires < 1 || expires > MAX_EXPIRES_SECONDS) {
    throw new InputError(`${names('expires')}: expected seconds from 1 to ${MAX_EXPIRES_SECONDS} (30 days), got ${String(expires)}`, { field: 'expires' });
  }
  if (options.to !== undefined) {
    const { core } = (await getIden3(ctx)).modules;
    try {
      core.DID.parse(options.to);
    } catch {
      throw new InputError(`${names('to')}: ${JSON.stringify(options.to.slice(0, 200))} is not a DID (the holder's iden3 DID)`, { field: 'to' });
    }
  }
  const chain = await getChain(ctx);
  const verifier = chain.addresses.universalVerifier;
  const scope: ContractInvokeRequestMessage['body']['scope'] = [];
  for (const id of ids) {
    if (!(await requestIdExists(ctx, id))) throw new NotFoundError(`${names('id')}: request ${id} is not registered on the UniversalVerifier ${verifier} (vc verifier request registers one)`, { field: 'id' });
    const request = await registeredCredentialRequest(ctx, id);
    if (request === undefined) throw new UnprocessableError(`${names('id')}: request ${id} was not registered by vc (its metadata is not a vc request), so vc cannot say what it asks`, { field: 'id' });
    if (request.circuitId !== V3_ON_CHAIN_REQUEST_CIRCUIT) {
      throw new UnprocessableError(`${names('id')}: request ${id} is a ${request.circuitId} request; contract-invoke requests are made for ${V3_ON_CHAIN_REQUEST_CIRCUIT} requests (vc verifier request --circuit ${V3_ON_CHAIN_REQUEST_CIRCUIT})`, { field: 'id' });
    }
    if ((await registeredVerifierId(ctx, id)) === 0n) {
      throw new UnprocessableError(
        `${names('id')}: request ${id} is not bound to the UniversalVerifier (registered with verifierID 0): a Privado ID / js-sdk wallet proves it for the message's verifier, whose id the query hash would then not match; register it with vc verifier request --bind-verifier (or --nullifier-session)`,
        { field: 'id' },
      );
    }
    scope.push({ id: request.id, circuitId: request.circuitId, query: request.query as Record<string, unknown>, ...(request.params === undefined ? {} : { params: request.params }) });
  }
  const { core } = (await getIden3(ctx)).modules;
  // The UniversalVerifier's DID: the verifier the proofs are bound to.
  const from = core.DID.parseFromId(core.Id.fromBigInt(await universalVerifierId(ctx))).string();
  const id = randomUUID();
  const now = Math.floor(ctx.now().getTime() / 1000);
  return {
    id,
    thid: id,
    typ: PLAIN_MEDIA_TYPE,
    type: CONTRACT_INVOKE_REQUEST_TYPE,
    from,
    ...(options.to === undefined ? {} : { to: options.to }),
    body: {
      reason: options.reason ?? 'vc verifier contract-request',
      transaction_data: { contract_address: verifier, method_id: SUBMIT_RESPONSE_METHOD_ID, chain_id: chain.chainId, network: contractNetworkName(ctx) },
      scope,
      accept: [EMBEDDED_AUTH_ACCEPT_PROFILE],
    },
    created_time: now,
    expires_time: now + expires,
  };
}
