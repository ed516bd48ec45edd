/**
 * The issuer's BBS+ key: a BLS12-381 G2 key pair derived deterministically from a BIP39 phrase
 * (the 64-byte BIP39 seed is the key-generation seed), published as a did:key. The phrase comes
 * from IDP_BLS_SIGN_SEED_PHRASE; without one, a 12-word phrase is generated once and kept in the
 * wallet store (0600). The phrase is a secret: it is returned only by `readIssuerSeedPhrase`.
 */
import { ServiceKey, type Context } from '../../../context.js';
import { blsDidKeyFromPublicKey } from '../../didKey.js';
import { bbsLibraries } from '../../library.js';
import { normaliseSeedPhrase, seedOfPhrase } from '../../../config/seedPhrase.js';
import { InternalError } from '../../../errors.js';
import { readIssuerSeedPhrase, type SeedPhraseSource } from '../../issuerSeed.js';

/** The BBS+ signing key of the issuer with its public identifiers. */
export interface BlsIssuerKey {
  /** did:key of the public key; the issuer of BBS+ credentials. */
  did: string;
  /** `did:key:zUC7...#zUC7...`, the proof's verificationMethod. */
  verificationMethod: string;
  publicKeyBase58: string;
  seedSource: SeedPhraseSource;
  /** The MATTR key pair (holds the private key; never serialise it). */
  keyPair: InstanceType<(typeof import('@mattrglobal/jsonld-signatures-bbs'))['Bls12381G2KeyPair']>;
}

/** Derives the BLS12-381 G2 key pair of a BIP39 phrase: same phrase, same key, on every machine. */
export async function deriveBlsKeyPair(phrase: string, seedSource: SeedPhraseSource = 'config'): Promise<BlsIssuerKey> {
  const normalised = normaliseSeedPhrase(phrase, seedSource === 'config' ? 'IDP_BLS_SIGN_SEED_PHRASE' : 'wallet seed phrase');
  const seed = await seedOfPhrase(normalised);
  const { Bls12381G2KeyPair } = (await bbsLibraries()).bbs;
  const generated = await Bls12381G2KeyPair.generate({ seed });
  const ids = await blsDidKeyFromPublicKey(generated.publicKey);
  return blsKeyFromMaterial({ ...ids, privateKeyBase58: generated.privateKey!, seedSource });
}

/**
 * The issuer's key as plain data, for a worker thread of this same process to sign with (see
 * src/sd/worker): it holds the private key, so it only ever travels between threads, never to a
 * log, a file or a response.
 */
export interface BlsKeyMaterial {
  did: string;
  verificationMethod: string;
  publicKeyBase58: string;
  privateKeyBase58: string;
  seedSource: SeedPhraseSource;
}

/** The plain data of a key (see BlsKeyMaterial). */
export function blsKeyMaterial(key: BlsIssuerKey): BlsKeyMaterial {
  const privateKeyBase58 = key.keyPair.privateKey;
  if (privateKeyBase58 === undefined) throw new InternalError(`the BBS+ key ${key.verificationMethod} has no private key`);
  return { did: key.did, verificationMethod: key.verificationMethod, publicKeyBase58: key.publicKeyBase58, privateKeyBase58, seedSource: key.seedSource };
}

/** The key of some plain data: the MATTR key pair, with id and controller so the suite puts the did:key URL in proof.verificationMethod. */
export async function blsKeyFromMaterial(material: BlsKeyMaterial): Promise<BlsIssuerKey> {
  const { Bls12381G2KeyPair } = (await bbsLibraries()).bbs;
  const keyPair = await Bls12381G2KeyPair.from({
    id: material.verificationMethod,
    controller: material.did,
    publicKeyBase58: material.publicKeyBase58,
    privateKeyBase58: material.privateKeyBase58,
  });
  return { did: material.did, verificationMethod: material.verificationMethod, publicKeyBase58: material.publicKeyBase58, seedSource: material.seedSource, keyPair };
}

const ISSUER_KEY = new ServiceKey<BlsIssuerKey>('bbs.issuerKey');

/** The issuer's BBS+ key for this context (derived once per process). */
export function loadIssuerBlsKey(ctx: Context): Promise<BlsIssuerKey> {
  return ctx.lazy(ISSUER_KEY, async () => {
    const { phrase, source } = await readIssuerSeedPhrase(ctx);
    return deriveBlsKeyPair(phrase, source);
  });
}
