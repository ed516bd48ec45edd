/**
 * The W3C Data Integrity BBS cryptosuite bbs-2023 (IETF BBS signatures over BLS12-381 with
 * SHA-256, VC Data Model 2.0), on Digital Bazaar's libraries: the issuer's base proof, the
 * holder's derived proof revealing what JSON Pointers select, bound to a presentation header (the
 * verifier's nonce), and its verification.
 *
 * Randomness, read in the libraries rather than assumed: @digitalbazaar/bbs-signatures draws the
 * 5 + U random scalars of every derived proof from node:crypto's webcrypto.getRandomValues
 * (lib/bbs/util.js gen_random), and @digitalbazaar/di-sd-primitives draws the base proof's 32-byte
 * HMAC key (which relabels blank nodes) from the same source (lib/hmac.js). A BBS signature itself
 * is deterministic by the IETF specification. test/sd/suites/bbs2023/bbs2023.test.ts proves the property
 * here, across processes.
 *
 * The issuer's key is the IETF BBS KeyGen of the BIP39 seed of the issuer's phrase (the phrase of
 * BbsBlsSignature2020; MATTR's key generation is another derivation, so the two suites' keys and
 * did:key identifiers differ), published as a did:key whose fragment is the Multikey itself.
 */
import { normaliseSeedPhrase, seedOfPhrase } from '../../../config/seedPhrase.js';
import { ServiceKey, type Context } from '../../../context.js';
import { isVcError, walkErrorCauses } from '../../../errors.js';
import { readIssuerSeedPhrase, type SeedPhraseSource } from '../../issuerSeed.js';
import { shortId } from '../../didKey.js';
import type { DocumentLoader } from '../../documentLoader.js';
import { DescribedProofError, type JsonLdDocument, type ProofCheckResult } from '../../proofOutcome.js';
import { checkBbs2023ProofPayload } from './bbs2023ProofValue.js';
import { installBbsGeneratorCache } from './bbsGeneratorCache.js';

const libraries = async () => ({
  // Before the first BBS operation: the generators each operation needs, computed once.
  generatorCache: await installBbsGeneratorCache(),
  multikey: await import('@digitalbazaar/bls12-381-multikey'),
  cryptosuite: await import('@digitalbazaar/bbs-2023-cryptosuite'),
  dataIntegrity: await import('@digitalbazaar/data-integrity'),
  vc: await import('@digitalbazaar/vc'),
});

/** The cryptosuite name of the proofs this module makes and checks. */
export const BBS_2023 = 'bbs-2023';
/** Header bytes of a base proof value (after the multibase 'u' and base64url decoding). */
export const BASE_PROOF_HEADER = [0xd9, 0x5d, 0x02] as const;
/** Header bytes of a derived proof value. */
export const DERIVED_PROOF_HEADER = [0xd9, 0x5d, 0x03] as const;

export interface Bbs2023Key {
  did: string;
  verificationMethod: string;
  publicKeyMultibase: string;
  seedSource: SeedPhraseSource;
  /** The Multikey pair (holds the secret key; never serialise it). */
  keyPair: Awaited<ReturnType<(typeof import('@digitalbazaar/bls12-381-multikey'))['generateBbsKeyPair']>>;
}

/** The bbs-2023 key of a BIP39 phrase: same phrase, same key, on every machine. */
export async function deriveBbs2023Key(phrase: string, seedSource: SeedPhraseSource = 'config'): Promise<Bbs2023Key> {
  const normalised = normaliseSeedPhrase(phrase, seedSource === 'config' ? 'IDP_BLS_SIGN_SEED_PHRASE' : 'wallet seed phrase');
  const seed = await seedOfPhrase(normalised);
  const { multikey } = await libraries();
  const keyPair = await multikey.generateBbsKeyPair({ algorithm: multikey.ALGORITHMS.BBS_BLS12381_SHA256, seed });
  const { publicKeyMultibase } = await keyPair.export({ publicKey: true });
  const did = `did:key:${publicKeyMultibase}`;
  keyPair.controller = did;
  keyPair.id = `${did}#${publicKeyMultibase}`;
  return { did, verificationMethod: keyPair.id, publicKeyMultibase, seedSource, keyPair };
}

/**
 * The issuer's bbs-2023 key as plain data, for a worker thread of this same process to sign with
 * (see src/sd/worker): it holds the secret key, so it only ever travels between threads.
 */
export interface Bbs2023KeyMaterial {
  did: string;
  verificationMethod: string;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** The plain data of a key (see Bbs2023KeyMaterial). */
export function bbs2023KeyMaterial(key: Bbs2023Key): Bbs2023KeyMaterial {
  const { secretKey, publicKey } = key.keyPair;
  if (secretKey === undefined) throw new Error(`the bbs-2023 key ${key.verificationMethod} has no secret key`);
  return { did: key.did, verificationMethod: key.verificationMethod, publicKey: new Uint8Array(publicKey), secretKey: new Uint8Array(secretKey) };
}

/** A signer of some key material (the Multikey pair, with the did:key URL as its id). */
async function signerOf(material: Bbs2023KeyMaterial): Promise<ReturnType<Bbs2023Key['keyPair']['signer']>> {
  const { multikey } = await libraries();
  const keyPair = await multikey.fromRaw({ algorithm: multikey.ALGORITHMS.BBS_BLS12381_SHA256, secretKey: material.secretKey, publicKey: material.publicKey });
  keyPair.id = material.verificationMethod;
  keyPair.controller = material.did;
  return keyPair.signer();
}

const KEY = new ServiceKey<Bbs2023Key>('bbs2023.issuerKey');

/** The issuer's bbs-2023 key for this context (derived once per process). */
export function loadIssuerBbs2023Key(ctx: Context): Promise<Bbs2023Key> {
  return ctx.lazy(KEY, async () => {
    const { phrase, source } = await readIssuerSeedPhrase(ctx);
    return deriveBbs2023Key(phrase, source);
  });
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Signs `credential` with a bbs-2023 base proof; `mandatoryPointers` are always disclosed. */
export async function signBbs2023(credential: JsonLdDocument, key: Bbs2023Key | Bbs2023KeyMaterial, mandatoryPointers: string[], documentLoader: DocumentLoader, created: Date): Promise<JsonLdDocument> {
  const { cryptosuite, dataIntegrity, vc } = await libraries();
  const signer = 'keyPair' in key ? key.keyPair.signer() : await signerOf(key);
  const suite = new dataIntegrity.DataIntegrityProof({ signer, date: created, cryptosuite: cryptosuite.createSignCryptosuite({ mandatoryPointers }) });
  return vc.issue({ credential: copy(credential), suite, documentLoader, now: created });
}

/** Derives a bbs-2023 disclosure proof revealing `selectivePointers` (and the mandatory ones), bound to `presentationHeader`. */
export async function deriveBbs2023(signed: JsonLdDocument, selectivePointers: string[], presentationHeader: Uint8Array, documentLoader: DocumentLoader): Promise<JsonLdDocument> {
  const { cryptosuite, dataIntegrity, vc } = await libraries();
  const suite = new dataIntegrity.DataIntegrityProof({ cryptosuite: cryptosuite.createDiscloseCryptosuite({ selectivePointers, presentationHeader }) });
  return vc.derive({ verifiableCredential: copy(signed), suite, documentLoader });
}

/** A verification's outcome, with the presentation header the derived proof was bound to. */
export interface Bbs2023CheckResult extends ProofCheckResult {
  presentationHeader?: Uint8Array;
}

/**
 * Verifies a bbs-2023 proof: a derived proof (header d9 5d 03), or with `base` the issuer's base
 * proof (d9 5d 02; verifying it means deriving a disclosure of everything and verifying that, as
 * the specification has no direct check of a base proof). A failure is a result with a reason.
 */
export async function verifyBbs2023(document: JsonLdDocument, documentLoader: DocumentLoader, now: Date, options: VerifyBbs2023Options = {}): Promise<Bbs2023CheckResult> {
  const header = proofHeader(document);
  if ('problem' in header) return { verified: false, reason: header.problem };
  if (header.kind === 'base') {
    let derived: JsonLdDocument;
    try {
      // Every top-level member: the disclosure then covers every statement the issuer signed.
      const everything = Object.keys(document)
        .filter((member) => member !== 'proof' && member !== '@context')
        .map((member) => `/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      derived = await deriveBbs2023(document, everything, new Uint8Array(), documentLoader);
    } catch (error) {
      return { verified: false, reason: describeBbs2023Error(error) };
    }
    return verifyDerived(derived, documentLoader, now, options);
  }
  return verifyDerived(document, documentLoader, now, options);
}

export interface VerifyBbs2023Options {
  /**
   * Require the credential's issuer to control the proof's key (default true, as vc.js's credential
   * issuance purpose does). Off, only the proof is checked: for documents whose issuer is not a
   * DID, such as the bbs-2023 specification's own test vectors.
   */
  bindIssuer?: boolean;
}

async function verifyDerived(document: JsonLdDocument, documentLoader: DocumentLoader, now: Date, options: VerifyBbs2023Options): Promise<Bbs2023CheckResult> {
  const { cryptosuite, dataIntegrity, vc } = await libraries();
  const verify = cryptosuite.createVerifyCryptosuite();
  const suite = new dataIntegrity.DataIntegrityProof({ cryptosuite: verify });
  // jsonld-signatures' AssertionProofPurpose is the parent class of vc.js's issuance purpose.
  const AssertionProofPurpose = Object.getPrototypeOf(vc.CredentialIssuancePurpose) as new () => unknown;
  let result: Awaited<ReturnType<typeof vc.verifyCredential>>;
  try {
    result = await vc.verifyCredential({
      credential: copy(document),
      suite,
      documentLoader,
      now,
      maxClockSkew: 60,
      // The proof alone: a credential's status is a check of its own (src/core/status), which
      // fetches nothing from here; vc.js refuses a credentialStatus without a checkStatus.
      checkStatus: PROOF_ONLY_STATUS,
      ...(options.bindIssuer === false ? { purpose: new AssertionProofPurpose() } : {}),
    });
  } catch (error) {
    return { verified: false, reason: describeBbs2023Error(error) };
  }
  const presentationHeader = verify.results?.lastParsedProof?.presentationHeader;
  if (result.verified) return presentationHeader === undefined ? { verified: true } : { verified: true, presentationHeader };
  const error = result.error ?? result.results?.find((entry) => entry.error !== undefined)?.error;
  return { verified: false, reason: error === undefined ? MISMATCH : describeBbs2023Error(error) };
}

/** vc.js's status hook when only the proof is verified here. */
const PROOF_ONLY_STATUS = async (): Promise<{ verified: true }> => ({ verified: true });

const MISMATCH = 'the bbs-2023 proof does not match the disclosed statements (a statement was added, removed or changed, or the key is not the signer)';

/**
 * Which proof the document carries: 'base', 'derived', or why it is not a bbs-2023 proof value
 * (checked before the libraries see it, so a malformed value gets a reason, not a library trap).
 */
export function proofHeader(document: JsonLdDocument): { kind: 'base' | 'derived' } | { problem: string } {
  const proof = document.proof;
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) return { problem: 'the credential has no proof object' };
  const { type, cryptosuite, proofValue, verificationMethod } = proof as Record<string, unknown>;
  if (type !== 'DataIntegrityProof') return { problem: `expected a DataIntegrityProof, got ${shortId(JSON.stringify(type) ?? 'nothing', 60)}` };
  if (cryptosuite !== BBS_2023) return { problem: `expected cryptosuite ${BBS_2023}, got ${shortId(JSON.stringify(cryptosuite) ?? 'nothing', 60)}` };
  if (typeof verificationMethod !== 'string') return { problem: 'the proof has no verificationMethod (expected a did:key URL)' };
  if (typeof proofValue !== 'string' || !/^u[A-Za-z0-9_-]+$/.test(proofValue)) {
    return { problem: 'the proof value is malformed: expected "u" and base64url (multibase) characters' };
  }
  const bytes = Buffer.from(proofValue.slice(1), 'base64url');
  const head = [...bytes.subarray(0, 3)];
  const kind = head.length < 3 ? undefined : head.every((byte, index) => byte === BASE_PROOF_HEADER[index]) ? 'base' : head.every((byte, index) => byte === DERIVED_PROOF_HEADER[index]) ? 'derived' : undefined;
  if (kind === undefined) return { problem: 'the proof value is malformed: it starts with neither the base (d9 5d 02) nor the derived (d9 5d 03) bbs-2023 header' };
  // One encoding per proof: base64url in its canonical form (no stray bits in its last character),
  // then exactly the CBOR of the five components (see bbs2023ProofValue.ts).
  if (bytes.toString('base64url') !== proofValue.slice(1)) return { problem: 'the proof value is malformed: its base64url is not in canonical form' };
  const problem = checkBbs2023ProofPayload(bytes.subarray(3), kind);
  return problem === undefined ? { kind } : { problem };
}

/** A one-line reason for a failure inside the libraries; our own errors keep their message. */
export function describeBbs2023Error(error: unknown): string {
  let reason: string | undefined;
  walkErrorCauses(error, (link) => (reason = bbs2023ErrorReason(link)) !== undefined);
  return reason ?? MISMATCH;
}

/** describeBbs2023Error's sentence for one link of a failure's cause chain; undefined to look at the next link. */
function bbs2023ErrorReason(link: unknown): string | undefined {
  if (isVcError(link)) return link.message.split('\n')[0] ?? link.name;
  // Described in a worker thread already (the library's error object does not cross threads).
  if (link instanceof DescribedProofError) return link.reason;
  if (Array.isArray(link)) return undefined;
  if (!(link instanceof Error)) return MISMATCH;
  const { errors, details } = link as Error & { errors?: unknown[]; details?: { cause?: unknown; code?: unknown } };
  if ((Array.isArray(errors) && errors.length > 0) || details?.cause !== undefined) return undefined;
  if (typeof details?.code === 'string' && /^[a-z @]+$/.test(details.code)) return `the credential is not valid JSON-LD: ${details.code}`;
  if (link.cause !== undefined) return undefined;
  const message = (link.message.split('\n')[0] ?? '').replace(/[^\x20-\x7e]/g, '?');
  if (/invalid signature|invalid proof|did not verify|verification failed/i.test(message)) return MISMATCH;
  // The libraries' own sentences about the document are worth passing on; short, printable.
  if (message.length > 0 && message.length < 200) return `the bbs-2023 proof could not be checked: ${message}`;
  return MISMATCH;
}

