/**
 * The CPU-heavy BBS+ calls behind one interface: signing, deriving, both verifications (each with
 * its JSON-LD canonicalisation) and the JSON-LD safe-mode expansion, for BbsBlsSignature2020 and
 * for bbs-2023, and the signing and verification of eddsa-rdfc-2022 and ecdsa-rdfc-2019 (whose
 * RDF canonicalisation costs as much as the rest). Selective disclosure
 * (src/core/sd) reaches them only through a BbsEngine, so where they run is decided in one
 * place: here, on the calling thread (the commands, and `vc serve` with VC_WORKERS=0), or in the
 * worker threads of `vc serve` (src/sd/worker/bbsWorkerPool.ts, which runs this very engine in each
 * worker), leaving the server's event loop free for the requests.
 *
 * Every method has the outcome of the function it wraps, errors included: an engine in another
 * thread must give its callers the same results, reasons and error classes as this one.
 */
import type { DocumentLoader } from './documentLoader.js';
import { findUndefinedJsonLdTerms } from './jsonldCheck.js';
import type { BlsIssuerKey } from './suites/bbs2020/bbs2020Keys.js';
import { deriveBbsProof, signBbsCredential, verifyBbsSignature, verifyDerivedBbsProof } from './suites/bbs2020/bbs2020Suite.js';
import { DescribedProofError, type JsonLdDocument, type ProofCheckResult } from './proofOutcome.js';
import { isVcError, type OverloadedError } from '../errors.js';
import { createBbs2023DocumentLoader } from './suites/bbs2023/bbs2023Loader.js';
import {
  deriveBbs2023,
  describeBbs2023Error,
  signBbs2023,
  verifyBbs2023,
  type Bbs2023CheckResult,
  type Bbs2023KeyMaterial,
  type VerifyBbs2023Options,
} from './suites/bbs2023/bbs2023Suite.js';
import type { RdfcKeyMaterial } from './suites/rdfc/rdfcKeys.js';
import { createDataIntegrityDocumentLoader, describeRdfcError, signRdfcCredential, signRdfcPresentation, verifyRdfcCredential, verifyRdfcPresentation } from './suites/rdfc/rdfcSuite.js';

/** What a presentation's proof is bound to: the verifier's challenge, and its domain when it names one. */
export interface PresentationBinding {
  challenge: string;
  domain?: string | undefined;
}

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
  /** bbs-2023 signBbs2023; a library failure is a DescribedProofError with describeBbs2023Error's reason. */
  signBbs2023(credential: JsonLdDocument, key: Bbs2023KeyMaterial, mandatoryPointers: string[], created: Date): Promise<JsonLdDocument>;
  /** bbs-2023 deriveBbs2023; a library failure is a DescribedProofError. */
  deriveBbs2023(signed: JsonLdDocument, selectivePointers: string[], presentationHeader: Uint8Array): Promise<JsonLdDocument>;
  /** bbs-2023 verifyBbs2023: a failure is a result with vc's reason. */
  verifyBbs2023(document: JsonLdDocument, now: Date, options?: VerifyBbs2023Options): Promise<Bbs2023CheckResult>;
  /** findUndefinedJsonLdTerms with the bbs-2023 loader (VC 2.0 and Data Integrity contexts). */
  findUndefinedTerms2023(document: object): Promise<string | undefined>;
  /** eddsa-rdfc-2022 / ecdsa-rdfc-2019 (the key's suite) signRdfcCredential; a library failure is a DescribedProofError. */
  signRdfcCredential(credential: JsonLdDocument, key: RdfcKeyMaterial, created: Date): Promise<JsonLdDocument>;
  /** signRdfcPresentation: the holder's authentication proof bound to the binding; a library failure is a DescribedProofError. */
  signRdfcPresentation(presentation: JsonLdDocument, key: RdfcKeyMaterial, binding: PresentationBinding, created: Date): Promise<JsonLdDocument>;
  /** verifyRdfcCredential (the suite the proof names): a failure is a result with vc's reason. */
  verifyRdfcCredential(document: JsonLdDocument, now: Date): Promise<ProofCheckResult>;
  /** verifyRdfcPresentation (the presentation's own proof): a failure is a result with vc's reason. */
  verifyRdfcPresentation(document: JsonLdDocument, binding: PresentationBinding, now: Date): Promise<ProofCheckResult>;
  /**
   * The refusal that `calls` calls (default 1) made now would meet because the engine is
   * saturated (a worker pool whose queue is full), or undefined; lets `vc serve` refuse a request
   * before reading its body, and an operation admit its calls together. The in-process engine
   * never queues and has none.
   */
  overloaded?(calls?: number): OverloadedError | undefined;
}

/** Runs a Data Integrity library call; its failure becomes a DescribedProofError (with `describe`'s reason) that crosses threads as itself. */
async function described<T>(run: () => Promise<T>, describe: (error: unknown) => string = describeBbs2023Error): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isVcError(error) || error instanceof DescribedProofError) throw error;
    throw new DescribedProofError(error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error), describe(error));
  }
}

/**
 * The engine that runs every call on the calling thread, with the given (static) document loader
 * and the bbs-2023 one (by default over the bundled documents only).
 */
export function inProcessBbsEngine(documentLoader: DocumentLoader, loader2023: DocumentLoader = createBbs2023DocumentLoader()): BbsEngine {
  const dataIntegrityLoader = createDataIntegrityDocumentLoader(loader2023);
  return {
    signRdfcCredential: (credential, key, created) => described(() => signRdfcCredential(credential, key, dataIntegrityLoader, created), describeRdfcError),
    signRdfcPresentation: (presentation, key, binding, created) => described(() => signRdfcPresentation(presentation, key, binding, dataIntegrityLoader, created), describeRdfcError),
    verifyRdfcCredential: (document, now) => verifyRdfcCredential(document, dataIntegrityLoader, now),
    verifyRdfcPresentation: (document, binding, now) => verifyRdfcPresentation(document, binding, dataIntegrityLoader, now),
    signBbs2023: (credential, key, mandatoryPointers, created) => described(() => signBbs2023(credential, key, mandatoryPointers, loader2023, created)),
    deriveBbs2023: (signed, selectivePointers, presentationHeader) => described(() => deriveBbs2023(signed, selectivePointers, presentationHeader, loader2023)),
    verifyBbs2023: (document, now, options) => verifyBbs2023(document, loader2023, now, options),
    findUndefinedTerms2023: (document) => findUndefinedJsonLdTerms(document, loader2023),
    signCredential: (credential, key, created) => signBbsCredential(credential, key, documentLoader, created),
    deriveProof: (signed, revealFrame, nonce) => deriveBbsProof(signed, revealFrame, nonce, documentLoader),
    verifyDerivedProof: (document) => verifyDerivedBbsProof(document, documentLoader),
    verifySignature: (document) => verifyBbsSignature(document, documentLoader),
    findUndefinedTerms: (document) => findUndefinedJsonLdTerms(document, documentLoader),
  };
}
