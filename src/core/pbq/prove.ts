/**
 * Prove and submit (spec flow step 4): the holder generates the credentialAtomicQueryMTPV2OnChain
 * proof of the request's query over the credential, with the challenge bound to the address that
 * submits it (the validator checks challenge == sender, so a proof cannot be replayed by another
 * address), submits it to the UniversalVerifier with embedded auth (or ethIdentity, or a separate
 * authV2, authV3 or authV3-8-32 proof whose challenge binds the sender and the responses), waits for the receipt, and
 * reports the mapping `{ "<requestId>": true }` read back from the contract.
 */
import type { RevocationStatus, W3CCredential, ZeroKnowledgeProofResponse } from '@0xpolygonid/js-sdk';
import type { Context } from '../../context.js';
import { InputError, NotFoundError, UnprocessableError, VerificationError, describeError, isVcError, walkErrorCauses, type VcError } from '../../errors.js';
import { getChain } from '../../chain/chainClient.js';
import { AUTH_V2_METHOD, EMBEDDED_AUTH_METHOD, ETH_IDENTITY_METHOD } from '../../chain/deployment/recipe.js';
import { sendContractTransaction } from '../../chain/transactions.js';
import { isRequestProofVerified, requestIdExists } from '../../chain/universalVerifier.js';
import { authCircuitFamily, getIden3, getIden3Prover, proofCircuitsDir, requireAuthVerifier, type CircuitFamily, type Iden3 } from '../../iden3/wallet.js';
import type { ProofTiming } from '../../iden3/prover.js';
import { AUTH_LEVELS, AuthTreesTooDeepError, holderAuthDepthProblem } from '../../iden3/authDepth.js';
import { ethereumAddressOfDid, requireWalletIdentity } from './identities.js';
import { unknownDocumentError } from '../../iden3/documents.js';
import { universalVerifierAbi } from './request.js';
import { MTP_ON_CHAIN_CIRCUIT, PROOF_TYPES, isAuthProofMethod, type AuthMethodName, type AuthProofMethod, V3_ON_CHAIN_REQUEST_CIRCUIT, conditionOperator, queryValueShapeProblem, type CredentialRequest, type PbqCredentialInput } from './pbqSchemas.js';
import { plainFieldNames, type FieldNamer } from '../validate.js';
import { expectedNullifier, refuseUsedNullifier, registeredNullifierSession, registeredVerifierId, subjectProfileFor, type NullifierSession } from './nullifier.js';

/** The function selector of UniversalVerifier.submitResponse (what the js-sdk packs for). */
export const SUBMIT_RESPONSE_METHOD_ID = '06c86a91';

/** Result of prove-submit: the request id mapped to true, plus where it happened. */
export interface ProveSubmitResult {
  [requestId: string]: unknown;
  txHash: string;
  verifier: string;
  sender: string;
  blockNumber: number;
}

/** A generated proof ready to submit. */
export interface GeneratedProof {
  response: ZeroKnowledgeProofResponse;
  timing: ProofTiming | undefined;
}

export interface ProveOptions {
  credential: PbqCredentialInput;
  request: CredentialRequest;
  /**
   * Check the query and revocation before proving (default true) for a clear, early refusal.
   * Off, the circuit itself is left to reject what does not hold (tests use this).
   */
  precheck?: boolean;
  /** How the caller names input fields (`verifiableCredential...`, `credentialRequest...`) in messages. */
  names?: FieldNamer | undefined;
  /** The request's nullifier session as registered on chain, when the caller read it already (V3). */
  nullifierSession?: NullifierSession | undefined;
  /**
   * Called once the submission is broadcast, before its receipt is waited for, with the proof and
   * the transaction's hash: a caller journals them, so that a re-run after a crash finds the
   * submission instead of making a second one (vc holder respond, contract-invoke).
   */
  onSubmitted?: ((sent: { response: ZeroKnowledgeProofResponse; txHash: string }) => void) | undefined;
  /**
   * The UniversalVerifier auth method to submit with (pbqSchemas' AUTH_METHODS); by default
   * embeddedAuth, or ethIdentity for an Ethereum-based DID.
   */
  auth?: AuthMethodName | undefined;
}

function compare(op: string, actual: unknown, expected: unknown): boolean {
  const num = (v: unknown): number | string => (typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : String(v));
  const a = num(actual);
  const bounds = Array.isArray(expected) ? expected.map(num) : [];
  switch (op) {
    case '$lte':
      return a <= num(expected);
    case '$gte':
      return a >= num(expected);
    case '$between':
      return bounds.length === 2 && a >= bounds[0]! && a <= bounds[1]!;
    case '$nonbetween':
      return bounds.length === 2 && (a < bounds[0]! || a > bounds[1]!);
    case '$exists':
    case '$sd':
      return true;
    case '$eq':
      return a === num(expected);
    case '$ne':
      return a !== num(expected);
    case '$lt':
      return a < num(expected);
    case '$gt':
      return a > num(expected);
    case '$in':
      return Array.isArray(expected) && expected.map(num).includes(a);
    case '$nin':
      return Array.isArray(expected) && !expected.map(num).includes(a);
    default:
      return true;
  }
}

/** Refuses early, with the reason, a credential that does not fit the request (its type, context, issuer and query). */
export function checkCredentialAgainstRequest(credential: W3CCredential, request: CredentialRequest): void {
  if (!credential.type.includes(request.query.type)) {
    throw new UnprocessableError(`the credential is a ${credential.type.join('/')}, the request asks for a ${request.query.type}`, { field: 'credentialRequest.query.type' });
  }
  if (!credential['@context'].includes(request.query.context)) {
    throw new UnprocessableError(`the credential does not use the request's context ${request.query.context}`, { field: 'credentialRequest.query.context' });
  }
  const allowed = request.query.allowedIssuers;
  if (!allowed.includes('*') && !allowed.includes(credential.issuer)) {
    throw new VerificationError(`the credential's issuer ${credential.issuer} is not among the request's allowedIssuers`, { field: 'credentialRequest.query.allowedIssuers' });
  }
  for (const [field, condition] of Object.entries(request.query.credentialSubject)) {
    const { op, value: expected } = conditionOperator(condition);
    // Its own fields only: `constructor` or `toString` is no field of a credential that has none.
    const actual = Object.hasOwn(credential.credentialSubject, field) ? credential.credentialSubject[field] : undefined;
    if (op === '$exists') {
      if ((actual !== undefined) !== expected) {
        throw new VerificationError(`the credential does not satisfy the query: credentialSubject.${field} ${actual === undefined ? 'does not exist' : 'exists'}, the request asks $exists ${String(expected)}`, {
          field: `verifiableCredential.credentialSubject.${field}`,
        });
      }
      continue;
    }
    if (actual === undefined) throw new VerificationError(`the credential has no credentialSubject.${field}`, { field: `verifiableCredential.credentialSubject.${field}` });
    if (!compare(op, actual, expected)) {
      throw new VerificationError(`the credential does not satisfy the query: credentialSubject.${field} = ${JSON.stringify(actual)} is not ${op} ${JSON.stringify(expected)}`, {
        field: `verifiableCredential.credentialSubject.${field}`,
      });
    }
  }
}

/**
 * Refuses, before the circuits, the chain or the prover are waited for, what cannot be proved
 * whatever the query: an expired credential (by the context's clock), a request whose value does
 * not fit the circuit, and JSON-LD contexts vc does not have (they resolve offline only).
 */
export async function checkProofInputs(ctx: Context, options: Pick<ProveOptions, 'credential' | 'request' | 'names'>): Promise<void> {
  const { credential, request } = options;
  const names = options.names ?? plainFieldNames;
  const expiration: unknown = credential.expirationDate;
  if (expiration !== undefined) {
    const expiresAt = new Date(String(expiration));
    if (Number.isNaN(expiresAt.getTime())) {
      throw new InputError(`${names('verifiableCredential.expirationDate')}: ${JSON.stringify(expiration)} is not an ISO 8601 date-time`, { field: 'verifiableCredential.expirationDate' });
    }
    if (expiresAt.getTime() <= ctx.now().getTime()) {
      throw new VerificationError(`${names('verifiableCredential.expirationDate')}: the credential expired at ${expiresAt.toISOString()}`, { field: 'verifiableCredential.expirationDate' });
    }
  }
  for (const [field, condition] of Object.entries(request.query.credentialSubject)) {
    const { op, value } = conditionOperator(condition);
    const problem = queryValueShapeProblem(op, value);
    const path = `credentialRequest.query.credentialSubject.${field}.${op}`;
    if (problem !== undefined) throw new InputError(`${names(path)}: ${problem}`, { field: path });
  }
  const documents = (await getIden3(ctx)).documents;
  const contexts: Array<[unknown, string]> = [...credential['@context'].map((url, i): [unknown, string] => [url, `verifiableCredential.@context[${i}]`]), [request.query.context, 'credentialRequest.query.context']];
  for (const [url, field] of contexts) {
    if (typeof url !== 'string') throw new UnprocessableError(`${names(field)}: expected the URL of a JSON-LD context (an inline context is not accepted)`, { field });
    // The js-sdk's own core contexts (credentials v1, iden3 proofs) come through its loader.
    if (documents.document(url) !== undefined) continue;
    try {
      await documents.loader()(url);
    } catch {
      throw unknownDocumentError(url, 'JSON-LD context', field, names(field));
    }
  }
}

/** Our error behind a library error (jsonld keeps a loader's error in details.cause), if any. */
function vcErrorBehind(error: unknown): VcError | undefined {
  return walkErrorCauses(error, isVcError) as VcError | undefined;
}

/**
 * The revocation status of a credential as its status says (the RHS, the chain's tree store, the
 * issuer's agent); a status vc refuses to resolve is about the input, an unreachable service a
 * network failure, anything else a VerificationError.
 */
export async function credentialRevocationStatus(ctx: Context, credential: W3CCredential, names: FieldNamer | undefined): Promise<RevocationStatus> {
  const iden3 = await getIden3(ctx);
  try {
    return await iden3.credentialWallet.getRevocationStatusFromCredential(credential);
  } catch (error) {
    // A status vc refuses to resolve (another chain's, a contract that is not the chain's
    // IdentityTreeStore) is about the input, named as such.
    if (error instanceof UnprocessableError) {
      const field = 'verifiableCredential.credentialStatus';
      throw new UnprocessableError(`${(names ?? plainFieldNames)(field)}: ${error.message}`, { field, cause: error });
    }
    // An unreachable chain or reverse hash service is a network failure (exit 4), not a verdict.
    if (isVcError(error) && !(error instanceof VerificationError)) throw error;
    throw new VerificationError(`cannot resolve the revocation status of the credential: ${describeError(error)}`, { field: 'verifiableCredential.credentialStatus', cause: error });
  }
}

/** The circuits a proof-and-submit uses: the query's, and the auth circuit of an auth-proof method (authV2, authV3, authV3-8-32). */
function circuitFamily(request: CredentialRequest, auth: AuthMethodName | undefined): CircuitFamily {
  if (request.circuitId === MTP_ON_CHAIN_CIRCUIT) return 'mtp';
  return isAuthProofMethod(auth) ? authCircuitFamily(auth) : 'v3';
}

/** What the checks before a query proof read: the credential, its holder, its nullifier session and the verifier DID it binds to. */
export interface CheckedQueryProof {
  credential: W3CCredential;
  holder: string;
  session: NullifierSession | undefined;
  verifierDid: ReturnType<Iden3['modules']['core']['DID']['parseFromId']> | undefined;
}

/**
 * Every check of a query proof's inputs that can fail before the prover runs (the credential's
 * proofs against the request's, its holder against the sender and the auth method, its values
 * against the query, the request's nullifier session and verifier): a caller submitting several
 * proofs runs these for all of them before the first submission (vc holder respond, contract-invoke).
 */
export async function checkQueryProofInputs(ctx: Context, options: ProveOptions & { sender: string }): Promise<CheckedQueryProof> {
  await checkProofInputs(ctx, options);
  const iden3 = await getIden3(ctx);
  const { sdk, core } = iden3.modules;
  let credential: W3CCredential;
  try {
    credential = sdk.W3CCredential.fromJSON(options.credential as never);
  } catch (error) {
    throw new UnprocessableError(`the credential cannot be read as an iden3 credential: ${describeError(error)}`, { field: 'verifiableCredential' });
  }
  const v3 = options.request.circuitId !== MTP_ON_CHAIN_CIRCUIT;
  const hasMtp = credential.getIden3SparseMerkleTreeProof() !== undefined;
  const hasSignature = credential.getBJJSignature2021Proof() !== undefined;
  const wanted = options.request.query.proofType;
  if (!v3 && !hasMtp) {
    throw new UnprocessableError('the credential has no Iden3SparseMerkleTreeProof (its issuance was not published on chain)', { field: 'verifiableCredential.proof' });
  }
  if (v3 && wanted === PROOF_TYPES.mtp && !hasMtp) {
    throw new UnprocessableError(`the request asks for an ${PROOF_TYPES.mtp} proof, and the credential has none yet (its issuance was not published on chain: \`vc issuer publish\`, then fetch it again)`, {
      field: 'verifiableCredential.proof',
    });
  }
  if (v3 && wanted === PROOF_TYPES.sig && !hasSignature) {
    throw new UnprocessableError(`the request asks for a ${PROOF_TYPES.sig} proof, and the credential has no issuer signature`, { field: 'verifiableCredential.proof' });
  }
  if (v3 && !hasMtp && !hasSignature) {
    throw new UnprocessableError(`the credential has neither a ${PROOF_TYPES.sig} nor an ${PROOF_TYPES.mtp} proof`, { field: 'verifiableCredential.proof' });
  }
  const holder = String(credential.credentialSubject.id);
  requireWalletIdentity(ctx, holder, 'the credential subject');
  const holderAddress = await ethereumAddressOfDid(ctx, holder);
  if (holderAddress !== undefined) {
    // An Ethereum-based identity has no BJJ key to sign the challenge: the V3 circuit proves it
    // with isBJJAuthEnabled 0, and the UniversalVerifier takes the sender as the user (ethIdentity).
    const field = 'verifiableCredential.credentialSubject.id';
    if (!v3) {
      throw new UnprocessableError(`${(options.names ?? plainFieldNames)(field)}: ${holder} is an Ethereum-based identity, which ${MTP_ON_CHAIN_CIRCUIT} cannot prove (its auth is a BJJ signature inside the proof); ask with a V3 request (--circuit credentialAtomicQueryV3OnChain)`, { field });
    }
    if (holderAddress.toLowerCase() !== options.sender.toLowerCase()) {
      throw new UnprocessableError(`${(options.names ?? plainFieldNames)(field)}: ${holder} is the Ethereum identity of ${holderAddress}, and this wallet sends from ${options.sender}; the UniversalVerifier accepts its proofs only from that address (set WALLET_KEY to its key)`, { field });
    }
  }
  refuseAuthMethod(options, holder, holderAddress);
  if (options.precheck !== false) checkCredentialAgainstRequest(credential, options.request);
  const session = v3 ? (options.nullifierSession ?? (await registeredNullifierSession(ctx, options.request, options.names))) : undefined;
  if (session !== undefined && options.precheck !== false) subjectProfileFor(ctx, holder, options.request, session);
  // A request bound to the verifier (a nullifier session, or --bind-verifier): the proof carries its verifierID.
  const verifierID = session?.verifierID ?? (v3 ? await registeredVerifierId(ctx, options.request.id) : 0n);
  let verifierDid;
  if (verifierID !== 0n) {
    try {
      // The js-sdk takes the verifier as a DID (iden3comm's "from"); the UniversalVerifier's id is of type 0x01A1 (did:iden3:privado:main).
      verifierDid = core.DID.parseFromId(core.Id.fromBigInt(verifierID));
    } catch (error) {
      throw new UnprocessableError(`request ${options.request.id}: its verifierID ${verifierID} is not an iden3 id vc can read (${describeError(error)})`, { field: 'credentialRequest.id' });
    }
  }
  return { credential, holder, session, verifierDid };
}

/** Generates the on-chain query proof for `sender` (the address that will submit it). */
export async function generateQueryProof(ctx: Context, options: ProveOptions & { sender: string }, checked?: CheckedQueryProof): Promise<GeneratedProof> {
  // The inputs as checkQueryProofInputs read them (given by a caller that checked them already).
  const { credential, holder, session, verifierDid } = checked ?? (await checkQueryProofInputs(ctx, options));
  const iden3 = await getIden3(ctx);
  const { sdk, core } = iden3.modules;
  const v3 = options.request.circuitId !== MTP_ON_CHAIN_CIRCUIT;
  const revocation = await credentialRevocationStatus(ctx, credential, options.names);
  if (options.precheck !== false && revocation.mtp.existence) {
    throw new VerificationError(`the credential is revoked (revocation nonce ${credential.credentialStatus.revocationNonce} is in the issuer's revocation tree)`, {
      field: 'verifiableCredential.credentialStatus',
    });
  }

  const { proofService, prover } = await getIden3Prover(ctx, circuitFamily(options.request, options.auth));
  const before = prover.proofsGenerated;
  const step = ctx.progress.start(`generating the ${options.request.circuitId} proof`);
  try {
    const response = await proofService.generateProof(
      {
        id: options.request.id,
        circuitId: v3 ? sdk.CircuitId.AtomicQueryV3OnChainStable : sdk.CircuitId.AtomicQueryMTPV2OnChain,
        query: options.request.query as never,
        ...(session === undefined ? {} : { params: { nullifierSessionId: session.sessionID.toString() } }),
      },
      core.DID.parse(holder),
      {
        credential,
        credentialRevocationStatus: revocation,
        skipRevocation: false,
        challenge: sdk.getChallengeFromEthAddress(options.sender),
        ...(verifierDid === undefined ? {} : { verifierDid }),
      },
    );
    step.succeed('proof generated');
    // Kept in the holder's wallet once it proved (so it is genuine), and never over a stored one.
    if ((await iden3.credentialWallet.findById(credential.id)) === undefined) await iden3.credentialWallet.save(credential);
    return { response, timing: prover.timingOf(before) };
  } catch (error) {
    step.fail();
    throw proofFailure(sdk, error, credential, options.names, v3 ? V3_ON_CHAIN_REQUEST_CIRCUIT : undefined);
  }
}

/**
 * What a failure of the js-sdk's proof generation means for the user: vc's own error behind it,
 * an expired credential, JSON-LD the credential's contexts refuse, missing circuit files, the
 * circuit refusing the inputs; otherwise the error itself.
 */
export function proofFailure(sdk: Iden3['modules']['sdk'], error: unknown, credential: W3CCredential, names: FieldNamer | undefined, fullCircuit: string | undefined): unknown {
  const ours = vcErrorBehind(error);
  if (ours !== undefined) return ours;
  const message = describeError(error);
  if (message === sdk.VerifiableConstants.ERRORS.PROOF_SERVICE_CREDENTIAL_IS_EXPIRED) {
    // The js-sdk reads the system clock, which may be past the context's clock checked above.
    return new VerificationError(`${(names ?? plainFieldNames)('verifiableCredential.expirationDate')}: the credential expired at ${String(credential.expirationDate)}`, { field: 'verifiableCredential.expirationDate', cause: error });
  }
  // JSON-LD processing of the credential (merklization) refusing its content is about the input.
  const name = (error as { name?: unknown }).name;
  if ((typeof name === 'string' && name.startsWith('jsonld.')) || /Safe mode validation error|multiple parents found/i.test(message)) {
    return new UnprocessableError(`${(names ?? plainFieldNames)('verifiableCredential')}: the credential is not valid JSON-LD under its contexts (${message.split('\n')[0]!.slice(0, 160)}); ids must be absolute IRIs and each node may appear once`, {
      field: 'verifiableCredential',
      cause: error,
    });
  }
  if (/circuit files of .* are incomplete|no such file/i.test(message) && fullCircuit !== undefined) {
    // The js-sdk chose the full-size circuit (a tree deeper than the small size holds).
    return new UnprocessableError(`the credential's trees need the full-size V3 circuit: build it with \`vc circuits build --circuit ${fullCircuit}\` (${message})`, { cause: error });
  }
  if (/assert|constraint|witness/i.test(message)) {
    return new VerificationError(`the circuit refused the inputs: the credential does not satisfy the query, or it is revoked (${message})`, { cause: error });
  }
  return error;
}

/**
 * The ethIdentity auth response for user id `userId`: EthIdentityValidator.verify reads its proof
 * as `abi.decode(proof, (uint256))`, a big-endian word. (js-sdk 1.45's packEthIdentityProof writes
 * the id's bytes little-endian, which the contract reads as another id: SenderIsNotIdentityOwner.)
 */
export async function ethIdentityAuthResponse(userId: bigint): Promise<{ authMethod: string; proof: string }> {
  const { AbiCoder } = await import('ethers');
  return { authMethod: ETH_IDENTITY_METHOD, proof: AbiCoder.defaultAbiCoder().encode(['uint256'], [userId]) };
}

/** Refuses an auth method the request's circuit cannot use (before any circuit is built). */
function refuseAuthForRequest(options: Pick<ProveOptions, 'auth' | 'request' | 'names'>): void {
  if (isAuthProofMethod(options.auth) && options.request.circuitId === MTP_ON_CHAIN_CIRCUIT) {
    const flag = (options.names ?? plainFieldNames)('auth');
    throw new InputError(`${flag}: ${options.auth} is for ${V3_ON_CHAIN_REQUEST_CIRCUIT} requests; a ${MTP_ON_CHAIN_CIRCUIT} proof carries its own auth (${EMBEDDED_AUTH_METHOD})`, { field: 'auth' });
  }
}

/** Refuses an auth method the request or the holder's DID cannot use, naming the field. */
function refuseAuthMethod(options: Pick<ProveOptions, 'auth' | 'request' | 'names'>, holder: string, holderAddress: string | undefined): void {
  refuseAuthForRequest(options);
  const auth = options.auth;
  if (auth === undefined) return;
  const flag = (options.names ?? plainFieldNames)('auth');
  if (holderAddress !== undefined && auth !== ETH_IDENTITY_METHOD) {
    throw new UnprocessableError(`${flag}: ${holder} is an Ethereum-based identity, which has no BJJ auth key for ${auth}; it submits with ${ETH_IDENTITY_METHOD} (the default for it)`, { field: 'auth' });
  }
  if (holderAddress === undefined && auth === ETH_IDENTITY_METHOD) {
    throw new UnprocessableError(`${flag}: ${ETH_IDENTITY_METHOD} is for a holder whose DID is its Ethereum address, and ${holder} is not one; use ${EMBEDDED_AUTH_METHOD}, ${AUTH_V2_METHOD}, authV3 or authV3-8-32`, { field: 'auth' });
  }
}

/**
 * The challenge of an auth proof (authV2, authV3, authV3-8-32: their validators and the UniversalVerifier alike) for these responses from `sender`, as the
 * UniversalVerifier computes it in submitResponse: keccak256(abi.encode(sender, responses)) with
 * its top four bits cleared (so it is a field element), over the exact responses submitted.
 */
export async function authProofChallenge(sender: string, responses: ReadonlyArray<{ requestId: unknown; proof: string; metadata: string }>): Promise<bigint> {
  const { AbiCoder, keccak256 } = await import('ethers');
  const encoded = AbiCoder.defaultAbiCoder().encode(
    ['address', 'tuple(uint256 requestId, bytes proof, bytes metadata)[]'],
    [sender, responses.map((response) => [response.requestId, response.proof, response.metadata])],
  );
  return BigInt(keccak256(encoded)) & ((1n << 252n) - 1n);
}

/** A Groth16 proof as AuthV2Validator.verify (and AuthV3Validator's, AuthV3_8_32Validator's) decodes it: abi.encode(uint256[] inputs, a, b, c), b's coordinates in the EVM's order. */
export async function packAuthProof(proof: { proof: { pi_a: string[]; pi_b: string[][]; pi_c: string[] }; pub_signals: string[] }): Promise<string> {
  const { AbiCoder } = await import('ethers');
  const { pi_a: a, pi_b: b, pi_c: c } = proof.proof;
  return AbiCoder.defaultAbiCoder().encode(
    ['uint256[]', 'uint256[2]', 'uint256[2][2]', 'uint256[2]'],
    [proof.pub_signals, [a[0], a[1]], [[b[0]![1], b[0]![0]], [b[1]![1], b[1]![0]]], [c[0], c[1]]],
  );
}

/** What submitQueryProof needs for an auth-proof response: the holder whose auth proof it makes, and its circuit (the method's name). */
export interface AuthProofSubmission {
  holder: string;
  method: AuthProofMethod;
}

/**
 * Why `holder`'s auth proof of `circuit` cannot be made (its claims or revocation tree, or the
 * chain's GIST, deeper than the circuit holds), or undefined; read from the wallet's trees and the
 * chain, no proof made (refused, naming why, when its inputs cannot be made: the auth proof would fail on it).
 */
export async function authProofDepthProblem(ctx: Context, holder: string, circuit: AuthProofMethod): Promise<string | undefined> {
  const iden3 = await getIden3(ctx);
  const { proofService } = await getIden3Prover(ctx, authCircuitFamily(circuit));
  try {
    return await holderAuthDepthProblem(proofService, iden3.modules.core.DID.parse(holder), circuit);
  } catch (error) {
    // What the auth proof would fail on after the query proof, said before it.
    throw vcErrorBehind(error) ?? new UnprocessableError(`the ${circuit} proof of ${holder} cannot be made: ${describeError(error)}`, { cause: error });
  }
}

/** Refuses an auth method whose circuit cannot hold `holder`'s auth proof, naming the depth and the way out. */
async function refuseTooDeepAuth(ctx: Context, options: Pick<ProveOptions, 'names'>, holder: string, circuit: AuthProofMethod): Promise<void> {
  const problem = await authProofDepthProblem(ctx, holder, circuit);
  if (problem === undefined) return;
  const flag = (options.names ?? plainFieldNames)('auth');
  const larger = (['authV3'] as const).find((bigger) => AUTH_LEVELS[bigger].identity > AUTH_LEVELS[circuit].identity);
  // The flag (`--auth authV3`), the HTTP field (auth: authV3), or a contract-invoke item's accept profiles.
  const named = (method: string): string => (flag.startsWith('--') ? `\`${flag} ${method}\`` : /^[\w.]+$/.test(flag) ? `${flag}: ${method}` : `${method} (a request whose accept profiles allow it)`);
  const way =
    larger === undefined
      ? `submit with ${named(EMBEDDED_AUTH_METHOD)} instead`
      : `use ${named(larger)} (${AUTH_LEVELS[larger].identity} levels of the holder's trees, ${AUTH_LEVELS[larger].gist} of the GIST) or ${EMBEDDED_AUTH_METHOD}`;
  throw new AuthTreesTooDeepError(`${flag}: the ${circuit} auth proof of ${holder} cannot be made: ${problem}; ${way}`, { field: 'auth' });
}

/** Generates the holder's auth proof of `circuit` (authV2, authV3, authV3-8-32) for `challenge` with vc's prover (the circuits of its family). */
async function generateAuthProof(
  ctx: Context,
  holder: string,
  circuit: AuthProofMethod,
  challenge: bigint,
): Promise<{ proof: { pi_a: string[]; pi_b: string[][]; pi_c: string[] }; pub_signals: string[] }> {
  const iden3 = await getIden3(ctx);
  const { core } = iden3.modules;
  const { proofService } = await getIden3Prover(ctx, authCircuitFamily(circuit));
  const step = ctx.progress.start(`generating the ${circuit} auth proof`);
  try {
    const auth = await proofService.generateAuthProof(circuit as never, core.DID.parse(holder), { challenge });
    step.succeed('auth proof generated');
    return auth as never;
  } catch (error) {
    step.fail();
    throw vcErrorBehind(error) ?? new UnprocessableError(`the ${circuit} proof of ${holder} could not be made: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Submits a generated proof to the UniversalVerifier from the configured wallet: with embedded
 * auth, ethIdentity for a V3 proof without BJJ auth, or (`auth`) with the holder's authV2, authV3 or authV3-8-32 proof
 * over the challenge the contract computes from the sender and the responses.
 */
export async function submitQueryProof(
  ctx: Context,
  proof: ZeroKnowledgeProofResponse,
  options: { auth?: AuthProofSubmission; onSubmitted?: ProveOptions['onSubmitted'] } = {},
): Promise<{ txHash: string; blockNumber: number; verifier: string; sender: string; authMethod: string }> {
  const iden3 = await getIden3(ctx);
  const { sdk } = iden3.modules;
  const chain = await getChain(ctx);
  const verifier = chain.addresses.universalVerifier;
  // A V3 proof without BJJ auth (its last public signal 0) is an Ethereum-based identity's: the
  // sender authenticates it (ethIdentity), naming the user id the proof's first signal holds.
  const signals = proof.pub_signals;
  const ethIdentity = proof.circuitId !== MTP_ON_CHAIN_CIRCUIT && signals.at(-1) === '0';
  // Same-chain DIDs need no cross-chain state proofs, so the resolver URL is never called.
  const { txDataArgs } = await sdk.OnChainZKPVerifier.prepareTxArgsSubmit(
    'http://127.0.0.1:0/unused-cross-chain-resolver',
    { contract_address: verifier, method_id: SUBMIT_RESPONSE_METHOD_ID, chain_id: chain.chainId },
    [proof],
    { authMethod: sdk.AuthMethod.EMBEDDED_AUTH } as never,
  );
  if (ethIdentity) txDataArgs[0] = await ethIdentityAuthResponse(BigInt(signals[0]!));
  else if (options.auth !== undefined) {
    const responses = txDataArgs[1] as Array<{ requestId: unknown; proof: string; metadata: string }>;
    const auth = await generateAuthProof(ctx, options.auth.holder, options.auth.method, await authProofChallenge(chain.signer.address, responses));
    txDataArgs[0] = { authMethod: options.auth.method, proof: await packAuthProof(auth) };
  }
  const authMethod = (txDataArgs[0] as { authMethod: string }).authMethod;
  const sent = await sendContractTransaction(
    ctx,
    { address: verifier, abi: universalVerifierAbi(), method: 'submitResponse', args: txDataArgs },
    {
      description: `submit the proof for request ${proof.id} to the UniversalVerifier (${authMethod})`,
      ...(options.onSubmitted === undefined ? {} : { onSent: ({ hash }: { hash: string }) => options.onSubmitted!({ response: proof, txHash: hash }) }),
    },
  );
  return { txHash: sent.hash, blockNumber: sent.blockNumber, verifier, sender: chain.signer.address, authMethod };
}

/** What checkProveAndSubmit found: the request's nullifier session and the checked query proof inputs. */
export interface CheckedSubmission {
  nullifierSession: NullifierSession | undefined;
  query: CheckedQueryProof;
}

/**
 * Every check of proveAndSubmit that can fail before its proof is generated (the inputs, the auth
 * method, the circuits built, the request on chain, "already verified", a used nullifier, the
 * credential against the request): a caller submitting several proofs runs it for each first.
 */
export async function checkProveAndSubmit(ctx: Context, options: ProveOptions): Promise<CheckedSubmission> {
  await checkProofInputs(ctx, options);
  refuseAuthForRequest(options);
  if (options.auth !== undefined) {
    // The holder's kind of DID against the method, before the chain or the circuits (a DID vc
    // cannot read is refused, naming it, when the proof is generated).
    const holder = String(options.credential.credentialSubject.id);
    const holderAddress = await ethereumAddressOfDid(ctx, holder).catch(() => null);
    if (holderAddress !== null) refuseAuthMethod(options, holder, holderAddress);
  }
  await proofCircuitsDir(ctx, circuitFamily(options.request, options.auth));
  // Before any proof: the chain's verifier of the auth method must verify proofs of that circuit in use.
  if (isAuthProofMethod(options.auth)) {
    await requireAuthVerifier(ctx, options.auth);
    // The wallet knows the holder's trees: one too deep for the circuit is refused before the query proof.
    await refuseTooDeepAuth(ctx, options, String(options.credential.credentialSubject.id), options.auth);
  }
  const chain = await getChain(ctx);
  const verifier = chain.addresses.universalVerifier;
  const sender = chain.signer.address;
  const id = options.request.id;
  if (!(await requestIdExists(ctx, id))) throw new NotFoundError(`request ${id} is not registered on the UniversalVerifier ${verifier} (the verifier creates and registers it first)`, { field: 'credentialRequest.id' });
  const nullifierSession = await registeredNullifierSession(ctx, options.request, options.names);
  if (options.precheck !== false) {
    // First: a re-run from the address that proved already is refused as the contract would
    // (its own nullifier is on chain too, but that is not another address reusing it).
    const verified = await isRequestProofVerified(ctx, sender, id);
    if (verified) throw new VerificationError(`ProofAlreadyVerified(requestId=${id}, sender=${sender}): this address already has a verified proof for request ${id}`, { field: 'credentialRequest.id' });
  }
  if (nullifierSession !== undefined && options.precheck !== false) {
    // The contracts accept a nullifier again from another address: vc reads those on chain first.
    const profile = subjectProfileFor(ctx, String(options.credential.credentialSubject.id), options.request, nullifierSession);
    await refuseUsedNullifier(ctx, id, await expectedNullifier(ctx, profile, nullifierSession), nullifierSession);
  }
  const query = await checkQueryProofInputs(ctx, { ...options, sender, nullifierSession });
  return { nullifierSession, query };
}

/** `vc holder prove-submit` / POST /generate-submit-proof: proves the request's query over the credential and submits it, once every check passed. */
export async function proveAndSubmit(ctx: Context, options: ProveOptions & { checked?: CheckedSubmission | undefined }): Promise<ProveSubmitResult> {
  // Checked here, or by the caller just before (a contract-invoke answer checks every item first).
  const { nullifierSession, query } = options.checked ?? (await checkProveAndSubmit(ctx, options));
  const chain = await getChain(ctx);
  const sender = chain.signer.address;
  const id = options.request.id;
  const { response } = await generateQueryProof(ctx, { ...options, sender, nullifierSession }, query);
  const submitted = await submitQueryProof(ctx, response, {
    ...(isAuthProofMethod(options.auth) ? { auth: { holder: String(options.credential.credentialSubject.id), method: options.auth } } : {}),
    onSubmitted: options.onSubmitted,
  });
  const verified = await isRequestProofVerified(ctx, sender, id);
  if (!verified) throw new VerificationError(`the UniversalVerifier did not record a verified proof for request ${id} (tx ${submitted.txHash})`);
  return { [String(id)]: true, ...submitted };
}
