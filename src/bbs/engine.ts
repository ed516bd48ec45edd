/**
 * The CPU-heavy BBS+ calls behind one interface: signing, deriving, both verifications (each with
 * its JSON-LD canonicalisation) and the JSON-LD safe-mode expansion. Selective disclosure
 * (src/core/sd) reaches them only through a BbsEngine, so where they run is decided in one
 * place: here, on the calling thread (the commands, and `vc serve` with VC_WORKERS=0), or in the
 * worker threads of `vc serve` (src/workers/bbsEngine.ts, which runs this very engine in each
 * worker), leaving the server's event loop free for the requests.
 *
 * Every method has the outcome of the function it wraps, errors included: an engine in another
 * thread must give its callers the same results, reasons and error classes as this one.
 */
import type { DocumentLoader } from './documentLoader.js';
import { findUndefinedJsonLdTerms } from './jsonldCheck.js';
import type { BlsIssuerKey } from './keys.js';
import { deriveBbsProof, signBbsCredential, verifyBbsSignature, verifyDerivedBbsProof, type JsonLdDocument, type ProofCheckResult } from './suite.js';

export interface BbsEngine {
  /** signBbsCredential: the credential signed with `key` (BbsBlsSignature2020), `created` as the proof's time. */
  signCredential(credential: JsonLdDocument, key: BlsIssuerKey, created: Date): Promise<JsonLdDocument>;
  /** deriveBbsProof: a BbsBlsSignatureProof2020 revealing what `revealFrame` selects, bound to `nonce`. */
  deriveProof(signed: JsonLdDocument, revealFrame: JsonLdDocument, nonce: Uint8Array): Promise<JsonLdDocument>;
  /** verifyDerivedBbsProof: a failure is a result with vc's reason. */
  verifyDerivedProof(document: JsonLdDocument): Promise<ProofCheckResult>;
  /** verifyBbsSignature: a failure is a result with vc's reason. */
  verifySignature(document: JsonLdDocument): Promise<ProofCheckResult>;
  /** findUndefinedJsonLdTerms: why JSON-LD would drop part of `document`, or undefined. */
  findUndefinedTerms(document: object): Promise<string | undefined>;
}

/** The engine that runs every call on the calling thread, with the given (static) document loader. */
export function inProcessBbsEngine(documentLoader: DocumentLoader): BbsEngine {
  return {
    signCredential: (credential, key, created) => signBbsCredential(credential, key, documentLoader, created),
    deriveProof: (signed, revealFrame, nonce) => deriveBbsProof(signed, revealFrame, nonce, documentLoader),
    verifyDerivedProof: (document) => verifyDerivedBbsProof(document, documentLoader),
    verifySignature: (document) => verifyBbsSignature(document, documentLoader),
    findUndefinedTerms: (document) => findUndefinedJsonLdTerms(document, documentLoader),
  };
}
