/**
 * did:key for the keys of eddsa-rdfc-2022 (Ed25519) and ecdsa-rdfc-2019 (P-256 and P-384, as
 * compressed points): the identifier is 'z' (multibase base58btc) and the base58 of the multicodec
 * header (ed25519-pub 0xed 0x01, p256-pub 0x80 0x24, p384-pub 0x81 0x24) followed by the key, and
 * a verifier resolves it offline because the identifier carries the key itself.
 *
 * A key type is recognised by decoding the whole identifier and reading its header and length,
 * never by the leading characters of the text: base58 is positional over the whole number, so the
 * key's own bytes reach into the first characters (the BLS12-381 keys showed it: most start zUC7,
 * some zUC6). test/sd/suites/rdfc/rdfcDidKey.test.ts checks every first byte, keys of all zeros
 * and all ones, and thousands of random keys against Digital Bazaar's own encoders.
 */
import { UnprocessableError } from '../../../errors.js';
import { shortId } from '../../didKey.js';
import { decodeBase58, encodeBase58 } from './base58btc.js';

/** The key types of the two suites. */
export type RdfcKeyType = 'Ed25519' | 'P-256' | 'P-384';
export const RDFC_KEY_TYPES: readonly RdfcKeyType[] = ['Ed25519', 'P-256', 'P-384'];

interface KeyFormat {
  header: readonly [number, number];
  /** The key's length in bytes (a compressed point for the curves). */
  length: number;
  /** An EC point is compressed: its first byte is 02 or 03. */
  compressed: boolean;
}

const FORMATS: Readonly<Record<RdfcKeyType, KeyFormat>> = {
  Ed25519: { header: [0xed, 0x01], length: 32, compressed: false },
  'P-256': { header: [0x80, 0x24], length: 33, compressed: true },
  'P-384': { header: [0x81, 0x24], length: 49, compressed: true },
};

const DID_KEY_PREFIX = 'did:key:';
/** No identifier of these keys is longer (P-384: 71 characters); checked before decoding, whose cost grows with the square of the length. */
const MAX_MULTIBASE_LENGTH = 80;
const MULTIKEY_V1_URL = 'https://w3id.org/security/multikey/v1';
const DID_V1_URL = 'https://www.w3.org/ns/did/v1';

/** A public key as did:key identifies it. */
export interface RdfcDidKey {
  keyType: RdfcKeyType;
  /** The raw key: 32 bytes (Ed25519) or a compressed point (33 or 49 bytes). */
  publicKey: Uint8Array;
  /** 'z' and base58btc of the multicodec header and the key. */
  publicKeyMultibase: string;
  did: string;
  /** `did:key:z...#z...`: the key's only verification method. */
  verificationMethod: string;
}

/** The did:key identifiers of a raw public key of `keyType`; throws when the bytes cannot be such a key. */
export function rdfcDidKeyOf(keyType: RdfcKeyType, publicKey: Uint8Array): RdfcDidKey {
  const format = FORMATS[keyType];
  if (publicKey.length !== format.length) throw new Error(`the ${keyType} public key has ${format.length} bytes, not ${publicKey.length}`);
  if (format.compressed && publicKey[0] !== 0x02 && publicKey[0] !== 0x03) throw new Error(`a compressed ${keyType} point starts with 02 or 03, not ${publicKey[0]}`);
  const multikey = new Uint8Array(2 + publicKey.length);
  multikey.set(format.header);
  multikey.set(publicKey, 2);
  const publicKeyMultibase = `z${encodeBase58(multikey)}`;
  const did = `${DID_KEY_PREFIX}${publicKeyMultibase}`;
  return { keyType, publicKey: new Uint8Array(publicKey), publicKeyMultibase, did, verificationMethod: `${did}#${publicKeyMultibase}` };
}

function article(keyType: RdfcKeyType): string {
  return keyType === 'Ed25519' ? 'an' : 'a';
}

/** The key a multibase public key (`z...`) holds, or why it is not a key of these suites. */
export function decodeRdfcMultibase(multibase: string): RdfcDidKey | { problem: string } {
  if (!multibase.startsWith('z') || multibase.length > MAX_MULTIBASE_LENGTH) return { problem: 'expected "z" and base58btc of an Ed25519, P-256 or P-384 key' };
  const bytes = decodeBase58(multibase.slice(1));
  if (bytes === undefined) return { problem: 'a character is not base58btc' };
  for (const keyType of RDFC_KEY_TYPES) {
    const format = FORMATS[keyType];
    if (bytes[0] !== format.header[0] || bytes[1] !== format.header[1]) continue;
    if (bytes.length !== 2 + format.length) return { problem: `${article(keyType)} ${keyType} key has ${format.length} bytes, this one ${bytes.length - 2}` };
    const publicKey = bytes.subarray(2);
    if (format.compressed && publicKey[0] !== 0x02 && publicKey[0] !== 0x03) return { problem: `a ${keyType} key is a compressed point (02 or 03 first)` };
    const key = rdfcDidKeyOf(keyType, publicKey);
    // Canonical form only: the text must be what the key encodes to (no other spelling of a key).
    if (key.publicKeyMultibase !== multibase) return { problem: 'not the canonical base58btc of its key' };
    return key;
  }
  return { problem: 'its multicodec header is not ed25519-pub (0xed01), p256-pub (0x8024) or p384-pub (0x8124)' };
}

/** True for a did:key (or a DID URL of one) of an Ed25519, P-256 or P-384 key. */
export function isRdfcDidKeyUrl(url: string): boolean {
  if (!url.startsWith(DID_KEY_PREFIX)) return false;
  const did = url.split('#', 1)[0]!;
  return !('problem' in decodeRdfcMultibase(did.slice(DID_KEY_PREFIX.length)));
}

/** The key of a did:key or of its DID URL `did:key:z...#z...`; an UnprocessableError naming what is wrong otherwise. */
export function parseRdfcDidKey(url: string): RdfcDidKey {
  const [did, fragment] = url.split('#', 2) as [string, string | undefined];
  if (!did.startsWith(DID_KEY_PREFIX)) throw new UnprocessableError(`${shortId(url)} is not a did:key`, { field: 'verificationMethod' });
  const key = decodeRdfcMultibase(did.slice(DID_KEY_PREFIX.length));
  if ('problem' in key) throw new UnprocessableError(`${shortId(did)} is not a did:key of an Ed25519, P-256 or P-384 key (${key.problem})`, { field: 'verificationMethod' });
  if (fragment !== undefined && fragment !== key.publicKeyMultibase) {
    throw new UnprocessableError(`${shortId(url)}: unknown verification method (a did:key has only #${key.publicKeyMultibase})`, { field: 'verificationMethod' });
  }
  return key;
}

/**
 * A did:key resolved as the did:key method defines it for Multikey: the DID document (for a DID),
 * or the verification method itself (for the DID URL naming the key).
 */
export function resolveRdfcDidKey(url: string): Record<string, unknown> {
  const key = parseRdfcDidKey(url);
  const method = { id: key.verificationMethod, type: 'Multikey', controller: key.did, publicKeyMultibase: key.publicKeyMultibase };
  if (url.includes('#')) return { '@context': MULTIKEY_V1_URL, ...method };
  return {
    '@context': [DID_V1_URL, MULTIKEY_V1_URL],
    id: key.did,
    verificationMethod: [method],
    assertionMethod: [key.verificationMethod],
    authentication: [key.verificationMethod],
    capabilityInvocation: [key.verificationMethod],
    capabilityDelegation: [key.verificationMethod],
  };
}
