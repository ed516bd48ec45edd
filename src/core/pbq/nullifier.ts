/**
 * Nullifiers of V3 on-chain requests. A request registered with a nullifierSessionID (and the
 * UniversalVerifier's verifierID) makes the circuit output, for a credential issued to a profile
 * DID, nullifier = Poseidon(holder's genesis id, the subject's profile nonce, schema, verifierID,
 * nullifierSessionID): one value per holder profile and session, whatever the credential or the
 * submitting address. CredentialAtomicQueryV3StableValidator only checks that it is not 0, and the
 * UniversalVerifier only refuses a second proof from the same address (ProofAlreadyVerified), so
 * the same nullifier from another address would be accepted: vc reads the nullifiers already on
 * chain for the request and refuses to prove one again.
 */
import type { Context } from '../../context.js';
import { UnprocessableError, VerificationError, describeError } from '../../errors.js';
import { registeredRequest, requestResponseFields, requestSubmitters } from '../../chain/universalVerifier.js';
import { getIden3 } from '../../iden3/wallet.js';
import { walletProfile } from './identities.js';
import { MTP_ON_CHAIN_CIRCUIT, type CredentialRequest } from './pbqSchemas.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';

/** The validator's request params (CredentialAtomicQueryV3StableValidator.CredentialAtomicQueryV3). */
const V3_PARAMS_TYPE =
  'tuple(uint256 schema, uint256 claimPathKey, uint256 operator, uint256 slotIndex, uint256[] value, uint256 queryHash, uint256[] allowedIssuers, string[] circuitIds, bool skipClaimRevocationCheck, uint256 groupID, uint256 nullifierSessionID, uint256 proofType, uint256 verifierID)';

/** What a V3 request registered on chain asks of its nullifier. */
export interface NullifierSession {
  sessionID: bigint;
  verifierID: bigint;
  /** The claim schema hash of the query (the circuit hashes the claim's, which must equal it). */
  schema: bigint;
}

/**
 * The nullifier session of `request` as registered on the UniversalVerifier (the chain, not the
 * file, is what the validator checks), or undefined when it asks for none. Refuses a request file
 * whose params.nullifierSessionId is not the registered one, and a registered session without a
 * verifierID (the circuit then outputs 0 and the validator refuses every proof).
 */
export async function registeredNullifierSession(ctx: Context, request: CredentialRequest, names: FieldNamer = plainFieldNames): Promise<NullifierSession | undefined> {
  if (request.circuitId === MTP_ON_CHAIN_CIRCUIT) return undefined;
  const registered = await registeredRequest(ctx, request.id);
  const { AbiCoder } = await import('ethers');
  let sessionID: bigint;
  let verifierID: bigint;
  let schema: bigint;
  try {
    const [decoded] = AbiCoder.defaultAbiCoder().decode([V3_PARAMS_TYPE], registered.params) as unknown as [{ nullifierSessionID: bigint; verifierID: bigint; schema: bigint }];
    ({ nullifierSessionID: sessionID, verifierID, schema } = decoded);
  } catch (error) {
    throw new UnprocessableError(`request ${request.id} is registered on the UniversalVerifier without the V3 validator's params (${describeError(error)}); is it a ${request.circuitId} request?`, {
      field: 'credentialRequest.circuitId',
    });
  }
  const stated = request.params?.nullifierSessionId;
  if (BigInt(stated ?? 0) !== sessionID) {
    const field = 'credentialRequest.params.nullifierSessionId';
    throw new UnprocessableError(`${names(field)}: request ${request.id} is registered on chain with ${sessionID === 0n ? 'no nullifier session' : `nullifier session ${sessionID}`}, the request given says ${stated ?? 'none'}`, { field });
  }
  if (sessionID === 0n) return undefined;
  if (verifierID === 0n) {
    throw new UnprocessableError(`request ${request.id} asks for a nullifier (session ${sessionID}) with verifierID 0: the circuit gives no nullifier without a verifierID, so its validator refuses every proof (InvalidNullifyPubSignal)`, {
      field: 'credentialRequest.id',
    });
  }
  return { sessionID, verifierID, schema };
}

/**
 * The verifierID request `id` is registered with on the UniversalVerifier (V3): 0 when the request
 * is bound to no verifier, else the UniversalVerifier's (a nullifier session, or vc verifier
 * request --bind-verifier), which the proof must carry.
 */
export async function registeredVerifierId(ctx: Context, id: number): Promise<bigint> {
  const registered = await registeredRequest(ctx, id);
  const { AbiCoder } = await import('ethers');
  try {
    const [decoded] = AbiCoder.defaultAbiCoder().decode([V3_PARAMS_TYPE], registered.params) as unknown as [{ verifierID: bigint }];
    return decoded.verifierID;
  } catch (error) {
    throw new UnprocessableError(`request ${id} is registered on the UniversalVerifier without the V3 validator's params (${describeError(error)})`, { field: 'credentialRequest.circuitId' });
  }
}

/**
 * The profile nonce of the credential subject `subject` and its identity, refusing a subject that
 * is not a profile of a wallet identity: the circuit gives a nullifier only for a credential
 * issued to a profile DID (claimSubjectProfileNonce != 0).
 */
export function subjectProfileFor(ctx: Context, subject: string, request: CredentialRequest, session: NullifierSession): { genesisDid: string; nonce: bigint } {
  const profile = walletProfile(ctx, subject);
  const nonce = profile === undefined ? 0n : BigInt(profile.nonce);
  if (profile === undefined || nonce === 0n) {
    throw new UnprocessableError(
      `request ${request.id} asks for a nullifier (session ${session.sessionID}), which needs a credential issued to a profile DID of the holder (vc holder did create --profile-nonce N, then vc issuer issue --holder <that DID>); the credential subject ${subject} is not one`,
      { field: 'verifiableCredential.credentialSubject.id' },
    );
  }
  return { genesisDid: profile.genesisIdentifier, nonce };
}

/** The nullifier the circuit outputs for a credential issued to the profile `subject`. */
export async function expectedNullifier(ctx: Context, subject: { genesisDid: string; nonce: bigint }, session: NullifierSession): Promise<bigint> {
  const { core } = (await getIden3(ctx)).modules;
  const genesisID = core.DID.idFromDID(core.DID.parse(subject.genesisDid)).bigInt();
  const { poseidon } = await import('@iden3/js-crypto');
  return poseidon.hash([genesisID, subject.nonce, session.schema, session.verifierID, session.sessionID]);
}

/**
 * The address whose verified proof of request `requestId` gave `nullifier` first (the responses in
 * the order of their ResponseSubmitted events), or undefined when none did.
 */
export async function firstUserOfNullifier(ctx: Context, requestId: number, nullifier: bigint): Promise<string | undefined> {
  for (const sender of await requestSubmitters(ctx, requestId)) {
    const fields = await requestResponseFields(ctx, requestId, sender);
    if (fields.nullifier === nullifier) return sender;
  }
  return undefined;
}

/** Refuses (before proving) a nullifier that a verified proof of request `requestId` already gave, naming the address that gave it. */
export async function refuseUsedNullifier(ctx: Context, requestId: number, nullifier: bigint, session: NullifierSession): Promise<void> {
  const sender = await firstUserOfNullifier(ctx, requestId, nullifier);
  if (sender !== undefined) {
    throw new VerificationError(
      `nullifier ${nullifier} (session ${session.sessionID}) was already used for request ${requestId} by ${sender}: one proof per holder profile and session (the UniversalVerifier would accept it again from another address; vc refuses before proving)`,
      { field: 'credentialRequest.id' },
    );
  }
}
