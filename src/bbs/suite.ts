/**
 * BBS+ over JSON-LD with the MATTR suites: sign a credential (BbsBlsSignature2020), derive a
 * selective-disclosure proof (BbsBlsSignatureProof2020) and verify either. Libraries load lazily;
 * every call gets the static document loader, so nothing here reaches the network.
 */
import type { DocumentLoader } from './documentLoader.js';
import type { BlsIssuerKey } from './keys.js';

/** A JSON-LD object as the libraries see it. */
export type JsonLdDocument = Record<string, unknown>;

/** Outcome of a proof check: valid, or the first library error as a one-line reason. */
export interface ProofCheckResult {
  verified: boolean;
  reason?: string;
}

async function libraries() {
  const [jsigs, bbs] = await Promise.all([import('jsonld-signatures'), import('@mattrglobal/jsonld-signatures-bbs')]);
  return { jsigs: jsigs.default, bbs: bbs.default };
}

/** Deep copy, so libraries that edit their input (MATTR rewrites proof.type) cannot touch ours. */
function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Signs `credential` with the issuer's key; `created` becomes the proof's creation time. */
export async function signBbsCredential(credential: JsonLdDocument, key: BlsIssuerKey, documentLoader: DocumentLoader, created: Date): Promise<JsonLdDocument> {
  const { jsigs, bbs } = await libraries();
  const suite = new bbs.BbsBlsSignature2020({ key: key.keyPair, date: created.toISOString() });
  return jsigs.sign(copy(credential), { suite, purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
}

/**
 * Derives a BbsBlsSignatureProof2020 revealing what `revealFrame` (a JSON-LD frame) selects, bound
 * to `nonce`.
 */
export async function deriveBbsProof(signed: JsonLdDocument, revealFrame: JsonLdDocument, nonce: Uint8Array, documentLoader: DocumentLoader): Promise<JsonLdDocument> {
  const { bbs } = await libraries();
  const suite = new bbs.BbsBlsSignatureProof2020();
  return (await bbs.deriveProof(copy(signed), copy(revealFrame), { suite, documentLoader, nonce })) as JsonLdDocument;
}

/** The message of a verification error from jsonld-signatures (which nests arrays and causes). */
export function describeProofError(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 6; depth++) {
    if (Array.isArray(current)) {
      current = current[0];
      continue;
    }
    if (current instanceof Error) {
      // jsonld-signatures collects the suite's failures in VerificationError.errors.
      const nested = (current as Error & { errors?: unknown[] }).errors;
      if (Array.isArray(nested) && nested.length > 0) {
        current = nested[0];
        continue;
      }
      const details = (current as Error & { details?: { cause?: unknown } }).details;
      // jsonld wraps loader failures ("loading remote context failed"); the cause names the URL.
      if (details?.cause instanceof Error) {
        current = details.cause;
        continue;
      }
      return current.message.split('\n')[0] ?? current.name;
    }
    break;
  }
  return current === undefined ? 'proof did not verify' : String(current);
}

async function verifyWith(document: JsonLdDocument, derived: boolean, documentLoader: DocumentLoader): Promise<ProofCheckResult> {
  const { jsigs, bbs } = await libraries();
  const suite = derived ? new bbs.BbsBlsSignatureProof2020() : new bbs.BbsBlsSignature2020();
  const result = await jsigs.verify(copy(document), { suite, purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader });
  if (result.verified) return { verified: true };
  const error = result.error ?? result.results?.find((r) => r.error !== undefined)?.error;
  if (error === undefined) {
    return { verified: false, reason: 'the BBS+ proof does not match the disclosed statements (a value, the issuer, a date, the nonce or the proof value differs from what was signed)' };
  }
  return { verified: false, reason: describeProofError(error) };
}

/** Verifies the holder's derived proof (BbsBlsSignatureProof2020). A failure is a result. */
export function verifyDerivedBbsProof(document: JsonLdDocument, documentLoader: DocumentLoader): Promise<ProofCheckResult> {
  return verifyWith(document, true, documentLoader);
}

/** Verifies the issuer's full signature (BbsBlsSignature2020). A failure is a result. */
export function verifyBbsSignature(document: JsonLdDocument, documentLoader: DocumentLoader): Promise<ProofCheckResult> {
  return verifyWith(document, false, documentLoader);
}
