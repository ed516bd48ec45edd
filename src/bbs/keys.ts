/**
 * The issuer's BBS+ key: a BLS12-381 G2 key pair derived deterministically from a BIP39 phrase
 * (the 64-byte BIP39 seed is the key-generation seed), published as a did:key. The phrase comes
 * from IDP_BLS_SIGN_SEED_PHRASE; without one, a 12-word phrase is generated once and kept in the
 * wallet store (0600). The phrase is a secret: it is returned only by `readIssuerSeedPhrase`.
 */
import { ServiceKey, type Context } from '../context.js';
import { blsDidKeyFromPublicKey } from './didKey.js';
import { bbsLibraries } from './library.js';
import { normaliseSeedPhrase } from '../config/seedPhrase.js';

/** Store namespace of the BBS+ key material. */
export const BBS_KEYS_NAMESPACE = 'bbs.keys';
const SEED_PHRASE_KEY = 'issuer.seedPhrase';

/** Where the issuer's seed phrase comes from. */
export type SeedPhraseSource = 'config' | 'wallet';

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

interface StoredSeedPhrase {
  phrase: string;
  createdAt: string;
}

/** Derives the BLS12-381 G2 key pair of a BIP39 phrase: same phrase, same key, on every machine. */
export async function deriveBlsKeyPair(phrase: string, seedSource: SeedPhraseSource = 'config'): Promise<BlsIssuerKey> {
  const normalised = normaliseSeedPhrase(phrase, seedSource === 'config' ? 'IDP_BLS_SIGN_SEED_PHRASE' : 'wallet seed phrase');
  const { mnemonicToSeed } = await import('@scure/bip39');
  const seed = await mnemonicToSeed(normalised);
  const { Bls12381G2KeyPair } = (await bbsLibraries()).bbs;
  const generated = await Bls12381G2KeyPair.generate({ seed });
  const ids = await blsDidKeyFromPublicKey(generated.publicKey);
  // Rebuild with id and controller so the suite puts the did:key URL in proof.verificationMethod.
  const keyPair = await Bls12381G2KeyPair.from({
    id: ids.verificationMethod,
    controller: ids.did,
    publicKeyBase58: generated.publicKey,
    privateKeyBase58: generated.privateKey!,
  });
  return { ...ids, seedSource, keyPair };
}

/**
 * The issuer's seed phrase: IDP_BLS_SIGN_SEED_PHRASE when configured, otherwise the wallet's own
 * phrase, generated on first use inside a transaction so concurrent processes agree on one.
 */
export async function readIssuerSeedPhrase(ctx: Context): Promise<{ phrase: string; source: SeedPhraseSource }> {
  const configured = ctx.config.issuer.blsSeedPhrase;
  if (configured !== undefined) return { phrase: configured, source: 'config' };
  const { generateMnemonic } = await import('@scure/bip39');
  const { wordlist } = await import('@scure/bip39/wordlists/english');
  const stored = ctx.store.getOrCreate<StoredSeedPhrase>(BBS_KEYS_NAMESPACE, SEED_PHRASE_KEY, () => ({
    phrase: generateMnemonic(wordlist, 128),
    createdAt: ctx.now().toISOString(),
  }));
  return { phrase: stored.phrase, source: 'wallet' };
}

const ISSUER_KEY = new ServiceKey<BlsIssuerKey>('bbs.issuerKey');

/** The issuer's BBS+ key for this context (derived once per process). */
export function loadIssuerBlsKey(ctx: Context): Promise<BlsIssuerKey> {
  return ctx.lazy(ISSUER_KEY, async () => {
    const { phrase, source } = await readIssuerSeedPhrase(ctx);
    return deriveBlsKeyPair(phrase, source);
  });
}
