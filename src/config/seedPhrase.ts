/**
 * The one rule for BIP39 seed phrases (IDP_BLS_SIGN_SEED_PHRASE, the wallet's own phrase): 12 or
 * 24 English words with a valid checksum, compared case-insensitively and normalised to single
 * spaces in lower case. Synchronous and light (no MATTR), because configuration parsing, which
 * every command runs, uses it.
 */
import { pbkdf2 } from 'node:crypto';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { ConfigError } from '../errors.js';

/** A checked phrase: the normalised phrase, or what was expected instead (never echoing it). */
export type SeedPhraseCheck = { phrase: string; expected?: undefined } | { phrase?: undefined; expected: string };

/** Checks a BIP39 phrase; returns it normalised, or a description of what was expected. */
export function checkSeedPhrase(raw: string): SeedPhraseCheck {
  const words = raw.trim().split(/\s+/).filter((word) => word !== '');
  if (words.length !== 12 && words.length !== 24) return { expected: `a BIP39 phrase of 12 or 24 words (got ${words.length})` };
  const phrase = words.join(' ').toLowerCase();
  if (!validateMnemonic(phrase, wordlist)) return { expected: 'a valid BIP39 English phrase (unknown word or bad checksum)' };
  return { phrase };
}

/** Checks a BIP39 phrase and returns it normalised; ConfigError naming `source` otherwise. */
export function normaliseSeedPhrase(raw: string, source: string): string {
  const checked = checkSeedPhrase(raw);
  if (checked.phrase === undefined) throw new ConfigError(`${source}: expected ${checked.expected}`, { field: source });
  return checked.phrase;
}

/**
 * The BIP39 seed of a checked phrase (no passphrase): PBKDF2-HMAC-SHA512 of its NFKD form, salt
 * "mnemonic", 2048 rounds, 64 bytes. The same bytes as @scure/bip39's mnemonicToSeed, computed by
 * node:crypto off the main thread (about 1 ms) instead of in JavaScript on it (60 to 100 ms), which
 * every command that signs or derives a key paid once per key type.
 */
export function seedOfPhrase(phrase: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    pbkdf2(phrase.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512', (error, seed) => (error === null ? resolve(new Uint8Array(seed)) : reject(error)));
  });
}
