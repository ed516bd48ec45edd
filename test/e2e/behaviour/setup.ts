/**
 * Fixed inputs of the behavioural suite: the issuer's seed phrase and the verifier's trust list
 * (so "trusted" and "untrusted" are decided by configuration, as in production), a subject, and a
 * foreign issuer the verifier does not trust.
 */
import path from 'node:path';
import type { RawVariables } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { parseConfig } from '../../../src/config/parse.js';
import type { Json } from './driver.js';

/** The BIP39 test phrase of the issuer under test (IDP_BLS_SIGN_SEED_PHRASE). */
export const ISSUER_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
/** Its did:key (pinned in test/core/sd/core.test.ts as well). */
export const ISSUER_DID =
  'did:key:zUC7H4kksLQr5yQHYBW45AW3cppuvvG5vdhzWKZN7ZwHcBPG1cBGCTxSgyURgPxhmRZriy3vtgQZEjgEAni1Qmd2mZNxQJkCYoTnSp7Z5fsGr3pmfwCCBBqnkzghotM6RGcswkw';
/** Another valid phrase: an issuer the verifier under test does not trust. */
export const FOREIGN_PHRASE = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** Configuration of the wallet under test (same for both drivers). */
export function behaviourVariables(extra: RawVariables = {}): RawVariables {
  return { IDP_BLS_SIGN_SEED_PHRASE: ISSUER_PHRASE, VC_TRUSTED_ISSUERS: ISSUER_DID, ...extra };
}

/** A PassportCredential subject with a holder identifier (the suite gives it the holder's own DID, so its holder keeps it). */
export const SUBJECT: Json = {
  id: 'did:example:holder-7',
  name: 'Ada Lovelace',
  passportNumber: 'P7654321',
  nationality: 'GBR',
  birthDate: 19851210,
  customerReference: '0b8f6c2e-5a3d-4e71-9c20-6f1e2d3c4b5a',
  expiryDate: 20350101,
  publicAddress: '0x5c0e9f1d2b4a6c8e0f1a3b5c2a9c6b1e4f8d3a7b',
};

/** A PassportCredential for `subject` signed by FOREIGN_PHRASE's key, issued in a wallet of its own under `root`. */
export async function issueForeignCredential(root: string, subject: Json = SUBJECT): Promise<Json> {
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FOREIGN_PHRASE }, path.join(root, 'foreign-issuer')) });
  try {
    const { issueSelectiveDisclosureCredential } = await import('../../../src/core/sd/sdIssuance.js');
    return (await issueSelectiveDisclosureCredential(ctx, { subject, store: false })) as Json;
  } finally {
    await ctx.close();
  }
}
