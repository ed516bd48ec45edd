/**
 * iden3comm `proofs/1.0/contract-invoke-request` (issue 28), the wallet's side: `vc holder
 * respond` given a contract-invoke-request (a Privado ID verifier's, or `vc verifier
 * contract-request`'s) proves each scope item with a held credential and submits it to the
 * UniversalVerifier itself, through vc holder prove-submit's machinery (proveAndSubmit: its
 * prechecks, its nullifier and "already verified" refusals), and answers with the
 * `proofs/1.0/contract-invoke-response` the js-sdk's ContractRequestHandler makes: its scope lists
 * each proof with the hash of the transaction that carried it.
 *
 * A wallet acts only on its own chain: a request for another chain id, another contract than this
 * chain's UniversalVerifier, another method than submitResponse, a scope item not registered on
 * chain (or registered with another query), or accept profiles vc cannot satisfy is refused before
 * any proof, and so is everything proveAndSubmit would refuse for any item (the auth method each
 * item's circuit takes, the credential's proofs and values, a used nullifier): the first proof is
 * submitted only once every item passed. Each submission is journaled in the wallet once broadcast
 * (keyed by chain id, contract, message and item): a re-run after a crash (a kill before the
 * output was written) answers with the submission found, never a second one; a journaled
 * transaction the chain does not know (a node restarted from a checkpoint, dropped by the pool) is
 * submitted anew, a pending one is waited for (exit 4).
 */
import { isDeepStrictEqual } from 'node:util';
import type { ZeroKnowledgeProofResponse } from '@0xpolygonid/js-sdk';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { InputError, NetworkError, UnprocessableError, VerificationError, describeError, isVcError } from '../../errors.js';
import { getChain } from '../../chain/chainClient.js';
import { isRequestProofVerified, requestIdExists } from '../../chain/universalVerifier.js';
import { getIden3 } from '../../iden3/wallet.js';
import { ensureRoleIdentity, ethereumAddressOfDid, requireWalletIdentity } from '../pbq/identities.js';
import { SUBMIT_RESPONSE_METHOD_ID, authProofDepthProblem, checkProveAndSubmit, proveAndSubmit, type CheckedSubmission, type ProveOptions } from '../pbq/prove.js';
import { MTP_ON_CHAIN_CIRCUIT, REQUEST_CIRCUITS, V3_ON_CHAIN_REQUEST_CIRCUIT, isAuthProofMethod, type CredentialRequest, type PbqCredentialInput } from '../pbq/pbqSchemas.js';
import { parseInput, type FieldNamer } from '../validate.js';
import { AUTH_ACCEPT_PROFILE, acceptedAuthCircuits, chooseAuthCircuit, iden3commV1Profiles, type AcceptProfileParser } from './authRequest.js';
import type { AuthCircuit } from './authLimits.js';
import { aboutScope, credentialForScope, scopeLabel, scopeQueryProblem, type RespondInput, type Scope } from './authRespond.js';
import {
  CONTRACT_INVOKE_RESPONSE_TYPE,
  EMBEDDED_AUTH_ACCEPT_PROFILE,
  ETH_IDENTITY_ACCEPT_PROFILE,
  MAX_CONTRACT_SCOPE,
  PLAIN_MEDIA_TYPE,
  registeredCredentialRequest,
  type ContractInvokeTransactionData,
} from './contractRequest.js';

/** The auth a contract-invoke response carries (the js-sdk's AuthProof): embedded in the query proofs, a separate auth proof (authV2, authV3, authV3-8-32), or the sender's Ethereum identity. */
export type ContractAuthProof = { authMethod: 'embeddedAuth' } | { authMethod: AuthCircuit } | { authMethod: 'ethIdentity'; userDid: string };

/** The answer (the js-sdk's ContractInvokeResponse): each proof with the hash of its transaction. */
export interface ContractInvokeResponseMessage {
  id: string;
  thid: string;
  typ: string;
  type: typeof CONTRACT_INVOKE_RESPONSE_TYPE;
  from: string;
  to: string;
  body: {
    transaction_data: ContractInvokeTransactionData;
    scope: Array<ZeroKnowledgeProofResponse & { txHash: string }>;
    authProof: ContractAuthProof;
  };
  created_time: number;
}

/** Seconds a JavaScript date can name. */
const MAX_DATE_SECONDS = 8.64e12;
const safeId = z.number().int().positive().refine(Number.isSafeInteger, 'expected a positive safe integer (a request id)');

/** What vc reads of a contract-invoke-request (the js-sdk's ContractInvokeRequest; other fields are kept, unread). */
const contractInvokeRequestSchema = z.looseObject({
  id: z.string().min(1).max(512),
  thid: z.string().max(512).optional(),
  from: z.string().min(1).max(512),
  to: z.string().min(1).max(512).optional(),
  expires_time: z.number().int().refine((seconds) => Math.abs(seconds) <= MAX_DATE_SECONDS, `expected seconds since 1970 (an integer within ±${MAX_DATE_SECONDS})`).optional(),
  body: z.looseObject({
    transaction_data: z.looseObject({
      contract_address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a contract address (0x and 40 hex digits)'),
      method_id: z.string().regex(/^(0x)?[0-9a-fA-F]{8}$/, 'expected a 4-byte method id (8 hex digits)'),
      chain_id: z.number().int().positive().refine(Number.isSafeInteger, 'expected a chain id'),
      network: z.string().max(200).optional(),
    }),
    accept: z.array(z.string().max(512)).max(16).optional(),
    scope: z
      .array(z.looseObject({ id: safeId, circuitId: z.string().min(1).max(200), query: z.record(z.string(), z.unknown()), params: z.record(z.string(), z.unknown()).optional() }))
      .min(1, 'no proof request: nothing to prove and submit')
      .max(MAX_CONTRACT_SCOPE, `vc answers at most ${MAX_CONTRACT_SCOPE} proof requests in one message`),
  }),
});
type ContractInvokeRequest = z.output<typeof contractInvokeRequestSchema>;

/** Where a broadcast submission is journaled until the answer is delivered. */
export const SUBMISSIONS_NS = 'iden3comm.contractSubmissions';
type JournaledSubmission = { sender: string; txHash: string; response: ZeroKnowledgeProofResponse; sentAt: string };
/** A journal entry applies to one message's scope item on one chain's UniversalVerifier: an entry from another chain or contract never does. */
export const submissionKey = (chainId: number, contract: string, messageId: string, scopeId: number): string => JSON.stringify([chainId, contract.toLowerCase(), messageId, scopeId]);

/** The auth methods a request's accept profiles allow vc to submit with. */
export interface AcceptedAuth {
  embedded: boolean;
  authV2: boolean;
  /** The authV3 circuits allowed (authV3, authV3-8-32), each an auth method of that name. */
  authV3: AuthV3Circuit[];
  ethIdentity: boolean;
}
type AuthV3Circuit = Exclude<AuthCircuit, 'authV2'>;

/**
 * Which of vc's auth methods the request's accept profiles allow: embedded auth for a plain-json
 * profile, authV2, authV3 or authV3-8-32 where an authorization response could be proved with that
 * circuit (the same reading: acceptedAuthCircuits; no profile at all is the js-sdk's default, an
 * authV2 proof), ethIdentity for a signed-json profile listing ES256K-R among its algs.
 */
export function acceptedAuth(parseAcceptProfile: AcceptProfileParser, accept: readonly string[]): AcceptedAuth {
  const circuits = acceptedAuthCircuits(accept, parseAcceptProfile);
  const allowed: AcceptedAuth = {
    embedded: false,
    authV2: circuits.includes('authV2'),
    authV3: circuits.filter((circuit): circuit is AuthV3Circuit => circuit !== 'authV2'),
    ethIdentity: false,
  };
  for (const parsed of iden3commV1Profiles(accept, parseAcceptProfile)) {
    if (String(parsed.env) === PLAIN_MEDIA_TYPE) allowed.embedded = true;
    if (String(parsed.env) === 'application/iden3comm-signed-json' && (parsed.alg ?? []).map(String).includes('ES256K-R')) allowed.ethIdentity = true;
  }
  return allowed;
}

/**
 * The auth method vc submits with for a holder: ethIdentity for an Ethereum identity; else embedded
 * auth, else an auth proof: authV2, else authV3-8-32 or authV3 as an authorization answer's is chosen
 * (chooseAuthCircuit: one `built` already first, else the small one). As the js-sdk's
 * ContractRequestHandler (processProofAuth), the method is named as the circuit and its proof is
 * over the challenge of the sender and the responses (calcChallengeAuth).
 */
export function chooseContractAuth(allowed: AcceptedAuth, ethereum: boolean, built: readonly string[] = []): 'embeddedAuth' | AuthCircuit | 'ethIdentity' | undefined {
  if (ethereum) return allowed.ethIdentity ? 'ethIdentity' : undefined;
  if (allowed.embedded) return 'embeddedAuth';
  return chooseAuthCircuit([...(allowed.authV2 ? (['authV2'] as const) : []), ...allowed.authV3], built);
}

/**
 * The auth method chosen (chooseContractAuth), but authV3 for authV3-8-32 when the request allows
 * it and the holder's trees or the chain's GIST are deeper than the small circuit holds
 * (`depthProblem`: the wallet's trees tell before any proof; said in a `note`). Not allowed, the
 * small one stays and checkProveAndSubmit refuses it, naming the depth.
 */
export async function fittingAuthMethod<Method extends string>(
  allowed: AcceptedAuth,
  chosen: Method | undefined,
  depthProblem: (circuit: 'authV3-8-32') => Promise<string | undefined>,
  note: (text: string) => void,
): Promise<Method | 'authV3' | undefined> {
  if (chosen !== 'authV3-8-32' || !allowed.authV3.includes('authV3')) return chosen;
  const problem = await depthProblem('authV3-8-32');
  if (problem === undefined) return chosen;
  note(`${problem}; proving with authV3 instead`);
  return 'authV3';
}

/** The request checked: its shape, then what a wallet can tell without the chain. */
async function checkContractInvokeRequest(ctx: Context, value: unknown, where: string): Promise<{ message: ContractInvokeRequest; auth: AcceptedAuth }> {
  let message: ContractInvokeRequest;
  try {
    message = parseInput(contractInvokeRequestSchema, value, where);
  } catch (error) {
    throw isVcError(error) ? new InputError(error.message, { field: 'request' }) : error;
  }
  if (message.expires_time !== undefined && message.expires_time * 1000 <= ctx.now().getTime()) {
    throw new InputError(`${where}: the request expired at ${new Date(message.expires_time * 1000).toISOString()}`, { field: 'request' });
  }
  const data = message.body.transaction_data;
  const method = data.method_id.replace(/^0x/, '').toLowerCase();
  if (method !== SUBMIT_RESPONSE_METHOD_ID) {
    throw new UnprocessableError(`${where}: transaction_data.method_id ${data.method_id} is not UniversalVerifier.submitResponse (${SUBMIT_RESPONSE_METHOD_ID}), the one method vc submits proofs with`, { field: 'request' });
  }
  const ownChain = ctx.config.chain.chainId;
  if (data.chain_id !== ownChain) {
    throw new UnprocessableError(`${where}: transaction_data.chain_id ${data.chain_id} is not this wallet's chain ${ownChain}; a wallet acts only on its own chain`, { field: 'request' });
  }
  const accept = message.body.accept ?? [];
  const { sdk } = (await getIden3(ctx)).modules;
  const auth = acceptedAuth((profile) => sdk.parseAcceptProfile(profile), accept);
  if (!auth.embedded && !auth.authV2 && auth.authV3.length === 0 && !auth.ethIdentity) {
    throw new UnprocessableError(
      `${where}: the request accepts only ${accept.map((profile) => profile.slice(0, 200)).join(', ')}; vc submits with embedded auth (${EMBEDDED_AUTH_ACCEPT_PROFILE}), an authV2, authV3 or authV3-8-32 proof (${AUTH_ACCEPT_PROFILE}) or, for an Ethereum identity, ethIdentity (${ETH_IDENTITY_ACCEPT_PROFILE})`,
      { field: 'request' },
    );
  }
  const seen = new Set<number>();
  for (const [index, scope] of message.body.scope.entries()) {
    // One proof per request id from one sender: a second item of the same id would be refused by
    // the contract after the first was submitted (ProofAlreadyVerified), leaving the answer half done.
    if (seen.has(scope.id)) throw new InputError(`${where}: field body.scope[${index}].id: request ${scope.id} is asked for twice; one proof answers it`, { field: 'request' });
    seen.add(scope.id);
    if (!(REQUEST_CIRCUITS as readonly string[]).includes(scope.circuitId)) {
      throw new UnprocessableError(`${where}: ${scopeLabel(scope as Scope)} asks for a ${scope.circuitId.slice(0, 100)} proof; on chain vc proves ${REQUEST_CIRCUITS.join(' and ')} requests`, { field: 'request' });
    }
    const problem = scopeQueryProblem(scope.query, scope.circuitId);
    if (problem !== undefined) throw new InputError(`${where}: field body.scope[${index}].query.${problem}`, { field: 'request' });
  }
  const { core } = (await getIden3(ctx)).modules;
  try {
    core.DID.parse(message.from);
  } catch (error) {
    throw new InputError(`${where}: field from: ${JSON.stringify(message.from.slice(0, 200))} is not a DID vc can read (${describeError(error)})`, { field: 'request' });
  }
  return { message, auth };
}

/** The scope item as the UniversalVerifier holds it: refuses one that is not registered, or registered with another query. */
async function registeredScope(ctx: Context, scope: Scope, verifier: string, where: string): Promise<CredentialRequest> {
  if (!(await requestIdExists(ctx, scope.id))) {
    throw new UnprocessableError(`${where}: ${scopeLabel(scope)}: request ${scope.id} is not registered on the UniversalVerifier ${verifier}; nothing would verify its proof`, { field: 'request' });
  }
  const registered = await registeredCredentialRequest(ctx, scope.id);
  const given = { id: scope.id, circuitId: scope.circuitId, query: scope.query, ...(scope.params === undefined ? {} : { params: scope.params }) } as unknown as CredentialRequest;
  if (registered === undefined) return given;
  const same = registered.circuitId === scope.circuitId && isDeepStrictEqual(JSON.parse(JSON.stringify(registered.query)), scope.query) && isDeepStrictEqual(registered.params ?? {}, scope.params ?? {});
  if (!same) {
    throw new UnprocessableError(`${where}: ${scopeLabel(scope)}: not the request ${scope.id} registered on the UniversalVerifier (${registered.circuitId}, ${JSON.stringify(registered.query.credentialSubject)}); the contract checks the proof against that one`, {
      field: 'request',
    });
  }
  return registered;
}

/** `vc holder respond` given a contract-invoke-request: the proofs submitted on chain, and the contract-invoke-response. */
export async function respondToContractInvoke(ctx: Context, value: unknown, input: RespondInput, names: FieldNamer): Promise<ContractInvokeResponseMessage> {
  const where = names('request');
  if (input.post === true) {
    throw new InputError(`${names('post')}: a contract-invoke-request is answered on chain (the proofs' transactions) and by the response written here; it names no callback to post to`, { field: 'post' });
  }
  if (input.credential !== undefined && input.credentialId !== undefined) {
    throw new InputError(`${names('credential')} and ${names('credentialId')} both name a credential: give one of them`, { field: 'credentialId' });
  }
  const { message, auth } = await checkContractInvokeRequest(ctx, value, where);
  const data = message.body.transaction_data;
  const chain = await getChain(ctx);
  const verifier = chain.addresses.universalVerifier;
  if (data.contract_address.toLowerCase() !== verifier.toLowerCase()) {
    throw new UnprocessableError(`${where}: transaction_data.contract_address ${data.contract_address} is not the UniversalVerifier ${verifier} of chain ${chain.chainId}; a wallet acts only on its own chain`, { field: 'request' });
  }
  const scopes = message.body.scope as Scope[];
  // Before anything is read or proved: an MTPV2OnChain item carries its own auth (embedded in its
  // proof); a request whose profiles give a BJJ holder an auth proof only (or none: the js-sdk's default, authV2)
  // cannot have it answered, and one answer names one auth method for all its proofs.
  if (!auth.embedded && !auth.ethIdentity) {
    const mtp = scopes.find((scope) => scope.circuitId === MTP_ON_CHAIN_CIRCUIT);
    if (mtp !== undefined) throw authMismatch(where, mtp, message.body.accept ?? []);
  }
  const requests: CredentialRequest[] = [];
  for (const scope of scopes) requests.push(await registeredScope(ctx, scope, verifier, where));

  return ctx.exclusive(async () => {
    // Every credential first (the refusals come before any proof), then one holder for them all.
    const chosen: Array<{ scope: Scope; request: CredentialRequest; credential: PbqCredentialInput; id: string }> = [];
    for (const [index, scope] of scopes.entries()) chosen.push({ scope, request: requests[index]!, ...(await credentialForScope(ctx, scope, input, names, scope.circuitId)) });
    const subjects = [...new Set(chosen.map((item) => String(item.credential.credentialSubject.id)))];
    if (subjects.length > 1) throw new UnprocessableError(`${where}: the credentials that satisfy its scope are for different DIDs (${subjects.join(', ')}); one answer comes from one identity`, { field: 'request' });
    const holder = subjects[0] ?? (await ensureRoleIdentity(ctx, 'holder')).did;
    requireWalletIdentity(ctx, holder, 'the credential subject');
    if (message.to !== undefined && message.to !== holder) {
      throw new UnprocessableError(`${where}: the request is addressed to ${message.to.slice(0, 200)}, and the credentials that satisfy it are for ${holder}`, { field: 'request' });
    }
    const ethereum = (await ethereumAddressOfDid(ctx, holder)) !== undefined;
    const { availableOnDemandCircuits } = await import('../../circuits/build.js');
    const authMethod = await fittingAuthMethod(
      auth,
      chooseContractAuth(auth, ethereum, auth.embedded || auth.authV2 || auth.authV3.length === 0 ? [] : await availableOnDemandCircuits(ctx)),
      (circuit) => authProofDepthProblem(ctx, holder, circuit),
      (note) => ctx.progress.info(note),
    );
    if (authMethod === undefined) {
      const needed = ethereum
        ? `${holder} is an Ethereum identity, whose proofs are submitted with ethIdentity (${ETH_IDENTITY_ACCEPT_PROFILE})`
        : `${holder} proves with embedded auth (${EMBEDDED_AUTH_ACCEPT_PROFILE}) or an authV2, authV3 or authV3-8-32 proof (${AUTH_ACCEPT_PROFILE})`;
      throw new UnprocessableError(`${where}: the request's accept profiles (${(message.body.accept ?? []).join(', ')}) leave out what this answer needs: ${needed}`, { field: 'request' });
    }
    // An auth proof is for V3 items only (chosen when the profiles leave out embedded auth).
    const mismatched = isAuthProofMethod(authMethod) ? chosen.find(({ scope }) => scope.circuitId === MTP_ON_CHAIN_CIRCUIT) : undefined;
    if (mismatched !== undefined) throw authMismatch(where, mismatched.scope, message.body.accept ?? []);

    // A submission of an earlier run of this request: found (verified on chain), never made twice.
    const sender = chain.signer.address;
    const done = new Map<number, JournaledSubmission>();
    const journalKey = (scopeId: number): string => submissionKey(chain.chainId, verifier, message.id, scopeId);
    for (const { scope } of chosen) {
      const key = journalKey(scope.id);
      const journaled = ctx.store.get<JournaledSubmission>(SUBMISSIONS_NS, key);
      const ours = journaled !== undefined && journaled.sender.toLowerCase() === sender.toLowerCase() ? journaled : undefined;
      if (await isRequestProofVerified(ctx, sender, scope.id)) {
        if (ours !== undefined) {
          done.set(scope.id, ours);
          continue;
        }
        throw new VerificationError(`${where}: ${scopeLabel(scope)}: ProofAlreadyVerified(requestId=${scope.id}, sender=${sender}): this address already has a verified proof for request ${scope.id}`, { field: 'request' });
      }
      if (ours !== undefined) {
        const unreadable = (error: unknown): never => {
          throw new NetworkError(`cannot read the transaction ${ours.txHash} of an earlier run: ${describeError(error)}`, { cause: error });
        };
        const receipt = await chain.provider.getTransactionReceipt(ours.txHash).catch(unreadable);
        if (receipt === null) {
          // Not mined: still pending (said so, exit 4), or unknown to the chain (a node restarted
          // from a checkpoint, a pool that dropped it): nothing of it can land, so it is submitted anew.
          const pending = await chain.provider.getTransaction(ours.txHash).catch(unreadable);
          if (pending !== null) throw new NetworkError(`${scopeLabel(scope)}: its submission ${ours.txHash} by an earlier run is not mined yet; run again once it is`);
        }
        // Mined and failed, or unknown to the chain: this run submits anew.
        ctx.store.delete(SUBMISSIONS_NS, key);
      }
    }

    // Every check that can fail, for every item still to submit, before the first submission.
    const itemNames = (scope: Scope): ProveOptions['names'] => (field) =>
      field.startsWith('credentialRequest')
        ? `${where} ${scopeLabel(scope)}${field.slice('credentialRequest'.length)}`
        : field.startsWith('verifiableCredential')
          ? `${names('credential')}${field.slice('verifiableCredential'.length)}`
          : field === 'auth'
            ? `${where} ${scopeLabel(scope)} (the auth its accept profiles allow)`
            : names(field);
    const itemOptions = ({ scope, request, credential }: (typeof chosen)[number]): ProveOptions => ({ credential, request, ...(isAuthProofMethod(authMethod) ? { auth: authMethod } : {}), names: itemNames(scope) });
    const checked = new Map<number, CheckedSubmission>();
    for (const item of chosen) {
      if (done.has(item.scope.id)) continue;
      try {
        checked.set(item.scope.id, await checkProveAndSubmit(ctx, itemOptions(item)));
      } catch (error) {
        throw aboutScope(error, item.scope, input);
      }
    }

    const scopeResponses: Array<ZeroKnowledgeProofResponse & { txHash: string }> = [];
    for (const item of chosen) {
      const { scope } = item;
      const earlier = done.get(scope.id);
      if (earlier !== undefined) {
        scopeResponses.push({ txHash: earlier.txHash, ...earlier.response });
        continue;
      }
      let submitted: { response: ZeroKnowledgeProofResponse; txHash: string } | undefined;
      const key = journalKey(scope.id);
      try {
        await proveAndSubmit(ctx, {
          ...itemOptions(item),
          // Checked above, with every other item: the items have distinct request ids, so an earlier submission changes nothing checked.
          checked: checked.get(scope.id),
          onSubmitted: (sent) => {
            submitted = sent;
            ctx.store.put<JournaledSubmission>(SUBMISSIONS_NS, key, { sender, txHash: sent.txHash, response: sent.response, sentAt: ctx.now().toISOString() });
          },
        });
      } catch (error) {
        throw aboutScope(error, scope, input);
      }
      if (submitted === undefined) throw new VerificationError(`${scopeLabel(scope)}: no submission was made`);
      scopeResponses.push({ txHash: submitted.txHash, ...submitted.response });
    }

    const authProof: ContractAuthProof = authMethod === 'ethIdentity' ? { authMethod, userDid: holder } : { authMethod };
    return {
      id: message.id,
      thid: message.thid ?? message.id,
      typ: PLAIN_MEDIA_TYPE,
      type: CONTRACT_INVOKE_RESPONSE_TYPE,
      from: holder,
      to: message.from,
      body: { transaction_data: { ...data, txHash: scopeResponses[0]!.txHash }, scope: scopeResponses, authProof },
      created_time: Math.floor(ctx.now().getTime() / 1000),
    };
  });
}

/** The contract-invoke-response was delivered: its journal goes (a re-run is then refused as already verified, as vc holder prove-submit's is). */
export function contractRespondDelivered(ctx: Context, result: ContractInvokeResponseMessage): void {
  const { chain_id: chainId, contract_address: contract } = result.body.transaction_data;
  ctx.store.transaction(() => {
    for (const item of result.body.scope) ctx.store.delete(SUBMISSIONS_NS, submissionKey(chainId, contract, result.id, Number(item.id)));
  });
}

/** The refusal of a request that would have an MTPV2OnChain item submitted with an auth proof: named as the request and the item. */
function authMismatch(where: string, scope: Scope, accept: readonly string[]): UnprocessableError {
  return new UnprocessableError(
    `${where}: ${scopeLabel(scope)}: a ${MTP_ON_CHAIN_CIRCUIT} proof carries its own auth (embedded auth, ${EMBEDDED_AUTH_ACCEPT_PROFILE}), and the request's accept profiles (${accept.length === 0 ? 'none: the default, authV2' : accept.map((profile) => profile.slice(0, 200)).join(', ')}) allow only an auth proof (authV2, authV3, authV3-8-32), which is for ${V3_ON_CHAIN_REQUEST_CIRCUIT} items; nothing was submitted`,
    { field: 'request' },
  );
}
