/**
 * Typed reads of the UniversalVerifier of the address book (the contract proofs are submitted to):
 * core calls these instead of naming ABI methods itself.
 */
import type { InterfaceAbi } from 'ethers';
import type { Context } from '../context.js';
import { iden3Artifact } from './artifacts.js';
import { getChain } from './chainClient.js';
import { InternalError, NetworkError, describeError } from '../errors.js';
import { readContract } from './transactions.js';

/** The UniversalVerifier ABI (from @iden3/contracts). */
export function universalVerifierAbi(): InterfaceAbi {
  return iden3Artifact('UniversalVerifier').abi as InterfaceAbi;
}

async function verifierAddress(ctx: Context): Promise<string> {
  return (await getChain(ctx)).addresses.universalVerifier;
}

/** True when request `id` is registered on the UniversalVerifier. */
export async function requestIdExists(ctx: Context, id: number | bigint): Promise<boolean> {
  return readContract<boolean>(ctx, { address: await verifierAddress(ctx), abi: universalVerifierAbi(), method: 'requestIdExists', args: [id] }, `check request ${id} on the UniversalVerifier`);
}

/** True when `sender` has a verified proof for request `id`. */
export async function isRequestProofVerified(ctx: Context, sender: string, id: number | bigint): Promise<boolean> {
  return readContract<boolean>(ctx, { address: await verifierAddress(ctx), abi: universalVerifierAbi(), method: 'isRequestProofVerified', args: [sender, id] }, 'read the proof status');
}

/** The proof status of `address` for request `id`. */
export async function requestProofStatus(ctx: Context, address: string, id: number | bigint): Promise<{ isVerified: boolean; validatorVersion: string; timestamp: bigint }> {
  return readContract<{ isVerified: boolean; validatorVersion: string; timestamp: bigint }>(
    ctx,
    { address: await verifierAddress(ctx), abi: universalVerifierAbi(), method: 'getRequestProofStatus', args: [address, id] },
    `read the proof status of ${address} for request ${id}`,
  );
}

/** A registered request as the UniversalVerifier holds it. */
export interface RegisteredRequest {
  requestId: bigint;
  metadata: string;
  validator: string;
  params: string;
  creator: string;
}

/** The request `id` as registered (its metadata is the request JSON `vc` registered). */
export async function registeredRequest(ctx: Context, id: number | bigint): Promise<RegisteredRequest> {
  const info = await readContract<RegisteredRequest>(ctx, { address: await verifierAddress(ctx), abi: universalVerifierAbi(), method: 'getRequest', args: [id] }, `read request ${id} from the UniversalVerifier`);
  return { requestId: info.requestId, metadata: info.metadata, validator: info.validator, params: info.params, creator: info.creator };
}

/** The response fields the validator returned for `sender`'s verified proof of request `id` (userID, operatorOutput...). */
export async function requestResponseFields(ctx: Context, id: number | bigint, sender: string): Promise<Record<string, bigint>> {
  const fields = await readContract<Array<{ name: string; value: bigint }>>(
    ctx,
    { address: await verifierAddress(ctx), abi: universalVerifierAbi(), method: 'getResponseFields', args: [id, sender] },
    `read the response fields of ${sender} for request ${id}`,
  );
  return Object.fromEntries(fields.map((field) => [field.name, field.value]));
}

/** The UniversalVerifier's verifierID (V3 requests with a nullifier must name it: its id from its own address, type 0x01A1). */
export async function universalVerifierId(ctx: Context): Promise<bigint> {
  return readContract<bigint>(ctx, { address: await verifierAddress(ctx), abi: universalVerifierAbi(), method: 'getVerifierID', args: [] }, 'read the verifierID of the UniversalVerifier');
}

/**
 * The addresses that submitted a response to request `id` (its ResponseSubmitted events, whose
 * request id and caller are indexed), oldest first, each once.
 */
export async function requestSubmitters(ctx: Context, id: number | bigint): Promise<string[]> {
  const chain = await getChain(ctx);
  const ethers = await import('ethers');
  const iface = ethers.Interface.from(universalVerifierAbi());
  const event = iface.getEvent('ResponseSubmitted');
  if (event === null) throw new InternalError('the UniversalVerifier ABI has no ResponseSubmitted event');
  const topics = iface.encodeFilterTopics(event, [id]);
  let logs;
  try {
    logs = await chain.provider.getLogs({ address: chain.addresses.universalVerifier, topics, fromBlock: 0, toBlock: 'latest' });
  } catch (error) {
    throw new NetworkError(`cannot read the responses to request ${id} from the UniversalVerifier ${chain.addresses.universalVerifier}: ${describeError(error)}`, { cause: error });
  }
  const callers = logs.map((log) => String(iface.parseLog(log)?.args.getValue('caller')));
  return [...new Set(callers)];
}
