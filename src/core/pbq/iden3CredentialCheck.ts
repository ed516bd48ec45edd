/**
 * Checks an iden3 credential a holder is given to keep, as far as vc can without a DID resolver
 * on the network: every iden3 proof it carries must hold against the issuer's state, and that
 * state must be the one the issuer published on chain (or, for a signature made before any
 * publication, the issuer's genesis state). Then its status: not revoked, not expired.
 *
 * - Iden3SparseMerkleTreeProof: the proof's core claim is the claim of the credential's content
 *   (merklized offline), its Merkle proof leads to the claims tree root of the issuer state it
 *   names, that state is the hash of its three roots, and the State contract knows it for the issuer.
 * - BJJSignature2021: the same claim, signed (BabyJubJub, Poseidon) by the key of the issuer's
 *   auth claim, which its Merkle proof puts in the issuer's claims tree at the named state (on
 *   chain, or the genesis state the issuer's DID commits to), and which is not revoked.
 *
 * A failed check is an UnprocessableError naming the proof (`credential.proof[1]`) and the reason.
 */
import type { W3CCredential } from '@0xpolygonid/js-sdk';
import type { Claim } from '@iden3/js-iden3-core';
import type { Hash, Proof } from '@iden3/js-merkletree';
import type { Context } from '../../context.js';
import { NetworkError, UnprocessableError, VerificationError, describeError, isVcError, walkErrorCauses, type VcError } from '../../errors.js';
import { getIden3, type Iden3 } from '../../iden3/wallet.js';
import { joinPath, parseInput, type FieldNamer } from '../validate.js';
import { unsupportedIden3StatusProblem } from '../../iden3/statusTypes.js';
import { pbqCredentialSchema } from './pbqSchemas.js';

interface IssuerState {
  claimsTreeRoot: Hash;
  revocationTreeRoot: Hash;
  rootOfRoots: Hash;
  value: Hash;
}

interface MtpProofObject {
  type: string;
  coreClaim: Claim;
  mtp: Proof;
  issuerData: { id: { string(): string }; state: IssuerState };
}

interface SignatureProofObject {
  type: string;
  coreClaim: Claim;
  signature: unknown;
  issuerData: { id: { string(): string }; state: IssuerState; mtp: Proof; authCoreClaim: Claim; credentialStatus: unknown };
}

/** What the check found: the proofs that held, by type. */
export interface Iden3CredentialCheck {
  proofs: string[];
}

class Refusal extends Error {}

/** Our error behind a library error (the document loader's refusal of an unknown context), if any. */
function vcErrorBehind(error: unknown): VcError | undefined {
  return walkErrorCauses(error, isVcError) as VcError | undefined;
}

/** The claim the credential's content makes, built with the options the proof's claim was made with. */
async function claimOfContent(iden3: Iden3, credential: W3CCredential, fromProof: Claim): Promise<Claim> {
  const { core } = iden3.modules;
  const rootPositions: Record<number, '' | 'index' | 'value'> = {
    [core.MerklizedRootPosition.None]: '',
    [core.MerklizedRootPosition.Index]: 'index',
    [core.MerklizedRootPosition.Value]: 'value',
  };
  const subjectPositions: Record<number, '' | 'index' | 'value'> = { [core.IdPosition.None]: '', [core.IdPosition.Index]: 'index', [core.IdPosition.Value]: 'value' };
  return credential.toCoreClaim({
    revNonce: Number(fromProof.getRevocationNonce()),
    version: fromProof.getVersion(),
    merklizedRootPosition: rootPositions[fromProof.getMerklizedPosition()] ?? '',
    subjectPosition: subjectPositions[fromProof.getIdPosition()] ?? '',
    updatable: fromProof.getFlagUpdatable(),
    merklizeOpts: { documentLoader: iden3.documents.loader() as never, hasher: iden3.hasher } as never,
  } as never);
}

/** Refuses a state whose value is not the hash of its three roots. */
function checkStateValue(iden3: Iden3, state: IssuerState): void {
  const { hashElems } = iden3.modules.mt;
  const value = hashElems([state.claimsTreeRoot.bigInt(), state.revocationTreeRoot.bigInt(), state.rootOfRoots.bigInt()]);
  if (value.bigInt() !== state.value.bigInt()) throw new Refusal(`issuerData.state.value ${state.value.hex()} is not the hash of the three tree roots it names`);
}

/** Refuses a state the issuer never published (on the State contract), unless it is the issuer's genesis state and that is allowed. */
async function checkStatePublished(iden3: Iden3, issuer: string, state: IssuerState, genesisAllowed: boolean): Promise<void> {
  const { core, sdk } = iden3.modules;
  const did = core.DID.parse(issuer);
  if (genesisAllowed && sdk.isGenesisState(did, state.value.bigInt())) return;
  try {
    const info = await iden3.states.getStateInfoByIdAndState(core.DID.idFromDID(did).bigInt(), state.value.bigInt());
    if (info.state !== state.value.bigInt()) throw new Refusal(`the State contract does not know the issuer state ${state.value.hex()}`);
  } catch (error) {
    if (error instanceof Refusal) throw error;
    // An unreachable chain is not a verdict on the credential (exit 4).
    if (error instanceof NetworkError) throw error;
    throw new Refusal(`the issuer state ${state.value.hex()} is not published on chain for ${issuer} (${describeError(error).split('\n')[0]!.slice(0, 160)})`);
  }
}

async function checkClaimMatches(iden3: Iden3, credential: W3CCredential, claim: Claim): Promise<void> {
  let content: Claim;
  try {
    content = await claimOfContent(iden3, credential, claim);
  } catch (error) {
    const ours = vcErrorBehind(error);
    if (ours !== undefined) throw new Refusal(ours.message);
    throw new Refusal(`the credential's content cannot be read as an iden3 claim (${describeError(error).split('\n')[0]!.slice(0, 160)})`);
  }
  if (content.hex() !== claim.hex()) {
    throw new Refusal("its coreClaim is not the claim of the credential's content: the credential was changed after it was issued, or the proof is another credential's");
  }
}

async function checkMtpProof(iden3: Iden3, credential: W3CCredential, proof: MtpProofObject): Promise<void> {
  await checkClaimMatches(iden3, credential, proof.coreClaim);
  const { hi, hv } = proof.coreClaim.hiHv();
  const root = await iden3.modules.mt.rootFromProof(proof.mtp, hi, hv);
  if (!proof.mtp.existence || root.bigInt() !== proof.issuerData.state.claimsTreeRoot.bigInt()) {
    throw new Refusal("its Merkle proof does not put the claim in the issuer's claims tree (root mismatch)");
  }
  checkStateValue(iden3, proof.issuerData.state);
  await checkStatePublished(iden3, proof.issuerData.id.string(), proof.issuerData.state, false);
}

/** A value as JSON, at most 40 characters, for a message. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

async function checkSignatureProof(iden3: Iden3, credential: W3CCredential, proof: SignatureProofObject): Promise<void> {
  await checkClaimMatches(iden3, credential, proof.coreClaim);
  const { PublicKey, poseidon } = await import('@iden3/js-crypto');
  const slots = proof.issuerData.authCoreClaim.rawSlotsAsInts();
  const key = new PublicKey([slots[2]!, slots[3]!]);
  const { hi, hv } = proof.coreClaim.hiHv();
  if (!key.verifyPoseidon(poseidon.hash([hi, hv]), proof.signature as never)) throw new Refusal("the signature does not verify under the key of the issuer's auth claim");
  // The status of the signing key is given next to it, outside any signature: it must be the
  // status of that very key (its auth claim's revocation nonce), or any status would do.
  const keyStatus = proof.issuerData.credentialStatus as { revocationNonce?: unknown } | undefined;
  const keyNonce = proof.issuerData.authCoreClaim.getRevocationNonce();
  if (keyStatus === undefined || keyStatus === null || typeof keyStatus !== 'object') throw new Refusal("issuerData has no credentialStatus: the status of the issuer's signing key cannot be checked");
  const named = keyStatus.revocationNonce;
  if (typeof named !== 'number' || !Number.isSafeInteger(named) || BigInt(named) !== keyNonce) {
    throw new Refusal(`the status of the issuer's signing key names revocation nonce ${shortJson(named)}, not the nonce of its auth claim (${keyNonce})`);
  }
  const auth = proof.issuerData.authCoreClaim.hiHv();
  const root = await iden3.modules.mt.rootFromProof(proof.issuerData.mtp, auth.hi, auth.hv);
  if (!proof.issuerData.mtp.existence || root.bigInt() !== proof.issuerData.state.claimsTreeRoot.bigInt()) {
    throw new Refusal("the issuer's auth claim is not in its claims tree at the state the proof names");
  }
  checkStateValue(iden3, proof.issuerData.state);
  await checkStatePublished(iden3, proof.issuerData.id.string(), proof.issuerData.state, true);
  let status;
  try {
    status = await iden3.credentialWallet.getRevocationStatus(proof.issuerData.credentialStatus as never, {
      issuerDID: iden3.modules.core.DID.parse(proof.issuerData.id.string()),
      userDID: iden3.modules.core.DID.parse(String(credential.credentialSubject.id)),
    } as never);
  } catch (error) {
    if (isVcError(error) && !(error instanceof VerificationError) && !(error instanceof UnprocessableError)) throw error;
    throw new Refusal(`the status of the issuer's signing key cannot be resolved (${reasonOf(error)})`);
  }
  if (status.mtp.existence) throw new Refusal("the issuer's signing key (its auth claim) is revoked");
}

/** Why a resolution failed: vc's own reason whole (it names the service and the check), a library's first line, shortened. */
function reasonOf(error: unknown): string {
  return isVcError(error) ? error.message : describeError(error).split('\n')[0]!.slice(0, 160);
}

/**
 * Checks an iden3 credential before the holder keeps it (see the module comment); the subject is
 * checked by the caller. Refusals are UnprocessableErrors naming `base` (as `names` says it) and
 * the proof or field at fault; an unreachable chain or reverse hash service is a NetworkError.
 */
export async function checkHeldIden3Credential(ctx: Context, json: Record<string, unknown>, names: FieldNamer, base: string): Promise<Iden3CredentialCheck> {
  const parsed = parseInput(pbqCredentialSchema, json, names, base);
  const refuse = (relative: string, reason: string): UnprocessableError => new UnprocessableError(`${names(joinPath(base, relative))}: ${reason}`, { field: joinPath(base, relative) });
  if (parsed.expirationDate !== undefined && Date.parse(parsed.expirationDate) <= ctx.now().getTime()) {
    throw refuse('expirationDate', `the credential expired at ${new Date(parsed.expirationDate).toISOString()}`);
  }
  const iden3 = await getIden3(ctx);
  let credential: W3CCredential;
  try {
    credential = iden3.modules.sdk.W3CCredential.fromJSON(json as never);
  } catch (error) {
    throw refuse('proof', `the proofs cannot be read as iden3 proofs (${describeError(error).split('\n')[0]!.slice(0, 160)})`);
  }
  const proofs = (Array.isArray(credential.proof) ? credential.proof : [credential.proof]) as unknown as Array<{ type?: unknown }>;
  // Before the chain is asked anything: a signing key whose status vc cannot resolve.
  for (const [index, proof] of proofs.entries()) {
    const at = Array.isArray(credential.proof) ? `proof[${index}]` : 'proof';
    const authStatusType = (proof as { issuerData?: { credentialStatus?: { type?: unknown } } }).issuerData?.credentialStatus?.type;
    const problem = authStatusType === undefined ? undefined : unsupportedIden3StatusProblem(authStatusType);
    if (problem !== undefined) throw refuse(`${at}.issuerData.credentialStatus.type`, `${String(proof.type)}: the status of the issuer's signing key: ${problem}`);
  }
  const held: string[] = [];
  for (const [index, proof] of proofs.entries()) {
    const at = Array.isArray(credential.proof) ? `proof[${index}]` : 'proof';
    const type = String(proof.type);
    if (type !== 'Iden3SparseMerkleTreeProof' && type !== 'BJJSignature2021') continue;
    const issuerId = (proof as { issuerData?: { id?: { string?: () => string } } }).issuerData?.id?.string?.();
    if (issuerId !== parsed.issuer) throw refuse(`${at}.issuerData.id`, `${type}: the proof is by ${String(issuerId)}, the credential's issuer is ${parsed.issuer}`);
    try {
      if (type === 'Iden3SparseMerkleTreeProof') await checkMtpProof(iden3, credential, proof as unknown as MtpProofObject);
      else await checkSignatureProof(iden3, credential, proof as unknown as SignatureProofObject);
    } catch (error) {
      if (error instanceof Refusal) throw refuse(at, `${type}: ${error.message}`);
      throw error;
    }
    held.push(type);
  }
  if (held.length === 0) throw refuse('proof', 'it carries no BJJSignature2021 or Iden3SparseMerkleTreeProof to check');

  let revocation;
  try {
    revocation = await iden3.credentialWallet.getRevocationStatusFromCredential(credential);
  } catch (error) {
    if (isVcError(error) && !(error instanceof VerificationError) && !(error instanceof UnprocessableError)) throw error;
    throw refuse('credentialStatus', `the revocation status cannot be resolved (${reasonOf(error)})`);
  }
  if (revocation.mtp.existence) throw refuse('credentialStatus', `the credential is revoked (revocation nonce ${parsed.credentialStatus.revocationNonce} is in the issuer's revocation tree)`);
  return { proofs: held };
}
