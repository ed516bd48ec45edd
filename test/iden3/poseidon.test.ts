/**
 * vc's WebAssembly Poseidon (compared with js-crypto's on every width and position in
 * poseidonWasm.test.ts) agrees with an independent implementation, circomlibjs's reference
 * Poseidon (the unoptimized rounds with their own constants). Installed into js-crypto, the
 * library's `Poseidon.hash` answers as before: the same numbers, remembered or not, and the same
 * refusals of what it refuses.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { acceleratePoseidon, libraryPoseidon, rememberingPoseidon } from '../../src/iden3/poseidon.js';
import { FIELD as FIELD_R, poseidonWasm } from '../../src/iden3/poseidonWasm.js';

// A fresh copy of js-crypto: the library as it is, before and after installation.
const library = await import('@iden3/js-crypto');
const original = library.Poseidon.hash.bind(library.Poseidon);
// circomlibjs ships no type declarations; the one function used is typed here.
const circomlibjs = (await import('circomlibjs' as string)) as { buildPoseidonReference: () => Promise<((inputs: bigint[]) => unknown) & { F: { toObject: (x: unknown) => bigint } }> };
const referencePoseidon = await circomlibjs.buildPoseidonReference();
const reference = (inputs: bigint[]): bigint => referencePoseidon.F.toObject(referencePoseidon(inputs));

const randomField = (): bigint => BigInt(`0x${randomBytes(32).toString('hex')}`) % FIELD_R;

/** Inputs at every position a positional encoding can get wrong: each bit, each 32-bit limb zero or full, the field's edges. */
function edgeValues(): bigint[] {
  const values = [0n, 1n, 2n, FIELD_R - 1n, FIELD_R - 2n, (FIELD_R - 1n) / 2n, 2n ** 253n, 2n ** 253n - 1n];
  for (let k = 1; k < 254; k++) values.push(2n ** BigInt(k), 2n ** BigInt(k) - 1n);
  for (let limb = 0; limb < 8; limb++) {
    const mask = ((1n << 32n) - 1n) << BigInt(32 * limb);
    const r = randomField();
    values.push(r & ~mask, (r | mask) % FIELD_R, mask % FIELD_R);
  }
  return values;
}

describe('poseidonWasm against an independent implementation', () => {
  it('gives the results of circomlibjs’s reference Poseidon (unoptimized rounds, their own constants) on every width, at the field’s edges and at random', () => {
    const edges = edgeValues();
    for (let width = 1; width <= 16; width++) {
      for (let sample = 0; sample < 3; sample++) {
        const inputs = Array.from({ length: width }, (_, i) => (sample === 0 ? edges[(width * 7 + i * 13) % edges.length]! : randomField()));
        expect(poseidonWasm(inputs), `width ${width}: [${inputs.join(', ')}]`).toBe(reference(inputs));
      }
    }
  });
});

describe('rememberingPoseidon', () => {
  it('computes each input once while remembered, tells apart inputs with the same digits, and forgets its oldest', () => {
    const computed: string[] = [];
    const hash = rememberingPoseidon((inputs) => {
      computed.push(inputs.join(' '));
      return original([...inputs]);
    }, 3);
    expect(hash([0x1n, 0x23n])).toBe(original([0x1n, 0x23n]));
    expect(hash([0x12n, 0x3n])).toBe(original([0x12n, 0x3n]));
    expect(hash([0x123n])).toBe(original([0x123n]));
    expect(hash([0x1n, 0x23n])).toBe(original([0x1n, 0x23n]));
    expect(computed).toEqual(['1 35', '18 3', '291']);
    hash([0n]); // a fourth entry: [1, 0x23] is the oldest and is forgotten
    hash([0x1n, 0x23n]);
    expect(computed).toEqual(['1 35', '18 3', '291', '0', '1 35']);
  });
});

describe('acceleratePoseidon', () => {
  it('keeps js-crypto’s Poseidon.hash results, remembered or not, and its refusals', () => {
    const inputs = Array.from({ length: 16 }, (_, width) => Array.from({ length: width + 1 }, randomField));
    const before = inputs.map((x) => original(x));
    const refusals = [[], Array.from({ length: 17 }, () => 1n), [-1n], [FIELD_R], [1n, FIELD_R + 5n]].map((bad) => {
      try {
        original(bad);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(refusals.every((message) => message !== 'accepted')).toBe(true);
    const bytes = new Uint8Array(randomBytes(100));
    const bytesBefore = library.poseidon.hashBytes(bytes);

    acceleratePoseidon(library);
    acceleratePoseidon(library); // idempotent
    expect(library.Poseidon.hash).not.toBe(original);
    // The library's own function stays reachable (bench/poseidon.ts compares with it).
    expect(libraryPoseidon(library)([1n, 2n])).toBe(original([1n, 2n]));
    expect(libraryPoseidon(library)).not.toBe(library.Poseidon.hash);
    for (const round of [1, 2]) inputs.forEach((x, i) => expect(library.poseidon.hash(x), `round ${round}, width ${x.length}`).toBe(before[i]));
    // Not bigints: the library's own conversion, as before.
    expect(library.poseidon.hash([1, 2] as unknown as bigint[])).toBe(original([1n, 2n]));
    [[], Array.from({ length: 17 }, () => 1n), [-1n], [FIELD_R], [1n, FIELD_R + 5n]].forEach((bad, i) => {
      expect(() => library.poseidon.hash(bad)).toThrow(refusals[i]!);
    });
    // hashBytes goes through the installed hash and gives the same sponge.
    expect(library.poseidon.hashBytes(bytes)).toBe(bytesBefore);
  });
});
