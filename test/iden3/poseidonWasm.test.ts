/**
 * The WebAssembly Poseidon gives @iden3/js-crypto's `Poseidon.hash` results on every width (1 to
 * 16 inputs) for every edge value, and on 16 inputs for every edge value at every input position:
 * each bit position, each 29-bit limb (the module's representation), 32-bit limb and 64-bit word
 * zero or full, the field's edges, leading zeros; and for 200 random field elements per width. What js-crypto refuses it
 * refuses with the same error. The emitter's LEB128 encodings are checked against the format's
 * examples.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { poseidonWasm } from '../../src/iden3/poseidonWasm.js';
import { sleb, uleb } from '../../src/iden3/wasmEmitter.js';

const library = await import('@iden3/js-crypto');
const original = library.Poseidon.hash.bind(library.Poseidon);

const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const randomField = (): bigint => BigInt(`0x${randomBytes(32).toString('hex')}`) % R;

/** Values with a limb of `bits` bits at each position cleared, or set to all ones (kept below r). */
function limbValues(bits: number): bigint[] {
  const values: bigint[] = [];
  const full = (1n << BigInt(bits)) - 1n;
  for (let at = 0; at < 256; at += bits) {
    const mask = (full << BigInt(at)) & ((1n << 256n) - 1n);
    const x = randomField();
    values.push(x & ~mask, mask % R, (x | mask) % R, (R - 1n) & ~mask);
  }
  return values;
}

/** Every value a positional encoding or a carry can get wrong. */
function edgeValues(): bigint[] {
  const values = [0n, 1n, 2n, R - 1n, R - 2n, (R - 1n) / 2n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 64n - 1n, 2n ** 64n];
  for (let k = 1; k <= 253; k++) values.push(2n ** BigInt(k), 2n ** BigInt(k) - 1n);
  for (let k = 0; k <= 253; k += 3) values.push(R - 2n ** BigInt(k));
  for (let i = 3n; i < 12n; i++) values.push(R - i);
  values.push(...limbValues(29), ...limbValues(32), ...limbValues(64));
  for (const v of values) if (v < 0n || v >= R) throw new Error(`edge value ${v} is not in the field`);
  return values;
}

/** Compares with js-crypto; returns the failing inputs (decimal), at most `limit` of them. */
function mismatches(vectors: Iterable<bigint[]>, limit = 5): string[] {
  const failures: string[] = [];
  for (const inputs of vectors) {
    const expected = original(inputs);
    const ours = poseidonWasm(inputs);
    if (ours !== expected && failures.length < limit) failures.push(`[${inputs.join(', ')}]: ${ours} instead of ${expected}`);
  }
  return failures;
}

/** Error class and message of what `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : `non-error ${String(error)}`;
  }
  return 'nothing thrown';
}

describe('poseidonWasm', () => {
  const edges = edgeValues();

  it('gives js-crypto’s results on every width for every edge value', () => {
    for (let width = 1; width <= 16; width++) {
      // Each edge value once per width, at a position that moves from width to width.
      const vectors = function* (): Generator<bigint[]> {
        for (let j = 0; j * width < edges.length; j++) yield Array.from({ length: width }, (_, i) => edges[(j * width + i + width) % edges.length]!);
      };
      expect(mismatches(vectors()), `width ${width}`).toEqual([]);
    }
  });

  it('gives js-crypto’s results for every edge value at every one of the 16 input positions', () => {
    // Vector j holds edges[j + i*step] at position i: over all j, every edge value sits at every position.
    const step = 37;
    const vectors = function* (): Generator<bigint[]> {
      for (let j = 0; j < edges.length; j++) yield Array.from({ length: 16 }, (_, i) => edges[(j + i * step) % edges.length]!);
    };
    expect(mismatches(vectors())).toEqual([]);
  });

  it('gives js-crypto’s results on every width for random field elements and all-equal inputs', () => {
    for (let width = 1; width <= 16; width++) {
      const vectors = function* (): Generator<bigint[]> {
        for (let n = 0; n < 200; n++) yield Array.from({ length: width }, randomField);
        for (const v of [0n, 1n, R - 1n]) yield new Array<bigint>(width).fill(v);
      };
      expect(mismatches(vectors()), `width ${width}`).toEqual([]);
    }
  });

  it('refuses what js-crypto refuses, with the same error, and hashes correctly afterwards', () => {
    const invalid: unknown[] = [[], new Array<bigint>(17).fill(1n), [-1n], [R], [1n, R + 5n], [2n ** 256n], [0n, 1n, -(2n ** 300n)], new Array<bigint>(16).fill(R)];
    for (const inputs of invalid) {
      const expected = thrown(() => original(inputs as bigint[]));
      expect(expected, `js-crypto refuses ${String(inputs)}`).not.toBe('nothing thrown');
      expect(thrown(() => poseidonWasm(inputs as bigint[])), `inputs ${String(inputs)}`).toBe(expected);
    }
    expect(thrown(() => poseidonWasm([]))).toBe('Error: Invalid inputs');
    expect(thrown(() => poseidonWasm([R]))).toBe(`Error: One or more inputs are not in the field: ${R}`);
    expect(poseidonWasm([1n, 2n])).toBe(original([1n, 2n]));
  });

  it('gives the published iden3 test vectors', () => {
    // go-iden3-crypto poseidon_test.go / js-crypto's tests
    expect(poseidonWasm([1n])).toBe(18586133768512220936620570745912940619677854269274689475585506675881198879027n);
    expect(poseidonWasm([1n, 2n])).toBe(7853200120776062878684798364095072458815029376092732009249414926327459813530n);
    expect(poseidonWasm([1n, 2n, 0n, 0n, 0n])).toBe(1018317224307729531995786483840663576608797660851238720571059489595066344487n);
  });
});

describe('the emitter’s LEB128', () => {
  const u = (n: number): number[] => {
    const out: number[] = [];
    uleb(n, out);
    return out;
  };
  const s = (n: bigint): number[] => {
    const out: number[] = [];
    sleb(n, out);
    return out;
  };

  it('encodes unsigned numbers as the format’s examples and refuses what is not a u32', () => {
    expect(u(0)).toEqual([0]);
    expect(u(127)).toEqual([0x7f]);
    expect(u(128)).toEqual([0x80, 0x01]);
    expect(u(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(u(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(() => u(-1)).toThrow(RangeError);
    expect(() => u(2 ** 32)).toThrow(RangeError);
  });

  it('encodes signed numbers with their sign bit, at both ends of i64', () => {
    expect(s(0n)).toEqual([0]);
    expect(s(-1n)).toEqual([0x7f]);
    expect(s(63n)).toEqual([0x3f]);
    expect(s(64n)).toEqual([0xc0, 0x00]);
    expect(s(-64n)).toEqual([0x40]);
    expect(s(-65n)).toEqual([0xbf, 0x7f]);
    expect(s(-123456n)).toEqual([0xc0, 0xbb, 0x78]);
    expect(s(2n ** 63n - 1n)).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]);
    expect(s(-(2n ** 63n))).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]);
  });
});
