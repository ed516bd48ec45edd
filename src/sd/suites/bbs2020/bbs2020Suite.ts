/**
 * BBS+ over JSON-LD with the MATTR suites: sign a credential (BbsBlsSignature2020), derive a
 * selective-disclosure proof (BbsBlsSignatureProof2020) and verify either. Libraries load lazily;
 * every call gets the static document loader, so nothing here reaches the network.
 */
import type { DocumentLoader } from '../../documentLoader.js';
import { isVcError, walkErrorCauses } from '../../../errors.js';
import { shortId } from '../../didKey.js';
import { bbsLibraries } from '../../library.js';
import { checkDerivedProofValue, checkG2PublicKey, checkSignatureValue, decodeCanonicalBase64, MalformedProofValueError } from './proofValue.js';
import type { BlsIssuerKey } from './bbs2020Keys.js';
import { DescribedProofError, type JsonLdDocument, type ProofCheckResult } from '../../proofOutcome.js';


/** The libraries through their one door (randomness given and self-tested first). */
async function libraries() {
  const { jsigs, bbs } = await bbsLibraries();
  return { jsigs, bbs };
}

/** Deep copy, so libraries that edit their input (MATTR rewrites proof.type) cannot touch ours. */
function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Signs `credential` with the issuer's key; `created` becomes the proof's creation time. */
export async function signBbsCredential(credential: JsonLdDocument, key: BlsIssuerKey, documentLoader: DocumentLoader, created: Date): Promise<JsonLdDocument> {
  const { jsigs, bbs } = await libraries();
  const suite = new bbs.BbsBlsSignature2020({ key: key.keyPair });
  // The suite turns a `date` option into a Date, which its w3cDate() then ignores (it honours only
  // strings and numbers) and stamps the current time instead: hand it the final string.
  (suite as unknown as { date: string }).date = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return jsigs.sign(copy(credential), { suite, purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
}

/** The reason given when the library finds that the proof does not match the document. */
export const PROOF_MISMATCH_REASON =
  "the BBS+ proof does not match the credential's statements (a value, the issuer, a date, the nonce or the proof value differs from what was signed)";
/** The reason given when the library cannot process the document or proof at all. */
export const PROOF_UNPROCESSABLE_REASON = 'the BBS+ proof could not be checked: the document is not in the form its proof was made for';

/** The issuer key of a proof's verificationMethod, checked to be a valid G2 point (the library traps on some invalid ones). */
async function checkVerificationKey(document: JsonLdDocument, documentLoader: DocumentLoader): Promise<string | undefined> {
  const proof = document.proof as Record<string, unknown> | undefined;
  const method = proof?.verificationMethod;
  if (typeof method !== 'string') return 'the proof has no verificationMethod';
  let resolved: unknown;
  try {
    resolved = (await documentLoader(method)).document;
  } catch (error) {
    return describeProofError(error);
  }
  const key = (resolved as { verificationMethod?: Array<{ publicKeyBase58?: unknown }> }).verificationMethod?.[0]?.publicKeyBase58;
  if (typeof key !== 'string') return `${shortId(method)} does not name a BLS12-381 G2 key`;
  // The loader resolved it, so the fingerprint has the fixed length of a BLS12-381 G2 did:key.
  const { bbs } = await libraries();
  try {
    const publicKey = bbs.Bls12381G2KeyPair.fromFingerprint({ fingerprint: method.split('#', 2)[0]!.slice('did:key:'.length) }).publicKeyBuffer;
    await checkG2PublicKey(publicKey);
  } catch (error) {
    return error instanceof MalformedProofValueError ? error.message : `${shortId(method)} is not a valid BLS12-381 G2 did:key`;
  }
  return undefined;
}

/**
 * Derives a BbsBlsSignatureProof2020 revealing what `revealFrame` (a JSON-LD frame) selects, bound
 * to `nonce`. The signature value is checked first: the library traps on malformed ones.
 */
export async function deriveBbsProof(signed: JsonLdDocument, revealFrame: JsonLdDocument, nonce: Uint8Array, documentLoader: DocumentLoader): Promise<JsonLdDocument> {
  const { bbs } = await libraries();
  const proof = signed.proof as Record<string, unknown> | undefined;
  await checkSignatureValue(proof?.proofValue);
  const keyProblem = await checkVerificationKey(signed, documentLoader);
  if (keyProblem !== undefined) throw new MalformedProofValueError(keyProblem);
  const suite = new bbs.BbsBlsSignatureProof2020();
  return (await bbs.deriveProof(copy(signed), copy(revealFrame), { suite, documentLoader, nonce })) as JsonLdDocument;
}

/**
 * vc's sentence for a failure inside the libraries: our own errors (an unknown context, an
 * invalid did:key) keep their message; anything the libraries raise becomes one fixed sentence,
 * since their messages ("Object.defineProperty called on non-object") say nothing to a user.
 */
export function describeProofError(error: unknown): string {
  let reason: string | undefined;
  walkErrorCauses(error, (link) => (reason = proofErrorReason(link)) !== undefined);
  return reason ?? PROOF_UNPROCESSABLE_REASON;
}

/** describeProofError's sentence for one link of a failure's cause chain; undefined to look at the next link. */
function proofErrorReason(link: unknown): string | undefined {
  if (isVcError(link) || link instanceof MalformedProofValueError) return link.message.split('\n')[0] ?? link.name;
  if (link instanceof DescribedProofError) return link.reason;
  if (Array.isArray(link)) return undefined;
  if (!(link instanceof Error)) return PROOF_UNPROCESSABLE_REASON;
  const { errors, details } = link as Error & { errors?: unknown[]; details?: { cause?: unknown; code?: unknown } };
  // jsonld-signatures collects the suite's failures in VerificationError.errors, and jsonld wraps
  // loader failures ("loading remote context failed") with the cause, ours, in details.cause.
  if ((Array.isArray(errors) && errors.length > 0) || details?.cause !== undefined) return undefined;
  // jsonld's own errors carry a JSON-LD error code from its specification.
  if (typeof details?.code === 'string' && /^[a-z @]+$/.test(details.code)) return `the credential is not valid JSON-LD: ${details.code}`;
  if (link.cause !== undefined) return undefined;
  // The suites report a signature or proof that does not verify as an error.
  if (/invalid signature|invalid proof|did not verify/i.test(link.message)) return PROOF_MISMATCH_REASON;
  return PROOF_UNPROCESSABLE_REASON;
}

async function verifyWith(document: JsonLdDocument, derived: boolean, documentLoader: DocumentLoader): Promise<ProofCheckResult> {
  const proof = document.proof as Record<string, unknown> | undefined;
  try {
    if (derived) {
      await checkDerivedProofValue(proof?.proofValue);
      decodeCanonicalBase64(proof?.nonce, 'the proof nonce');
    } else {
      await checkSignatureValue(proof?.proofValue);
    }
  } catch (error) {
    if (error instanceof MalformedProofValueError) return { verified: false, reason: `the proof value is malformed: ${error.message}` };
    throw error;
  }
  const keyProblem = await checkVerificationKey(document, documentLoader);
  if (keyProblem !== undefined) return { verified: false, reason: keyProblem };

  const { jsigs, bbs } = await libraries();
  const suite = derived ? new bbs.BbsBlsSignatureProof2020() : new bbs.BbsBlsSignature2020();
  let result: Awaited<ReturnType<typeof jsigs.verify>>;
  try {
    result = await jsigs.verify(copy(document), { suite, purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
  } catch (error) {
    return { verified: false, reason: verificationReason(error) };
  }
  if (result.verified) return { verified: true };
  const error = result.error ?? result.results?.find((r) => r.error !== undefined)?.error;
  return { verified: false, reason: error === undefined ? PROOF_MISMATCH_REASON : verificationReason(error) };
}

/**
 * Once vc's own checks passed (proof value shape, key, nonce), a failure inside the suites means the
 * statements do not match what the proof was made for (a statement added, removed or changed).
 */
function verificationReason(error: unknown): string {
  const reason = describeProofError(error);
  return reason === PROOF_UNPROCESSABLE_REASON ? PROOF_MISMATCH_REASON : reason;
}

/** Verifies the holder's derived proof (BbsBlsSignatureProof2020). A failure is a result. */
export function verifyDerivedBbsProof(document: JsonLdDocument, documentLoader: DocumentLoader): Promise<ProofCheckResult> {
  return verifyWith(document, true, documentLoader);
}

/** Verifies the issuer's full signature (BbsBlsSignature2020). A failure is a result. */
export function verifyBbsSignature(document: JsonLdDocument, documentLoader: DocumentLoader): Promise<ProofCheckResult> {
  return verifyWith(document, false, documentLoader);
}
