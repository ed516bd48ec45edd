/**
 * The BBS generator cache (src/sd/suites/bbs2023/bbsGeneratorCache.ts): the points it answers
 * with are the IETF draft's generators (its fixtures, test/fixtures/bbs-ietf), Digital Bazaar's
 * library signs and verifies the draft's vector with it in place, it is reached by the library
 * (a second signature computes no generator), any other hash-to-curve input passes through
 * uncached, and a wrong signature still fails.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as bbs from '@digitalbazaar/bbs-signatures';
import { bls12_381 } from '@noble/curves/bls12-381';
import { expand_message_xmd } from '@noble/curves/abstract/hash-to-curve';
import { sha256 } from '@noble/hashes/sha256';
import { GENERATOR_TABLE_LIMIT, bbsGeneratorCacheStats, installBbsGeneratorCache } from '../../../../src/sd/suites/bbs2023/bbsGeneratorCache.js';
import { ROOT } from '../../../helpers.js';

type Json = Record<string, unknown>;
const fixture = (name: string): Json => JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'bbs-ietf', name), 'utf8')) as Json;
const hex = (value: string): Uint8Array => new Uint8Array(Buffer.from(value, 'hex'));
const SUITE = 'BLS12-381-SHA-256';
const API_ID = 'BBS_BLS12381G1_XMD:SHA-256_SSWU_RO_H2G_HM2S_';
const utf8 = (value: string): Uint8Array => new TextEncoder().encode(value);

/** The draft's create_generators for the SHA-256 suite, each point through G1.hashToCurve (the cached one once installed). */
function generators(count: number): string[] {
  const seedDst = utf8(`${API_ID}SIG_GENERATOR_SEED_`);
  const generatorDst = utf8(`${API_ID}SIG_GENERATOR_DST_`);
  let v = expand_message_xmd(utf8(`${API_ID}MESSAGE_GENERATOR_SEED`), seedDst, 48, sha256);
  const points: string[] = [];
  for (let i = 1; i <= count; i++) {
    const counter = new Uint8Array(8);
    new DataView(counter.buffer).setBigUint64(0, BigInt(i));
    v = expand_message_xmd(new Uint8Array([...v, ...counter]), seedDst, 48, sha256);
    // The options bbs-signatures passes (a variable: @noble/curves' type names DST only, its code takes them all).
    const options = { DST: generatorDst, expand: 'xmd', hash: sha256 };
    const point = bls12_381.G1.hashToCurve(v, options).toAffine();
    points.push(bls12_381.G1.ProjectivePoint.fromAffine(point).toHex(true));
  }
  return points;
}

beforeAll(async () => {
  expect(await installBbsGeneratorCache()).toBe(true);
});

describe('the BBS generator cache', () => {
  it('answers with the IETF draft generators, computed once then from the cache', () => {
    const expected = fixture('generators-sha256.json');
    const want = [expected.Q1 as string, ...(expected.MsgGenerators as string[])];
    const before = bbsGeneratorCacheStats();
    const first = generators(want.length);
    const middle = bbsGeneratorCacheStats();
    const second = generators(want.length);
    generators(want.length);
    const after = bbsGeneratorCacheStats();
    expect(first).toEqual(want);
    expect(second).toEqual(want);
    // Whatever earlier files of this worker cached, the second and third passes are all hits.
    expect(middle.hits + middle.misses - before.hits - before.misses).toBe(want.length);
    expect(after.hits - middle.hits).toBe(2 * want.length);
    expect(after.misses).toBe(middle.misses);
    // A generator asked for a third time has its window table (the first GENERATOR_TABLE_LIMIT of them).
    expect(after.tables).toBeGreaterThanOrEqual(want.length);
    expect(after.tables).toBeLessThanOrEqual(Math.min(after.size, GENERATOR_TABLE_LIMIT));
  });

  it("Digital Bazaar's library, used directly, reaches the cache and reproduces the draft's ten-message signature", async () => {
    const vector = fixture('signature004-sha256.json');
    const { secretKey, publicKey } = vector.signerKeyPair as { secretKey: string; publicKey: string };
    const header = hex(vector.header as string);
    const messages = (vector.messages as string[]).map(hex);
    const signature = await bbs.sign({ secretKey: hex(secretKey), publicKey: hex(publicKey), header, messages, ciphersuite: SUITE });
    expect(Buffer.from(signature).toString('hex')).toBe(vector.signature);
    const before = bbsGeneratorCacheStats();
    expect(await bbs.verifySignature({ publicKey: hex(publicKey), signature, header, messages, ciphersuite: SUITE })).toBe(true);
    const after = bbsGeneratorCacheStats();
    // Eleven generators (Q_1, H_1..H_10), all from the cache: the library's calls go through it.
    expect(after.hits - before.hits).toBe(messages.length + 1);
    expect(after.misses).toBe(before.misses);
    // With the cache in place, a changed message or signature still fails.
    const changed = messages.map((message, index) => (index === 3 ? hex('00'.repeat(32)) : message));
    expect(await bbs.verifySignature({ publicKey: hex(publicKey), signature, header, messages: changed, ciphersuite: SUITE })).toBe(false);
    const flipped = new Uint8Array(signature);
    flipped[flipped.length - 1]! ^= 1;
    await expect(bbs.verifySignature({ publicKey: hex(publicKey), signature: flipped, header, messages, ciphersuite: SUITE })).resolves.toBe(false);
  });

  it('passes any other hash-to-curve input through, uncached, with the same point as before', () => {
    const options = { DST: utf8('QUUX-V01-CS02-with-BLS12381G1_XMD:SHA-256_SSWU_RO_'), expand: 'xmd' as const, hash: sha256 };
    const before = bbsGeneratorCacheStats();
    const a = bls12_381.G1.hashToCurve(utf8('abc'), options).toAffine().x.toString(16).padStart(96, '0');
    const b = bls12_381.G1.hashToCurve(utf8('abc'), options).toAffine().x.toString(16).padStart(96, '0');
    const after = bbsGeneratorCacheStats();
    expect(a).toBe(b);
    expect(after).toEqual(before);
    // RFC 9380 appendix J.9.1 (BLS12381G1_XMD:SHA-256_SSWU_RO_), msg "abc": P.x.
    expect(a).toBe('03567bc5ef9c690c2ab2ecdf6a96ef1c139cc0b2f284dca0a9a7943388a49a3aee664ba5379a7655d3c68900be2f6903');
  });

  it('installs once: a second install keeps the same cache', async () => {
    const before = bbsGeneratorCacheStats();
    expect(await installBbsGeneratorCache()).toBe(true);
    expect(bbsGeneratorCacheStats()).toEqual(before);
  });
});
