/**
 * did:key of Ed25519, P-256 and P-384 keys, and the keys behind them: every identifier vc makes is
 * the one Digital Bazaar's multikey libraries make for the same key (many keys, every value of a
 * key's leading bytes, keys of all zeros and all ones, secrets with leading zero bytes), every one
 * decodes back to its key, and what is not such a key is refused with a reason. The base58 codec
 * agrees with an independent one (@scure/base) on leading zeros.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { decodeBase58, encodeBase58 } from '../../../../src/sd/suites/rdfc/base58btc.js';
import { decodeRdfcMultibase, isRdfcDidKeyUrl, parseRdfcDidKey, rdfcDidKeyOf, resolveRdfcDidKey } from '../../../../src/sd/suites/rdfc/rdfcDidKey.js';
import { deriveIssuerRdfcKey, rdfcKeyFromSecret } from '../../../../src/sd/suites/rdfc/rdfcKeys.js';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

function roundTrips(multibase: string): void {
  const decoded = decodeRdfcMultibase(multibase);
  expect(decoded, multibase).not.toHaveProperty('problem');
  const key = decoded as Exclude<typeof decoded, { problem: string }>;
  expect(key.publicKeyMultibase).toBe(multibase);
  expect(isRdfcDidKeyUrl(`did:key:${multibase}#${multibase}`)).toBe(true);
}

describe('base58btc', () => {
  it('agrees with @scure/base on random bytes, leading zeros included, both ways', () => {
    for (let i = 0; i < 2000; i++) {
      const bytes = new Uint8Array(randomBytes(1 + (i % 70)));
      if (i % 3 === 0) bytes.fill(0, 0, 1 + (i % 5));
      const text = encodeBase58(bytes);
      expect(text).toBe(base58.encode(bytes));
      expect(decodeBase58(text)).toEqual(bytes);
    }
    expect(encodeBase58(new Uint8Array([0, 0, 0]))).toBe('111');
    expect(decodeBase58('0OIl')).toBeUndefined();
  });
});

describe('Ed25519 did:key', () => {
  it('is what @digitalbazaar/ed25519-multikey makes, for a seed of every byte value and 100 random ones', async () => {
    const seeds = [...Array.from({ length: 256 }, (_, value) => new Uint8Array(32).fill(value)), ...Array.from({ length: 100 }, () => new Uint8Array(randomBytes(32)))];
    for (const seed of seeds) {
      const theirs = await Ed25519Multikey.generate({ seed });
      const { publicKeyMultibase } = await theirs.export({ publicKey: true });
      const ours = rdfcKeyFromSecret('Ed25519', seed);
      expect(ours.publicKeyMultibase).toBe(publicKeyMultibase);
      expect(ours.did).toBe(`did:key:${publicKeyMultibase!}`);
      roundTrips(ours.publicKeyMultibase);
    }
  });

  it('encodes any 32 bytes (all zeros, all ones, each first byte, leading zeros) as the library does, and back', async () => {
    const keys = [new Uint8Array(32), new Uint8Array(32).fill(0xff), ...Array.from({ length: 256 }, (_, first) => Uint8Array.from([first, ...randomBytes(31)])), Uint8Array.from([0, 0, 0, ...randomBytes(29)])];
    for (const publicKey of keys) {
      const { publicKeyMultibase } = await (await Ed25519Multikey.from({ type: 'Multikey', publicKeyMultibase: rdfcDidKeyOf('Ed25519', publicKey).publicKeyMultibase })).export({ publicKey: true });
      const ours = rdfcDidKeyOf('Ed25519', publicKey);
      expect(ours.publicKeyMultibase).toBe(publicKeyMultibase);
      expect(parseRdfcDidKey(ours.did).publicKey).toEqual(publicKey);
      roundTrips(ours.publicKeyMultibase);
    }
  });
});

describe('P-256 and P-384 did:key (compressed points)', () => {
  for (const [curve, count] of [['P-256', 300], ['P-384', 150]] as const) {
    it(`${curve}: ${count} keys of @digitalbazaar/ecdsa-multikey encode as the library does and decode to the same point`, async () => {
      for (let i = 0; i < count; i++) {
        const theirs = await EcdsaMultikey.generate({ curve });
        const { publicKey } = await theirs.export({ publicKey: true, raw: true });
        const ours = rdfcDidKeyOf(curve, publicKey!);
        expect(ours.publicKeyMultibase).toBe(theirs.publicKeyMultibase);
        expect(parseRdfcDidKey(ours.verificationMethod)).toMatchObject({ keyType: curve, publicKey: publicKey! });
        roundTrips(ours.publicKeyMultibase);
      }
    });

    it(`${curve}: secrets with leading zero bytes and every first byte give the library's public key`, async () => {
      const size = curve === 'P-256' ? 32 : 48;
      const secrets = [
        Uint8Array.from([0, 0, ...randomBytes(size - 2)]),
        Uint8Array.from([0, ...randomBytes(size - 1)]),
        ...Array.from({ length: 64 }, (_, i) => Uint8Array.from([i * 3, ...randomBytes(size - 1)])),
      ].filter((secret) => secret.some((byte) => byte !== 0));
      for (const secret of secrets) {
        const ours = rdfcKeyFromSecret(curve, secret);
        // The library's own import of the raw secret derives the point itself (WebCrypto).
        const theirs = await EcdsaMultikey.fromRaw({ curve, secretKey: secret, publicKey: ours.material.publicKey });
        const { secretKey } = await theirs.export({ secretKey: true, raw: true });
        expect(Buffer.from(secretKey!).toString('hex')).toBe(Buffer.from(secret).toString('hex'));
        expect(theirs.publicKeyMultibase).toBe(ours.publicKeyMultibase);
        const signature = await theirs.signer().sign({ data: new Uint8Array([1, 2, 3]) });
        const verifier = (await EcdsaMultikey.from({ type: 'Multikey', publicKeyMultibase: ours.publicKeyMultibase })).verifier();
        expect(await verifier.verify({ data: new Uint8Array([1, 2, 3]), signature })).toBe(true);
      }
    });
  }
});

describe('what is not such a key', () => {
  it('is refused with a reason: another multicodec, a wrong length, an uncompressed point, a non-canonical text, bad characters', () => {
    const ed = rdfcDidKeyOf('Ed25519', new Uint8Array(randomBytes(32)));
    const bls = 'zUC7Ef7qTzVLYV3uCTbvFKExa5KxYJ2kXe3g9zDgkeM2Ds8tPKX4sY7NRVwvw2iQpbdpmUPpBsEvYkBeZVFDAW8g2Zh';
    expect(decodeRdfcMultibase(bls)).toMatchObject({ problem: expect.stringMatching(/./) });
    const short = `z${encodeBase58(Uint8Array.from([0xed, 0x01, ...randomBytes(31)]))}`;
    expect(decodeRdfcMultibase(short)).toEqual({ problem: 'an Ed25519 key has 32 bytes, this one 31' });
    const uncompressed = `z${encodeBase58(Uint8Array.from([0x80, 0x24, 0x04, ...randomBytes(32)]))}`;
    expect(decodeRdfcMultibase(uncompressed)).toMatchObject({ problem: expect.stringMatching(/compressed point/) });
    // A leading '1' is a leading zero byte: another byte string, so not this key's identifier.
    expect(decodeRdfcMultibase(`z1${ed.publicKeyMultibase.slice(1)}`)).toMatchObject({ problem: expect.stringMatching(/multicodec header/) });
    expect(decodeRdfcMultibase(`${ed.publicKeyMultibase.slice(0, 10)}0${ed.publicKeyMultibase.slice(11)}`)).toEqual({ problem: 'a character is not base58btc' });
    expect(decodeRdfcMultibase(`z${'2'.repeat(200)}`)).toMatchObject({ problem: expect.stringMatching(/expected/) });
    expect(() => parseRdfcDidKey(`${ed.did}#key-1`)).toThrow(/unknown verification method/);
    expect(() => parseRdfcDidKey('did:web:example.com')).toThrow(/not a did:key/);
    expect(isRdfcDidKeyUrl(`did:key:${bls}`)).toBe(false);
  });

  it('resolves a did:key to its DID document and its key URL to the Multikey method', () => {
    const key = rdfcDidKeyOf('P-256', Uint8Array.from([2, ...randomBytes(32)]));
    expect(resolveRdfcDidKey(key.did)).toMatchObject({ id: key.did, authentication: [key.verificationMethod], assertionMethod: [key.verificationMethod] });
    expect(resolveRdfcDidKey(key.verificationMethod)).toEqual({
      '@context': 'https://w3id.org/security/multikey/v1',
      id: key.verificationMethod,
      type: 'Multikey',
      controller: key.did,
      publicKeyMultibase: key.publicKeyMultibase,
    });
  });
});

describe("the issuer's keys", () => {
  it('derive from the seed phrase: the same phrase gives the same keys, each key type another key', async () => {
    const keys = await Promise.all((['Ed25519', 'P-256', 'P-384'] as const).map((keyType) => deriveIssuerRdfcKey(PHRASE, keyType)));
    const again = await Promise.all((['Ed25519', 'P-256', 'P-384'] as const).map((keyType) => deriveIssuerRdfcKey(PHRASE, keyType)));
    expect(again.map((key) => key.did)).toEqual(keys.map((key) => key.did));
    expect(new Set(keys.map((key) => Buffer.from(key.material.secretKey).toString('hex'))).size).toBe(3);
    const other = await deriveIssuerRdfcKey('letter advice cage absurd amount doctor acoustic avoid letter advice cage above', 'Ed25519');
    expect(other.did).not.toBe(keys[0]!.did);
    expect(keys.map((key) => parseRdfcDidKey(key.did).keyType)).toEqual(['Ed25519', 'P-256', 'P-384']);
  });
});
