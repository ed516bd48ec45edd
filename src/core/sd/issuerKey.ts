/**
 * Describing the issuer's keys (BBS+, bbs-2023, eddsa-rdfc-2022, ecdsa-rdfc-2019): their public
 * identifiers, and the seed phrase only on request.
 */
import type { Context } from '../../context.js';
import { loadIssuerBlsKey } from '../../sd/suites/bbs2020/bbs2020Keys.js';
import { readIssuerSeedPhrase, type SeedPhraseSource } from '../../sd/issuerSeed.js';
import { loadIssuerBbs2023Key } from '../../sd/suites/bbs2023/bbs2023Suite.js';
import { loadIssuerRdfcKey, type RdfcKey } from '../../sd/suites/rdfc/rdfcKeys.js';

/** A public key as a did:key Multikey. */
export interface MultikeyDescription {
  did: string;
  verificationMethod: string;
  type: 'Multikey';
  publicKeyMultibase: string;
}

function multikey(key: RdfcKey): MultikeyDescription {
  return { did: key.did, verificationMethod: key.verificationMethod, type: 'Multikey', publicKeyMultibase: key.publicKeyMultibase };
}

export interface IssuerBlsKeyDescription {
  did: string;
  verificationMethod: string;
  type: 'Bls12381G2Key2020';
  publicKeyBase58: string;
  /** config: IDP_BLS_SIGN_SEED_PHRASE; wallet: generated once and kept in the wallet store. */
  seedSource: SeedPhraseSource;
  /** Present only with `showSecret`. */
  seedPhrase?: string;
  /** The bbs-2023 key of the same phrase (the IETF BBS key generation, so another key and did:key). */
  bbs2023: { did: string; verificationMethod: string; type: 'Multikey'; publicKeyMultibase: string };
  /** The eddsa-rdfc-2022 (Ed25519) key of the same phrase. */
  eddsaRdfc2022: MultikeyDescription;
  /** The ecdsa-rdfc-2019 keys of the same phrase. */
  ecdsaRdfc2019: { 'P-256': MultikeyDescription; 'P-384': MultikeyDescription };
}

/** The issuer's BBS+ public key as a did:key; includes the seed phrase only when `showSecret` is set. */
export async function describeIssuerBlsKey(ctx: Context, options: { showSecret?: boolean } = {}): Promise<IssuerBlsKeyDescription> {
  const key = await loadIssuerBlsKey(ctx);
  const key2023 = await loadIssuerBbs2023Key(ctx);
  const description: IssuerBlsKeyDescription = {
    did: key.did,
    verificationMethod: key.verificationMethod,
    type: 'Bls12381G2Key2020',
    publicKeyBase58: key.publicKeyBase58,
    seedSource: key.seedSource,
    bbs2023: { did: key2023.did, verificationMethod: key2023.verificationMethod, type: 'Multikey', publicKeyMultibase: key2023.publicKeyMultibase },
    eddsaRdfc2022: multikey(await loadIssuerRdfcKey(ctx, 'Ed25519')),
    ecdsaRdfc2019: { 'P-256': multikey(await loadIssuerRdfcKey(ctx, 'P-256')), 'P-384': multikey(await loadIssuerRdfcKey(ctx, 'P-384')) },
  };
  if (options.showSecret === true) description.seedPhrase = (await readIssuerSeedPhrase(ctx)).phrase;
  return description;
}
