/**
 * The W3C Data Integrity cryptosuites most issuers use, on Digital Bazaar's libraries:
 * eddsa-rdfc-2022 (Ed25519) and ecdsa-rdfc-2019 (P-256 with SHA-256, P-384 with SHA-384), both
 * over RDF Dataset Canonicalization (RDFC-1.0). No selective disclosure: the issuer signs the
 * whole credential (proof purpose assertionMethod), and a holder signs a presentation around its
 * credentials (proof purpose authentication, bound to the verifier's challenge and domain).
 *
 * The suite of a proof is read from its `cryptosuite`, and the key must be of that suite's type
 * (Ed25519 for eddsa-rdfc-2022, P-256 or P-384 for ecdsa-rdfc-2019): a verifier runs exactly the
 * suite the proof names, never a list of suites to try. Keys are did:key identifiers resolved
 * offline (rdfcDidKey.ts); contexts come from the bbs-2023 loader (bundled W3C contexts only).
 */
import { isVcError, walkErrorCauses } from '../../../errors.js';
import { shortId } from '../../didKey.js';
import type { DocumentLoader, RemoteDocument } from '../../documentLoader.js';
import { DescribedProofError, type JsonLdDocument, type ProofCheckResult } from '../../proofOutcome.js';
import { createBbs2023DocumentLoader } from '../bbs2023/bbs2023Loader.js';
import { isRdfcDidKeyUrl, parseRdfcDidKey, resolveRdfcDidKey, type RdfcKeyType } from './rdfcDidKey.js';
import type { RdfcKeyMaterial } from './rdfcKeys.js';

export const EDDSA_RDFC_2022 = 'eddsa-rdfc-2022';
export const ECDSA_RDFC_2019 = 'ecdsa-rdfc-2019';
export type RdfcCryptosuite = typeof EDDSA_RDFC_2022 | typeof ECDSA_RDFC_2019;
export const RDFC_CRYPTOSUITES: readonly RdfcCryptosuite[] = [EDDSA_RDFC_2022, ECDSA_RDFC_2019];

/** True for the name of one of the two suites. */
export function isRdfcCryptosuite(name: unknown): name is RdfcCryptosuite {
  return name === EDDSA_RDFC_2022 || name === ECDSA_RDFC_2019;
}

/** The suite that signs with a key of `keyType`. */
export function cryptosuiteOfKey(keyType: RdfcKeyType): RdfcCryptosuite {
  return keyType === 'Ed25519' ? EDDSA_RDFC_2022 : ECDSA_RDFC_2019;
}

const libraries = async () => ({
  eddsa: (await import('@digitalbazaar/eddsa-rdfc-2022-cryptosuite')).cryptosuite,
  ecdsa: (await import('@digitalbazaar/ecdsa-rdfc-2019-cryptosuite')).cryptosuite,
  ed25519: await import('@digitalbazaar/ed25519-multikey'),
  ecdsaKeys: await import('@digitalbazaar/ecdsa-multikey'),
  dataIntegrity: await import('@digitalbazaar/data-integrity'),
  vc: await import('@digitalbazaar/vc'),
});

/**
 * The loader of Data Integrity documents: the bbs-2023 loader (the bundled W3C contexts, BLS12-381
 * did:key) and did:key identifiers of Ed25519, P-256 and P-384 keys. Nothing is fetched.
 */
export function createDataIntegrityDocumentLoader(base: DocumentLoader = createBbs2023DocumentLoader()): DocumentLoader {
  return async (url: string): Promise<RemoteDocument> => {
    if (isRdfcDidKeyUrl(url)) return { contextUrl: null, documentUrl: url, document: resolveRdfcDidKey(url) };
    return base(url);
  };
}

/** The proof purposes of the two uses: an issuer's credential, a holder's presentation. */
export type RdfcProofPurpose = 'assertionMethod' | 'authentication';

/** A proof value: 'z' and base58btc of a signature (64 bytes for Ed25519 and P-256, 96 for P-384). */
const PROOF_VALUE = /^z[1-9A-HJ-NP-Za-km-z]{80,140}$/;

/**
 * What the document's proof is, read before the libraries see it: its suite and key, or why it is
 * not a proof of these suites with `purpose` (so a malformed proof gets a reason, not a trap).
 */
export function rdfcProofForm(document: JsonLdDocument, purpose: RdfcProofPurpose): { cryptosuite: RdfcCryptosuite; keyType: RdfcKeyType; signer: string } | { problem: string } {
  const proof = document.proof;
  if (Array.isArray(proof)) return { problem: 'a set of several proofs is not accepted (expected one proof object)' };
  if (typeof proof !== 'object' || proof === null) return { problem: 'there is no proof object' };
  const { type, cryptosuite, proofPurpose, verificationMethod, proofValue } = proof as Record<string, unknown>;
  if (type !== 'DataIntegrityProof') return { problem: `expected a DataIntegrityProof, got ${shortId(JSON.stringify(type) ?? 'nothing', 60)}` };
  if (!isRdfcCryptosuite(cryptosuite)) return { problem: `expected cryptosuite ${EDDSA_RDFC_2022} or ${ECDSA_RDFC_2019}, got ${shortId(JSON.stringify(cryptosuite) ?? 'nothing', 60)}` };
  if (proofPurpose !== purpose) return { problem: `proofPurpose: expected ${purpose}, got ${shortId(JSON.stringify(proofPurpose) ?? 'nothing', 60)}` };
  if (typeof verificationMethod !== 'string') return { problem: 'the proof has no verificationMethod (expected a did:key URL)' };
  let keyType: RdfcKeyType;
  try {
    keyType = parseRdfcDidKey(verificationMethod).keyType;
  } catch (error) {
    return { problem: `verificationMethod: ${isVcError(error) ? error.message : 'not a did:key URL of an Ed25519, P-256 or P-384 key'}` };
  }
  if (cryptosuiteOfKey(keyType) !== cryptosuite) return { problem: `verificationMethod: ${keyType} keys cannot make ${cryptosuite} proofs` };
  if (typeof proofValue !== 'string' || !PROOF_VALUE.test(proofValue)) return { problem: 'the proof value is malformed: expected "z" and the base58btc of a signature' };
  return { cryptosuite, keyType, signer: verificationMethod.split('#', 1)[0]! };
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A signer of the key material, its id the key's did:key URL. */
async function signerOf(material: RdfcKeyMaterial): Promise<{ algorithm: string; id: string; sign(options: { data: Uint8Array }): Promise<Uint8Array> }> {
  const { ed25519, ecdsaKeys } = await libraries();
  const keyPair =
    material.keyType === 'Ed25519'
      ? await ed25519.generate({ seed: material.secretKey, id: material.verificationMethod, controller: material.did })
      : await ecdsaKeys.fromRaw({ curve: material.keyType, secretKey: material.secretKey, publicKey: material.publicKey });
  keyPair.id = material.verificationMethod;
  keyPair.controller = material.did;
  return keyPair.signer();
}

async function suiteFor(cryptosuite: RdfcCryptosuite, signer?: unknown, created?: Date): Promise<unknown> {
  const { eddsa, ecdsa, dataIntegrity } = await libraries();
  return new dataIntegrity.DataIntegrityProof({ cryptosuite: cryptosuite === EDDSA_RDFC_2022 ? eddsa : ecdsa, ...(signer === undefined ? {} : { signer, date: created ?? null }) });
}

/** Signs `credential` (the issuer's assertionMethod proof) with the key's suite. */
export async function signRdfcCredential(credential: JsonLdDocument, key: RdfcKeyMaterial, documentLoader: DocumentLoader, created: Date): Promise<JsonLdDocument> {
  const { vc } = await libraries();
  const suite = await suiteFor(cryptosuiteOfKey(key.keyType), await signerOf(key), created);
  return vc.issue({ credential: copy(credential), suite, documentLoader, now: created });
}

/** Signs `presentation` (the holder's authentication proof) bound to `challenge` and `domain`. */
export async function signRdfcPresentation(presentation: JsonLdDocument, key: RdfcKeyMaterial, binding: { challenge: string; domain?: string | undefined }, documentLoader: DocumentLoader, created: Date): Promise<JsonLdDocument> {
  const { vc } = await libraries();
  const suite = await suiteFor(cryptosuiteOfKey(key.keyType), await signerOf(key), created);
  return vc.signPresentation({
    presentation: copy(presentation),
    suite,
    challenge: binding.challenge,
    ...(binding.domain === undefined ? {} : { domain: binding.domain }),
    documentLoader,
  });
}

/**
 * Verifies a credential's proof with the suite it names: the signature over the canonical
 * statements, the purpose (assertionMethod of a key the issuer controls), and the validity dates
 * at `now`. The credential's status is not checked here: the caller checks credentialStatus as a
 * check of its own.
 */
export async function verifyRdfcCredential(document: JsonLdDocument, documentLoader: DocumentLoader, now: Date): Promise<ProofCheckResult> {
  const form = rdfcProofForm(document, 'assertionMethod');
  if ('problem' in form) return { verified: false, reason: form.problem };
  const { vc } = await libraries();
  try {
    const result = await vc.verifyCredential({
      credential: copy(document),
      suite: await suiteFor(form.cryptosuite),
      documentLoader,
      now,
      maxClockSkew: 60,
      checkStatus: async () => ({ verified: true }),
    });
    if (result.verified) return { verified: true };
    const error = result.error ?? result.results?.find((entry) => entry.error !== undefined)?.error;
    return { verified: false, reason: error === undefined ? mismatch(form.cryptosuite) : describeRdfcError(error, form.cryptosuite) };
  } catch (error) {
    return { verified: false, reason: describeRdfcError(error, form.cryptosuite) };
  }
}

/**
 * Verifies a presentation's own proof: the signature over the presentation (its credentials
 * included), the purpose (authentication by the signer's key), and the challenge and domain.
 * The credentials inside are the caller's to verify, each with its own suite.
 */
export async function verifyRdfcPresentation(document: JsonLdDocument, binding: { challenge: string; domain?: string | undefined }, documentLoader: DocumentLoader, now: Date): Promise<ProofCheckResult> {
  const form = rdfcProofForm(document, 'authentication');
  if ('problem' in form) return { verified: false, reason: form.problem };
  const { vc } = await libraries();
  try {
    const result = await vc.verify({
      presentation: copy(document),
      suite: await suiteFor(form.cryptosuite),
      challenge: binding.challenge,
      ...(binding.domain === undefined ? {} : { domain: binding.domain }),
      documentLoader,
      now,
      maxClockSkew: 60,
      checkStatus: async () => ({ verified: true }),
    });
    // vc.js verifies the credentials too, with this one suite: what counts here is the presentation's proof.
    const own = result.presentationResult;
    if (own?.verified === true) return { verified: true };
    const error = own?.error ?? own?.results?.find((entry) => entry.error !== undefined)?.error ?? result.error;
    return { verified: false, reason: error === undefined ? mismatch(form.cryptosuite) : describeRdfcError(error, form.cryptosuite) };
  } catch (error) {
    return { verified: false, reason: describeRdfcError(error, form.cryptosuite) };
  }
}

function mismatch(cryptosuite: string): string {
  return `the ${cryptosuite} signature does not match the signed statements (a statement was added, removed or changed, or the key is not the signer)`;
}

/** A one-line reason for a failure inside the libraries; our own errors keep their message. */
export function describeRdfcError(error: unknown, cryptosuite = 'Data Integrity'): string {
  let reason: string | undefined;
  walkErrorCauses(error, (link) => (reason = linkReason(link, cryptosuite)) !== undefined);
  return reason ?? mismatch(cryptosuite);
}

function linkReason(link: unknown, cryptosuite: string): string | undefined {
  if (isVcError(link)) return link.message.split('\n')[0] ?? link.name;
  if (link instanceof DescribedProofError) return link.reason;
  if (Array.isArray(link)) return undefined;
  if (!(link instanceof Error)) return mismatch(cryptosuite);
  const { errors, details } = link as Error & { errors?: unknown[]; details?: { cause?: unknown; code?: unknown } };
  if ((Array.isArray(errors) && errors.length > 0) || details?.cause !== undefined) return undefined;
  if (typeof details?.code === 'string' && /^[a-z @]+$/.test(details.code)) return `the document is not valid JSON-LD: ${details.code}`;
  if (link.cause !== undefined) return undefined;
  const message = (link.message.split('\n')[0] ?? '').replace(/[^\x20-\x7e]/g, '?');
  if (/invalid signature|signature.*(invalid|not verified)|verification failed|did not verify/i.test(message)) return mismatch(cryptosuite);
  // WebCrypto / OpenSSL refusing the key itself (a P-256 or P-384 "point" that is not on its curve).
  if (/decode error|invalid key ?data|point is not on curve|DataError/i.test(message) || link.name === 'DataError') return `the ${cryptosuite} proof's key cannot be used: the did:key does not hold a point of its curve`;
  if (message.length > 0 && message.length < 240) return `the ${cryptosuite} proof could not be checked: ${message}`;
  return mismatch(cryptosuite);
}
