import { generateMnemonic, mnemonicToSeed } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { describe, expect, it } from 'vitest';
import { normaliseSeedPhrase, seedOfPhrase } from '../../src/config/seedPhrase.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('seedOfPhrase (the BIP39 seed, by node:crypto)', () => {
  it('gives the published seed of the all-abandon phrase with no passphrase', async () => {
    // BIP39's reference vector, as every BIP39 tool shows it (the Trezor vectors add the passphrase "TREZOR").
    const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    expect(hex(await seedOfPhrase(phrase))).toBe('5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4');
  });

  it('gives the bytes of @scure/bip39 mnemonicToSeed for 12- and 24-word phrases', async () => {
    const phrases = [
      'legal winner thank year wave sausage worth useful legal winner thank yellow',
      ...Array.from({ length: 4 }, (_, index) => generateMnemonic(wordlist, index % 2 === 0 ? 128 : 256)),
    ];
    for (const phrase of phrases) {
      const normalised = normaliseSeedPhrase(phrase, 'phrase');
      const seed = await seedOfPhrase(normalised);
      expect(seed).toBeInstanceOf(Uint8Array);
      expect(seed.length).toBe(64);
      expect(hex(seed), phrase.split(' ').length.toString()).toBe(hex(await mnemonicToSeed(normalised)));
    }
    // Another phrase, another seed.
    expect(hex(await seedOfPhrase(phrases[0]!))).not.toBe(hex(await seedOfPhrase(phrases[1]!)));
  });
});
