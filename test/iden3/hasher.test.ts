/**
 * The merklization hasher gives exactly the library's Poseidon results: for random inputs, asked
 * once or again, and for byte strings that differ in one byte or only in length, before and after
 * its memo of byte strings forgets entries.
 */
import { randomBytes } from 'node:crypto';
import { PoseidonHasher } from '@iden3/js-jsonld-merklization';
import { describe, expect, it } from 'vitest';
import { memoizingHasher } from '../../src/iden3/hasher.js';
import { eventLoopTurnsDuring } from '../helpers.js';

const reference = new PoseidonHasher();
const field = (): bigint => BigInt(`0x${randomBytes(31).toString('hex')}`);

describe('memoizingHasher', () => {
  it('hashes field elements as Poseidon does, the first time and again', async () => {
    const hasher = memoizingHasher(reference, 8);
    const inputs = Array.from({ length: 20 }, () => Array.from({ length: 1 + (randomBytes(1)[0]! % 5) }, field));
    for (const round of [1, 2]) {
      for (const input of inputs) expect(await hasher.hash(input), `round ${round}`).toBe(await reference.hash(input));
    }
    // [1, 23] and [12, 3] must not be confused, nor [] with [0].
    expect(await hasher.hash([1n, 23n])).toBe(await reference.hash([1n, 23n]));
    expect(await hasher.hash([12n, 3n])).toBe(await reference.hash([12n, 3n]));
    expect(await hasher.hash([0n])).toBe(await reference.hash([0n]));
    expect(hasher.remembered).toBe(0); // field elements: remembered by vc's Poseidon (poseidon.ts), not here
    expect(hasher.prime()).toBe(reference.prime());
  });

  it('hashes bytes as Poseidon does, telling apart inputs one byte or one length apart', async () => {
    const hasher = memoizingHasher(reference, 1000);
    const base = randomBytes(40);
    const variants = [base, Buffer.concat([base, Buffer.from([0])]), base.subarray(0, 39), Buffer.from(base).fill(0xff, 7, 8), new Uint8Array(0), Buffer.from([0x80, 0xff])];
    for (const round of [1, 2]) {
      for (const bytes of variants) expect(await hasher.hashBytes(new Uint8Array(bytes)), `round ${round}`).toBe(await reference.hashBytes(new Uint8Array(bytes)));
    }
    // A view into a larger buffer hashes its own bytes only.
    const big = randomBytes(64);
    const view = new Uint8Array(big.buffer, big.byteOffset + 10, 20);
    expect(await hasher.hashBytes(view)).toBe(await reference.hashBytes(new Uint8Array(big.subarray(10, 30))));
    // (Poseidon's own byte hashing pads with zeros, so `base` and `base + 00` hash alike in the
    // library too: the memo only has to give each input the library's answer, checked above.)
    expect(await hasher.hashBytes(new Uint8Array(variants[3]!))).not.toBe(await hasher.hashBytes(new Uint8Array(base)));

    // A small memo forgets its oldest entries and still answers as the library.
    const small = memoizingHasher(reference, 2);
    for (const round of [1, 2]) {
      for (const bytes of variants.slice(0, 3)) expect(await small.hashBytes(new Uint8Array(bytes)), `round ${round}`).toBe(await reference.hashBytes(new Uint8Array(bytes)));
    }
    expect(small.remembered).toBe(2);
  });

  it('lets the event loop run during a long run of hashes (a merklization), where the library holds it', async () => {
    const hasher = memoizingHasher(reference, 1000);
    const inputs = Array.from({ length: 300 }, () => [field(), field()]);
    const ours: bigint[] = [];
    const theirs: bigint[] = [];
    expect(await eventLoopTurnsDuring(async () => { for (const input of inputs) ours.push(await hasher.hash(input)); })).toBeGreaterThanOrEqual(1);
    expect(await eventLoopTurnsDuring(async () => { for (const input of inputs) theirs.push(await reference.hash(input)); })).toBe(0);
    expect(ours).toEqual(theirs);
  });
});
