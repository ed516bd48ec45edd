/**
 * Describing the issuer's BBS+ key: its public identifiers, and the seed phrase only on request.
 */
import type { Context } from '../../context.js';
import { loadIssuerBlsKey, readIssuerSeedPhrase, type SeedPhraseSource } from '../../bbs/keys.js';

export interface IssuerBlsKeyDescription {
  did: string;
  verificationMethod: string;
  type: 'Bls12381G2Key2020';
  publicKeyBase58: string;
  /** config: IDP_BLS_SIGN_SEED_PHRASE; wallet: generated once and kept in the wallet store. */
  seedSource: SeedPhraseSource;
  /** Present only with `showSecret`. */
  seedPhrase?: string;
}

/** The issuer's BBS+ public key as a did:key; includes the seed phrase only when `showSecret` is set. */
export async function describeIssuerBlsKey(ctx: Context, options: { showSecret?: boolean } = {}): Promise<IssuerBlsKeyDescription> {
  const key = await loadIssuerBlsKey(ctx);
  const description: IssuerBlsKeyDescription = {
    did: key.did,
    verificationMethod: key.verificationMethod,
    type: 'Bls12381G2Key2020',
    publicKeyBase58: key.publicKeyBase58,
    seedSource: key.seedSource,
  };
  if (options.showSecret === true) description.seedPhrase = (await readIssuerSeedPhrase(ctx)).phrase;
  return description;
}
