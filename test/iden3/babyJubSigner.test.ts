/**
 * vc's BabyJubJub arithmetic gives the very points, keys and signatures @iden3/js-crypto gives
 * (the reference: js-crypto's babyJub.mulPointEScalar, PrivateKey.public and signPoseidon, and
 * the js-sdk's own BjjProvider), for random inputs and for the edges of every window of the
 * scalar: 0, 1, each power of 16, the subgroup order and its neighbours, 2^256 - 1.
 */
import { randomBytes } from 'node:crypto';
import * as sdk from '@0xpolygonid/js-sdk';
import { PrivateKey, PublicKey, Signature, babyJub, poseidon } from '@iden3/js-crypto';
import * as core from '@iden3/js-iden3-core';
import * as mt from '@iden3/js-merkletree';
import { describe, expect, it } from 'vitest';
import { BASE8, SUB_ORDER, babyJubKeyProvider, babyJubPublicPoint, babyJubSignPoseidon, mulBase8 } from '../../src/iden3/babyJubSigner.js';

const FIELD = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const hash = (inputs: bigint[]): bigint => poseidon.hash(inputs);
const reference = (scalar: bigint): bigint[] => babyJub.mulPointEScalar([...BASE8], scalar) as bigint[];
const randomScalar = (bytes: number): bigint => BigInt(`0x${randomBytes(bytes).toString('hex')}`);
const compressed = (signature: { R8: [bigint, bigint]; S: bigint }): string => Buffer.from(new Signature(signature.R8, signature.S).compress()).toString('hex');

describe('mulBase8', () => {
  it("is js-crypto's Base8 multiplication on the window edges, the subgroup order's neighbours and random scalars of every length", () => {
    const scalars = [0n, 1n, 2n, 15n, 16n, 17n, SUB_ORDER - 1n, SUB_ORDER, SUB_ORDER + 1n, 2n * SUB_ORDER, 2n ** 256n - 1n, FIELD - 1n];
    for (let w = 1; w < 64; w += 9) scalars.push(16n ** BigInt(w), 16n ** BigInt(w) - 1n, 15n * 16n ** BigInt(w));
    for (let bytes = 1; bytes <= 32; bytes += 3) scalars.push(randomScalar(bytes));
    for (const scalar of scalars) expect(mulBase8(scalar), `scalar ${scalar}`).toEqual(reference(scalar));
    expect(mulBase8(0n)).toEqual([0n, 1n]);
    expect(mulBase8(SUB_ORDER)).toEqual([0n, 1n]);
  });

  it('refuses a scalar outside [0, 2^256)', () => {
    expect(() => mulBase8(-1n)).toThrow(RangeError);
    expect(() => mulBase8(2n ** 256n)).toThrow(/\[0, 2\^256\)/);
  });
});

describe('keys and signatures', () => {
  const keys = [
    new Uint8Array(32),
    new Uint8Array(32).fill(0xff),
    Uint8Array.from({ length: 32 }, (_, i) => (i < 31 ? 0 : 1)),
    Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)),
    ...Array.from({ length: 6 }, () => new Uint8Array(randomBytes(32))),
  ];
  const messages = [0n, 1n, FIELD - 1n, randomScalar(31), randomScalar(16), randomScalar(1)];

  it("give js-crypto's public keys and signatures, byte for byte, which js-crypto verifies", () => {
    keys.forEach((key, k) => {
      const theirs = new PrivateKey(key);
      expect(new PublicKey(babyJubPublicPoint(key)).hex(), `key ${k}`).toBe(theirs.public().hex());
      // The edge keys sign the edge messages; each random key one random message.
      for (const message of k < 4 ? messages.slice(0, 3) : [messages[3 + (k % 3)]!]) {
        const ours = babyJubSignPoseidon(key, message, hash);
        const expected = theirs.signPoseidon(message);
        expect(compressed(ours), `key ${k}, message ${message}`).toBe(compressed(expected));
        // Equal bytes verify alike; js-crypto's check (slow) on a few.
        if (k % 4 === 0) expect(theirs.public().verifyPoseidon(message, new Signature(ours.R8, ours.S))).toBe(true);
      }
    });
  });

  it('a signature does not verify for another message, another key or a changed S', () => {
    const [key, other] = [keys[4]!, keys[5]!];
    const signature = babyJubSignPoseidon(key, 42n, hash);
    const publicKey = new PrivateKey(key).public();
    expect(publicKey.verifyPoseidon(43n, new Signature(signature.R8, signature.S))).toBe(false);
    expect(new PrivateKey(other).public().verifyPoseidon(42n, new Signature(signature.R8, signature.S))).toBe(false);
    expect(publicKey.verifyPoseidon(42n, new Signature(signature.R8, (signature.S + 1n) % SUB_ORDER))).toBe(false);
  });

  it('refuses a key that is not 32 bytes and a message outside the field', () => {
    expect(() => babyJubPublicPoint(new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => babyJubSignPoseidon(new Uint8Array(33), 1n, hash)).toThrow(/32 bytes/);
    expect(() => babyJubSignPoseidon(keys[4]!, FIELD, hash)).toThrow(/field element/);
    expect(() => babyJubSignPoseidon(keys[4]!, -1n, hash)).toThrow(/field element/);
  });
});

describe('the key provider', () => {
  it("creates, names, signs and answers public keys as the js-sdk's BjjProvider does, and its signatures verify with it", async () => {
    const store = new sdk.InMemoryPrivateKeyStore();
    const ours = await babyJubKeyProvider({ sdk, core, mt }, store);
    const theirs = new sdk.BjjProvider(sdk.KmsKeyType.BabyJubJub, store);
    const seed = new Uint8Array(randomBytes(32));
    const keyId = await ours.newPrivateKeyFromSeed(seed);
    expect(keyId).toEqual(await new sdk.BjjProvider(sdk.KmsKeyType.BabyJubJub, new sdk.InMemoryPrivateKeyStore()).newPrivateKeyFromSeed(seed));
    expect(await ours.publicKey(keyId)).toBe(await theirs.publicKey(keyId));
    for (const data of [new Uint8Array(32), core.BytesHelper.intToBytes(FIELD - 1n), core.BytesHelper.intToBytes(randomScalar(31))]) {
      const signature = await ours.sign(keyId, data);
      expect(Buffer.from(signature).toString('hex')).toBe(Buffer.from(await theirs.sign(keyId, data)).toString('hex'));
      expect(await theirs.verify(data, Buffer.from(signature).toString('hex'), keyId)).toBe(true);
    }
    // A second key through the same provider (which remembers each key's public point): its own signatures.
    const otherId = await ours.newPrivateKeyFromSeed(new Uint8Array(randomBytes(32)));
    for (const id of [otherId, keyId, otherId]) {
      const data = core.BytesHelper.intToBytes(randomScalar(31));
      expect(Buffer.from(await ours.sign(id, data)).toString('hex')).toBe(Buffer.from(await theirs.sign(id, data)).toString('hex'));
    }
    await expect(ours.sign(keyId, new Uint8Array(31))).rejects.toThrow('data to sign is too large');
    await expect(ours.sign(keyId, new Uint8Array(32).fill(0xff))).rejects.toThrow('data to sign is too large');
  });
});
