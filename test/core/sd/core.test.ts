/**
 * In-process tests of the BBS+ building blocks: key derivation against the raw libraries, the
 * offline document loader, and nonce expiry with an injected clock.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';
import { createStaticDocumentLoader, UnknownDocumentError, BUNDLED_DOCUMENTS } from '../../../src/sd/documentLoader.js';
import { deriveBlsKeyPair } from '../../../src/sd/suites/bbs2020/bbs2020Keys.js';
import { resolveBlsDidKey } from '../../../src/sd/didKey.js';
import { createVerifierNonce, deriveSelectiveDisclosure, issueSelectiveDisclosureCredential, verifySelectiveDisclosure } from '../../../src/core/sd/index.js';
import { SD_NONCES_NAMESPACE } from '../../../src/core/sd/sdRecords.js';
import { InputError } from '../../../src/errors.js';
import { tempDir } from '../../helpers.js';
import { holdDirectly } from '../holder/support.js';

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
/** The did:key of FIXED_PHRASE: pinned so a library change that alters derivation is caught. */
const FIXED_DID =
  'did:key:zUC7H4kksLQr5yQHYBW45AW3cppuvvG5vdhzWKZN7ZwHcBPG1cBGCTxSgyURgPxhmRZriy3vtgQZEjgEAni1Qmd2mZNxQJkCYoTnSp7Z5fsGr3pmfwCCBBqnkzghotM6RGcswkw';

/**
 * A phrase whose did:key starts "zUC6": base58 carries the key's leading bytes into the third
 * character, and about 1 in 300 keys give "zUC6" instead of "zUC7" (see didKey.ts). Found by
 * drawing random phrases; such an issuer's credentials could once not be derived or verified.
 */
const UC6_PHRASE = 'hour know health brisk slim track change smart kid fold blossom jewel';
const UC6_DID =
  'did:key:zUC6zzYTktznTFrTs4nHPcEyhP6iiaLRmTRDHmi67zKff68BC24HpPhkf83Wk756TtsHFLAb7fvNnGpKHzntKJkdZrREwKYd3eXf4r53tM44WgWcrLhqLGu4gGFcmGQVrePSKim';

const tmp = tempDir('vc-sd-core-');
afterAll(() => tmp.cleanup());

describe('issuer key from a BIP39 phrase', () => {
  it('is the BLS12-381 G2 key of the BIP39 seed, published as a did:key', async () => {
    const key = await deriveBlsKeyPair(FIXED_PHRASE);
    expect(key.did).toBe(FIXED_DID);
    // The phrase is compared case-insensitively, as configuration parsing accepts it.
    expect((await deriveBlsKeyPair(FIXED_PHRASE.toUpperCase())).did).toBe(FIXED_DID);
    expect(key.verificationMethod).toBe(`${FIXED_DID}#${FIXED_DID.slice('did:key:'.length)}`);

    // Independently: BIP39 seed -> bbs-signatures key generation -> multicodec 0xeb 0x01 + key.
    const { mnemonicToSeed } = await import('@scure/bip39');
    const { generateBls12381G2KeyPair } = await import('@mattrglobal/bbs-signatures');
    const raw = await generateBls12381G2KeyPair(await mnemonicToSeed(FIXED_PHRASE));
    expect(Buffer.from(key.keyPair.publicKeyBuffer).equals(Buffer.from(raw.publicKey))).toBe(true);
    const document = await resolveBlsDidKey(FIXED_DID);
    expect(document.verificationMethod[0]!.publicKeyBase58).toBe(key.publicKeyBase58);
    expect(document.assertionMethod).toEqual([key.verificationMethod]);
  });

  it('works end to end for a key whose did:key starts zUC6 as for zUC7 (same multicodec, other key bytes)', async () => {
    const key = await deriveBlsKeyPair(UC6_PHRASE);
    expect(key.did).toBe(UC6_DID);
    const document = await resolveBlsDidKey(key.verificationMethod);
    expect(document.verificationMethod[0]!.publicKeyBase58).toBe(key.publicKeyBase58);
    const config = parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: UC6_PHRASE, VC_TRUSTED_ISSUERS: UC6_DID }, path.join(tmp.dir, 'uc6'));
    const ctx = new Context({ config });
    try {
      const credential = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:erin' });
      holdDirectly(ctx, credential);
      expect(credential.issuer).toBe(UC6_DID);
      const { nonce } = createVerifierNonce(ctx, { ttlSeconds: 60 });
      const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['nationality'], nonce });
      const result = await verifySelectiveDisclosure(ctx, { vc });
      expect(result.checks.filter((check) => !check.valid)).toEqual([]);
      expect(result.verified).toBe(true);
    } finally {
      await ctx.close();
    }
  });

  it('rejects phrases that are not 12/24 words with a valid checksum', async () => {
    await expect(deriveBlsKeyPair('legal winner thank year')).rejects.toThrow(/12 or 24 words/);
    await expect(deriveBlsKeyPair(FIXED_PHRASE.replace(/yellow$/, 'wave'))).rejects.toThrow(/checksum/);
  });
});

describe('static document loader', () => {
  const loader = createStaticDocumentLoader();

  it('serves every bundled document from the package', async () => {
    for (const url of Object.keys(BUNDLED_DOCUMENTS)) {
      const remote = await loader(url);
      expect(remote.documentUrl).toBe(url);
      expect(typeof remote.document).toBe('object');
    }
  });

  it('returns a fresh copy each time (a caller cannot alter what the next one sees)', async () => {
    const first = (await loader('https://www.w3.org/2018/credentials/v1')).document as Record<string, unknown>;
    first['@context'] = 'tampered';
    const second = (await loader('https://www.w3.org/2018/credentials/v1')).document as Record<string, unknown>;
    expect(second['@context']).not.toBe('tampered');
  });

  it('never fetches: an unknown URL is an error naming it', async () => {
    await expect(loader('https://schema.org/')).rejects.toThrow(UnknownDocumentError);
    await expect(loader('https://example.com/ctx')).rejects.toThrow(/https:\/\/example\.com\/ctx/);
  });

  it('resolves a BLS did:key and rejects a fragment that is not its key', async () => {
    const remote = await loader(`${FIXED_DID}#${FIXED_DID.slice(8)}`);
    expect((remote.document as { id: string }).id).toBe(FIXED_DID);
    await expect(loader(`${FIXED_DID}#other`)).rejects.toThrow(/unknown verification method/);
    await expect(loader('did:key:zUC7abc')).rejects.toThrow(/not a valid BLS12-381 G2 did:key/);
  });
});

describe('verifier nonces', () => {
  it('expire: a proof bound to an expired nonce is rejected', async () => {
    let now = new Date('2030-01-01T00:00:00.000Z');
    const config = parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE, VC_TRUSTED_ISSUERS: FIXED_DID }, path.join(tmp.dir, 'nonces'));
    const ctx = new Context({ config, now: () => now });
    try {
      const credential = await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:dave' });
      holdDirectly(ctx, credential);
      expect(credential.issuer).toBe(FIXED_DID);
      const { nonce, expiresAt } = createVerifierNonce(ctx, { ttlSeconds: 60 });
      expect(expiresAt).toBe('2030-01-01T00:01:00.000Z');
      const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['nationality'], nonce });
      now = new Date('2030-01-01T00:01:00.001Z');
      const late = await verifySelectiveDisclosure(ctx, { vc });
      expect(late.verified).toBe(false);
      expect(late.checks.find((c) => c.id === 'nonce')?.reason).toMatch(/expired/);

      const fresh = createVerifierNonce(ctx, { ttlSeconds: 60 });
      const second = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['nationality'], nonce: fresh.nonce });
      const results = await Promise.all([verifySelectiveDisclosure(ctx, { vc: second.vc }), verifySelectiveDisclosure(ctx, { vc: second.vc })]);
      // Two concurrent verifications of one proof: exactly one may use the nonce.
      expect(results.map((r) => r.verified).sort()).toEqual([false, true]);
    } finally {
      await ctx.close();
    }
  });

  it('are issued without a store record (see nonce.test.ts); the validity is capped at one day', async () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    const ctx = new Context({ config: parseConfig({}, path.join(tmp.dir, 'nonce-pruning')), now: () => now });
    try {
      for (let i = 0; i < 10; i++) createVerifierNonce(ctx, { ttlSeconds: 60 });
      expect(ctx.store.count(SD_NONCES_NAMESPACE)).toBe(0);

      for (const ttlSeconds of [9_000_000_000_000, 86_401, 0, 1.5]) {
        const error = (() => {
          try {
            createVerifierNonce(ctx, { ttlSeconds });
          } catch (e) {
            return e;
          }
          return undefined;
        })();
        expect(error, String(ttlSeconds)).toBeInstanceOf(InputError);
        expect((error as InputError).exitCode).toBe(2);
        expect((error as Error).message).toMatch(/ttlSeconds: expected a whole number of seconds from 1 to 86400/);
      }
      expect(createVerifierNonce(ctx, { ttlSeconds: 86_400 }).expiresAt).toBe('2030-01-02T00:00:00.000Z');
    } finally {
      await ctx.close();
    }
  });

  it('refuses a nonce that is not canonical base64', async () => {
    const config = parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE }, path.join(tmp.dir, 'bad-nonce'));
    const ctx = new Context({ config });
    try {
      await issueSelectiveDisclosureCredential(ctx, {});
      await expect(deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['name'], nonce: 'not base64!' })).rejects.toThrow(/base64/);
    } finally {
      await ctx.close();
    }
  });
});
