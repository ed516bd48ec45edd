/**
 * The issuer's seed phrase, from which every suite derives its key (each by its own key
 * generation): IDP_BLS_SIGN_SEED_PHRASE, or else a 12-word phrase generated once and kept in the
 * wallet store (0600). The phrase is a secret: only `readIssuerSeedPhrase` returns it.
 */
import type { Context } from '../context.js';

/** Store namespace of the BBS+ key material. */
export const BBS_KEYS_NAMESPACE = 'bbs.keys';
const SEED_PHRASE_KEY = 'issuer.seedPhrase';

/** Where the issuer's seed phrase comes from. */
export type SeedPhraseSource = 'config' | 'wallet';

interface StoredSeedPhrase {
  phrase: string;
  createdAt: string;
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
