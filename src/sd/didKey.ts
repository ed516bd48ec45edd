/**
 * did:key for BLS12-381 G2 public keys (multicodec 0xeb, base58btc multibase 'z'): the issuer's
 * BBS+ key is published as `did:key:zUC7...#zUC7...` (or zUC6..., see below), and a verifier
 * resolves it offline because the identifier carries the key itself.
 */
import { UnprocessableError } from '../errors.js';
import { bbsLibraries } from './library.js';
import { BBS_V1_URL } from './contextUrls.js';

const DID_KEY_PREFIX = 'did:key:';
/**
 * The leading characters of a BLS12-381 G2 fingerprint: 'z' (multibase base58btc), then the
 * base58 of the 98 bytes 0xeb 0x01 (the multicodec varint of bls12_381-g2-pub) and the 96-byte key.
 * Base58 is positional over the whole number, so the key's own bytes reach the third character:
 * the 98-byte numbers that start 0xeb 0x01 span "UC6E..." to "UC7m..." (all 134 characters long).
 * Most keys give "zUC7", about 1 in 300 (a compressed key whose first byte is 0x80 and second is
 * small) gives "zUC6"; both are the same kind of key.
 */
const BLS_G2_FINGERPRINT_PREFIXES = ['zUC6', 'zUC7'] as const;

/** The DID and verification method id of a BLS12-381 G2 key. */
export interface BlsDidKey {
  did: string;
  verificationMethod: string;
  publicKeyBase58: string;
}

/** A resolved did:key document, with the key as its only verification method. */
export interface BlsDidDocument {
  '@context': string[];
  id: string;
  verificationMethod: Array<{ id: string; type: 'Bls12381G2Key2020'; controller: string; publicKeyBase58: string }>;
  assertionMethod: string[];
  authentication: string[];
  capabilityInvocation: string[];
  capabilityDelegation: string[];
}

/**
 * A BLS12-381 G2 fingerprint: 'z' + base58btc of 0xeb 0x01 and the 96-byte key, 135 characters
 * (checked before decoding: base58 decoding costs the square of the length).
 */
const BLS_G2_FINGERPRINT = /^zUC[67][1-9A-HJ-NP-Za-km-z]{131}$/;

/** A short, printable form of an untrusted identifier for messages. */
export function shortId(value: string, max = 160): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}

/** True for a did:key URL (DID or DID URL with fragment) whose key is BLS12-381 G2. */
export function isBlsDidKeyUrl(url: string): boolean {
  return BLS_G2_FINGERPRINT_PREFIXES.some((prefix) => url.startsWith(`${DID_KEY_PREFIX}${prefix}`));
}

/** The did:key identifiers of a public key given in base58 (as Bls12381G2KeyPair exposes it). */
export async function blsDidKeyFromPublicKey(publicKeyBase58: string): Promise<BlsDidKey> {
  const { Bls12381G2KeyPair } = (await bbsLibraries()).bbs;
  const fingerprint = Bls12381G2KeyPair.fingerprintFromPublicKey({ publicKeyBase58 });
  const did = `${DID_KEY_PREFIX}${fingerprint}`;
  return { did, verificationMethod: `${did}#${fingerprint}`, publicKeyBase58 };
}

/**
 * Resolves a BLS12-381 G2 did:key (or one of its DID URLs) into its DID document by decoding the
 * identifier; the fragment, when present, must be the key's own fingerprint.
 */
export async function resolveBlsDidKey(url: string): Promise<BlsDidDocument> {
  const [did, fragment] = url.split('#', 2) as [string, string | undefined];
  const fingerprint = did.slice(DID_KEY_PREFIX.length);
  if (!BLS_G2_FINGERPRINT.test(fingerprint)) {
    throw new UnprocessableError(`${shortId(did)} is not a valid BLS12-381 G2 did:key (expected did:key:zUC7 or did:key:zUC6 and 131 base58 characters)`, { field: 'verificationMethod' });
  }
  const { Bls12381G2KeyPair } = (await bbsLibraries()).bbs;
  let publicKeyBase58: string;
  try {
    publicKeyBase58 = Bls12381G2KeyPair.fromFingerprint({ fingerprint }).publicKey;
  } catch (error) {
    throw new UnprocessableError(`${shortId(did)} is not a valid BLS12-381 G2 did:key (its key does not decode)`, { field: 'verificationMethod', cause: error });
  }
  if (fragment !== undefined && fragment !== fingerprint) {
    throw new UnprocessableError(`${shortId(url)}: unknown verification method (a did:key has only #${fingerprint})`, { field: 'verificationMethod' });
  }
  const verificationMethod = `${did}#${fingerprint}`;
  return {
    '@context': ['https://www.w3.org/ns/did/v1', BBS_V1_URL],
    id: did,
    verificationMethod: [{ id: verificationMethod, type: 'Bls12381G2Key2020', controller: did, publicKeyBase58 }],
    assertionMethod: [verificationMethod],
    authentication: [verificationMethod],
    capabilityInvocation: [verificationMethod],
    capabilityDelegation: [verificationMethod],
  };
}
