/**
 * The keys of eddsa-rdfc-2022 (Ed25519) and ecdsa-rdfc-2019 (P-256, P-384): the issuer's, derived
 * from the issuer's seed phrase as every suite's key is (same phrase, same keys, on every
 * machine), and the holder's, which signs presentations: random, created on first use and kept in
 * the wallet store (0600). Each key is published as a did:key (rdfcDidKey.ts).
 *
 * Derivation from the phrase: its BIP39 seed, then HKDF-SHA256 with a label naming the suite and
 * the curve, so the keys of different suites share nothing. An Ed25519 key is that 32-byte seed;
 * a P-256 or P-384 secret is 48 or 64 bytes of it reduced into [1, n-1] (the extra bytes make the
 * bias of the reduction negligible, as FIPS 186-5 A.2.1 does).
 */
import { createECDH, createPrivateKey, createPublicKey, hkdfSync, randomBytes } from 'node:crypto';
import { normaliseSeedPhrase, seedOfPhrase } from '../../../config/seedPhrase.js';
import { ServiceKey, type Context } from '../../../context.js';
import { readIssuerSeedPhrase, type SeedPhraseSource } from '../../issuerSeed.js';
import { rdfcDidKeyOf, type RdfcKeyType } from './rdfcDidKey.js';

/** A key as plain data (it crosses to the worker threads of `vc serve` with a signing call): never serialise it elsewhere. */
export interface RdfcKeyMaterial {
  keyType: RdfcKeyType;
  did: string;
  verificationMethod: string;
  publicKey: Uint8Array;
  /** Ed25519: the 32-byte seed; P-256 / P-384: the scalar, big-endian, zero-padded to 32 / 48 bytes. */
  secretKey: Uint8Array;
}

/** A key with where it came from. */
export interface RdfcKey {
  keyType: RdfcKeyType;
  did: string;
  verificationMethod: string;
  publicKeyMultibase: string;
  material: RdfcKeyMaterial;
}

export interface IssuerRdfcKey extends RdfcKey {
  seedSource: SeedPhraseSource;
}

/** The orders of the curves' groups. */
const CURVE_ORDERS: Readonly<Record<'P-256' | 'P-384', bigint>> = {
  'P-256': 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  'P-384': 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
};
const NODE_CURVES: Readonly<Record<'P-256' | 'P-384', string>> = { 'P-256': 'prime256v1', 'P-384': 'secp384r1' };
/** Secret key sizes, and the bytes drawn to reduce into one. */
const SIZES: Readonly<Record<RdfcKeyType, { secret: number; drawn: number }>> = {
  Ed25519: { secret: 32, drawn: 32 },
  'P-256': { secret: 32, drawn: 48 },
  'P-384': { secret: 48, drawn: 64 },
};
/** PKCS #8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

/** `value` big-endian in exactly `size` bytes (leading zeros kept). */
function toBytes(value: bigint, size: number): Uint8Array {
  return new Uint8Array(Buffer.from(value.toString(16).padStart(size * 2, '0'), 'hex'));
}

/** The secret key of `keyType` made from uniformly drawn bytes (SIZES.drawn of them). */
function secretFromDrawn(keyType: RdfcKeyType, drawn: Uint8Array): Uint8Array {
  if (keyType === 'Ed25519') return new Uint8Array(drawn);
  const order = CURVE_ORDERS[keyType];
  return toBytes((toBigInt(drawn) % (order - 1n)) + 1n, SIZES[keyType].secret);
}

/** The public key of a secret key: Ed25519's 32 bytes, or the compressed point. */
export function publicKeyOf(keyType: RdfcKeyType, secretKey: Uint8Array): Uint8Array {
  if (keyType === 'Ed25519') {
    const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, secretKey]), format: 'der', type: 'pkcs8' });
    // The raw key is the last 32 bytes of its SPKI DER.
    return new Uint8Array(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32));
  }
  const ecdh = createECDH(NODE_CURVES[keyType]);
  ecdh.setPrivateKey(Buffer.from(secretKey));
  return new Uint8Array(ecdh.getPublicKey(null, 'compressed'));
}

/** The key of `keyType` with this secret. */
export function rdfcKeyFromSecret(keyType: RdfcKeyType, secretKey: Uint8Array): RdfcKey {
  if (secretKey.length !== SIZES[keyType].secret) throw new Error(`the ${keyType} secret key has ${SIZES[keyType].secret} bytes, not ${secretKey.length}`);
  const publicKey = publicKeyOf(keyType, secretKey);
  const id = rdfcDidKeyOf(keyType, publicKey);
  return {
    keyType,
    did: id.did,
    verificationMethod: id.verificationMethod,
    publicKeyMultibase: id.publicKeyMultibase,
    material: { keyType, did: id.did, verificationMethod: id.verificationMethod, publicKey, secretKey: new Uint8Array(secretKey) },
  };
}

/** The HKDF label of each key type: the suite and the curve, so no two keys of a phrase are related. */
const ISSUER_KEY_LABELS: Readonly<Record<RdfcKeyType, string>> = {
  Ed25519: 'vc issuer key: eddsa-rdfc-2022 Ed25519',
  'P-256': 'vc issuer key: ecdsa-rdfc-2019 P-256',
  'P-384': 'vc issuer key: ecdsa-rdfc-2019 P-384',
};

/** The issuer's key of `keyType` of a BIP39 phrase: same phrase, same key, on every machine. */
export async function deriveIssuerRdfcKey(phrase: string, keyType: RdfcKeyType, seedSource: SeedPhraseSource = 'config'): Promise<IssuerRdfcKey> {
  const normalised = normaliseSeedPhrase(phrase, seedSource === 'config' ? 'IDP_BLS_SIGN_SEED_PHRASE' : 'wallet seed phrase');
  const seed = await seedOfPhrase(normalised);
  const drawn = new Uint8Array(hkdfSync('sha256', seed, new Uint8Array(), ISSUER_KEY_LABELS[keyType], SIZES[keyType].drawn));
  return { ...rdfcKeyFromSecret(keyType, secretFromDrawn(keyType, drawn)), seedSource };
}

const ISSUER_KEYS: Readonly<Record<RdfcKeyType, ServiceKey<IssuerRdfcKey>>> = {
  Ed25519: new ServiceKey<IssuerRdfcKey>('rdfc.issuerKey.Ed25519'),
  'P-256': new ServiceKey<IssuerRdfcKey>('rdfc.issuerKey.P-256'),
  'P-384': new ServiceKey<IssuerRdfcKey>('rdfc.issuerKey.P-384'),
};

/** The issuer's key of `keyType` for this context (derived once per process). */
export function loadIssuerRdfcKey(ctx: Context, keyType: RdfcKeyType): Promise<IssuerRdfcKey> {
  return ctx.lazy(ISSUER_KEYS[keyType], async () => {
    const { phrase, source } = await readIssuerSeedPhrase(ctx);
    return deriveIssuerRdfcKey(phrase, keyType, source);
  });
}

/** Store namespace of the holder's presentation keys. */
export const HOLDER_KEYS_NAMESPACE = 'vp.keys';

interface StoredHolderKey {
  keyType: RdfcKeyType;
  /** The secret key, hex. */
  secretKey: string;
  createdAt: string;
}

/** The did:key identifiers of the holder's presentation keys created so far (none is created here). */
export function existingHolderKeyDids(ctx: Context): string[] {
  return ctx.store.list<StoredHolderKey>(HOLDER_KEYS_NAMESPACE).map(({ value }) => rdfcKeyFromSecret(value.keyType, new Uint8Array(Buffer.from(value.secretKey, 'hex'))).did);
}

/**
 * The holder's key of `keyType`, which signs its presentations: created at random on first use
 * inside a store transaction (so concurrent processes agree on one) and kept in the wallet.
 */
export function loadHolderRdfcKey(ctx: Context, keyType: RdfcKeyType): RdfcKey {
  const stored = ctx.store.getOrCreate<StoredHolderKey>(HOLDER_KEYS_NAMESPACE, `holder.${keyType}`, () => ({
    keyType,
    secretKey: Buffer.from(secretFromDrawn(keyType, new Uint8Array(randomBytes(SIZES[keyType].drawn)))).toString('hex'),
    createdAt: ctx.now().toISOString(),
  }));
  return rdfcKeyFromSecret(keyType, new Uint8Array(Buffer.from(stored.secretKey, 'hex')));
}
