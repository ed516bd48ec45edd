/**
 * Poseidon over BN254's scalar field (iden3/circomlib parameters, @iden3/js-crypto's optimized
 * rounds and constants) in WebAssembly that this file generates and compiles on first use.
 *
 * Arithmetic: Montgomery form with R = 2^261, a field element being 9 limbs of 29 bits (36 bytes
 * in memory, little-endian u32s). A 29-bit limb product is below 2^58, so a column of a 512-bit
 * product sums dozens of them in an i64 without carrying; carries are propagated once, at the end
 * (or every 5 terms of a sum of products). Sums of products (the MDS mixes, the partial rounds'
 * sparse rows) are accumulated unreduced and reduced once.
 *
 * Values are not kept below r. REDC(T) < T/R + r, and R is about 169r (2^261 / r), so a product
 * of a < Ar and b < Br comes out below (1 + AB/169)r; a stored value only has to stay below 2^261
 * (9 limbs of 29 bits) for the arithmetic to be exact modulo r. The bounds, with constants below r:
 *   s-box: x^2, x^4 and x^5 + C of x < 8.2r: < 1.4r, < 1.02r, < 2.05r; a mix of those: < 1.3r.
 *   partial rounds: s[k] += s0*S adds < 1.02r a round to s[k] (< 1.3r before them): after at
 *   most 70 rounds s[k] < 73r < 2^261; a sparse row of those: < (1 + (2.05 + 16 * 73) / 169)r < 8r.
 *   the full rounds after them: x^2, x^4, x^5 + C of x < 73r: < 33r, < 7.5r, < 5.3r; a mix < 1.6r.
 * Only the result is reduced below r, once: out of Montgomery form (< r + 1), minus r if >= r.
 *
 * Module functions (generated straight-line code, loops only over elements and rounds):
 *   mul(out, a, b)             out = a*b/R
 *   sbox(out, x, c)            out = x^5 + c in Montgomery form (x^2 and x^4 squarings: each cross
 *                              product once; intermediate values in locals)
 *   mulAdd(out, a, b, c)       out = a*b/R + c
 *   dot(out, a, as, b, bs, n)  out = sum a[k]*b[k] / R, a at stride as, b at stride bs
 *   toMont(dst, src, n)        n little-endian 256-bit words at src into Montgomery form at dst, < r
 *   hash(t, nRP, C, S, M, P)   the permutation of the t - 1 inputs at INPUT_AT, result at OUT_AT
 *
 * Constants of a width are converted into Montgomery form the first time the width is used.
 * Invalid inputs go to js-crypto's own function (captured when this module loads), which refuses
 * them with its own messages.
 */
import { OPT, Poseidon } from '@iden3/js-crypto';
import { Code, I32, I64, Op, encodeModule, type FunctionDef } from './wasmEmitter.js';

/** The BN254 scalar field, Poseidon's field. */
export const FIELD = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68] as const;

const LIMBS = 9;
const BITS = 29;
const MASK = (1n << BigInt(BITS)) - 1n;
const ELEMENT = 4 * LIMBS;
const R_BITS = BITS * LIMBS; // R = 2^261
const FIELD_LIMBS = toLimbs(FIELD);
/** -r^-1 mod 2^29. */
const N_PRIME = (() => {
  const modulus = 1n << BigInt(BITS);
  let inverse = 1n;
  for (let i = 0; i < BITS; i++) inverse = (inverse * (2n - FIELD * inverse)) % modulus;
  return (modulus - ((inverse % modulus) + modulus) % modulus) % modulus;
})();

// Fixed memory layout (bytes); the widths' constants follow from CONSTANTS_AT on, in the order first used.
const R2_AT = 0; // R^2 mod r, limbs
const ONE_AT = 64; // 1, limbs
const ZERO_AT = 128; // 0, limbs
const NEW0_AT = 256;
const ZERO_WORDS_AT = 320; // 32 zero bytes
const OUT_AT = 384; // result, 4 little-endian u64
const INPUT_AT = 512; // up to 16 inputs, 4 little-endian u64 each
const STATE_A = 1024;
const STATE_B = 2048;
const STAGE_AT = 4096; // constants as words before conversion
const STAGE_BYTES = 32 * Math.max(...OPT.C.map((c, i) => c.length + OPT.S[i]!.length + 2 * (i + 2) ** 2));
const CONSTANTS_AT = STAGE_AT + STAGE_BYTES;

function toLimbs(x: bigint): bigint[] {
  const limbs: bigint[] = [];
  for (let k = 0; k < LIMBS; k++) limbs.push((x >> BigInt(BITS * k)) & MASK);
  return limbs;
}

// Function indices (toMont = 6 and hash = 7 are only called from JavaScript).
const F_MUL = 0;
const F_MUL_ADD = 1;
const F_DOT = 2;
const F_UNPACK = 3;
const F_PACK = 4;
const F_REDUCE = 5;
const F_SBOX = 8;

/**
 * Emits the arithmetic of one function whose i64 locals start at `base`: A (9), B (9), the
 * columns (18), m, D (9), borrow.
 */
class Limbs {
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly m: number;
  readonly d: number;
  readonly borrow: number;
  readonly count = LIMBS * 2 + 18 + 1 + LIMBS + 1;

  constructor(
    private readonly code: Code,
    base: number,
  ) {
    this.a = base;
    this.b = base + LIMBS;
    this.c = base + 2 * LIMBS;
    this.m = this.c + 18;
    this.d = this.m + 1;
    this.borrow = this.d + LIMBS;
  }

  /** Loads the element at the address in i32 local `pointer` into locals from `first`. */
  load(pointer: number, first: number): void {
    for (let k = 0; k < LIMBS; k++) this.code.get(pointer).load32u(4 * k).set(first + k);
  }

  /** Adds the product A*B into the columns (which hold `fresh` zeros or a running sum). */
  product(fresh: boolean): void {
    const { code } = this;
    for (let col = 0; col <= 2 * (LIMBS - 1); col++) {
      let first = true;
      if (!fresh) {
        code.get(this.c + col);
        first = false;
      }
      for (let i = Math.max(0, col - LIMBS + 1); i <= Math.min(col, LIMBS - 1); i++) {
        code.get(this.a + i).get(this.b + col - i).op(Op.i64Mul);
        if (!first) code.op(Op.i64Add);
        first = false;
      }
      code.set(this.c + col);
    }
  }

  /** Adds the element at the address in i32 local `pointer` times R: its limbs into columns 9..17. */
  addUpper(pointer: number): void {
    for (let k = 0; k < LIMBS; k++) this.code.get(this.c + LIMBS + k).get(pointer).load32u(4 * k).op(Op.i64Add).set(this.c + LIMBS + k);
  }

  /** Sets the columns to A*A: each cross product once, by the doubled limb (kept in B). */
  square(): void {
    const { code } = this;
    for (let k = 0; k < LIMBS; k++) code.get(this.a + k).i64(1n).op(Op.i64Shl).set(this.b + k);
    for (let col = 0; col <= 2 * (LIMBS - 1); col++) {
      let first = true;
      for (let i = Math.max(0, col - LIMBS + 1); 2 * i <= col; i++) {
        const j = col - i;
        code.get(this.a + i).get(i === j ? this.a + i : this.b + j).op(Op.i64Mul);
        if (!first) code.op(Op.i64Add);
        first = false;
      }
      code.set(this.c + col);
    }
  }

  /** Propagates the carries of columns from..to-1 into the next column, leaving them 29-bit. */
  normalize(from: number, to: number): void {
    const { code } = this;
    for (let k = from; k < to; k++) {
      code.get(this.c + k + 1).get(this.c + k).i64(BigInt(BITS)).op(Op.i64ShrU, Op.i64Add).set(this.c + k + 1);
      code.get(this.c + k).i64(MASK).op(Op.i64And).set(this.c + k);
    }
  }

  /**
   * Pushes local * k (mod 2^64): a shift and an add or subtract when k is 2^j + 1 or 2^j - 1, as
   * r's lowest limb (2^28 + 1: r - 1 is a multiple of 2^28) and -1/r mod 2^29 (2^28 - 1) are.
   */
  times(local: number, k: bigint): void {
    const { code } = this;
    for (let j = 1n; j < 63n; j++) {
      if (k === (1n << j) + 1n || k === (1n << j) - 1n) {
        code.get(local).i64(j).op(Op.i64Shl).get(local).op(k === (1n << j) + 1n ? Op.i64Add : Op.i64Sub);
        return;
      }
    }
    code.get(local).i64(k).op(Op.i64Mul);
  }

  /** Montgomery reduction of the columns: the result is in columns 9..17, normalized. */
  reduce(): void {
    const { code } = this;
    for (let i = 0; i < LIMBS; i++) {
      this.times(this.c + i, N_PRIME);
      code.i64(MASK).op(Op.i64And).set(this.m);
      // c[i+1] += (c[i] + m*r0) >> 29 + m*r1
      code.get(this.c + i + 1);
      code.get(this.c + i);
      this.times(this.m, FIELD_LIMBS[0]!);
      code.op(Op.i64Add).i64(BigInt(BITS)).op(Op.i64ShrU, Op.i64Add);
      code.get(this.m).i64(FIELD_LIMBS[1]!).op(Op.i64Mul, Op.i64Add).set(this.c + i + 1);
      for (let j = 2; j < LIMBS; j++) {
        code.get(this.c + i + j).get(this.m).i64(FIELD_LIMBS[j]!).op(Op.i64Mul, Op.i64Add).set(this.c + i + j);
      }
    }
    this.normalize(LIMBS, 17);
  }

  /** Columns 9..17 (normalized) minus `q` if they are at least `q`. */
  subtractIfAtLeast(q: readonly bigint[]): void {
    const { code } = this;
    code.i64(0n).set(this.borrow);
    for (let k = 0; k < LIMBS; k++) {
      code.get(this.c + LIMBS + k).i64(q[k]!).op(Op.i64Sub).get(this.borrow).op(Op.i64Sub).tee(this.d + k);
      code.i64(63n).op(Op.i64ShrU).set(this.borrow);
      code.get(this.d + k).i64(MASK).op(Op.i64And).set(this.d + k);
    }
    for (let k = 0; k < LIMBS; k++) {
      code.get(this.d + k).get(this.c + LIMBS + k).get(this.borrow).op(Op.i64Eqz, Op.select).set(this.c + LIMBS + k);
    }
  }

  /** Stores columns 9..17 at the address in i32 local `pointer`. */
  store(pointer: number): void {
    for (let k = 0; k < LIMBS; k++) this.code.get(pointer).get(this.c + LIMBS + k).store32(4 * k);
  }
}

function i64Locals(count: number): number[] {
  return new Array<number>(count).fill(I64);
}

function mulFunction(): FunctionDef {
  const code = new Code();
  const f = new Limbs(code, 3);
  f.load(1, f.a);
  f.load(2, f.b);
  f.product(true);
  f.reduce();
  f.store(0);
  return { params: [I32, I32, I32], results: [], locals: i64Locals(f.count), code };
}

/** sbox(out, x, c) = x^5/R^4 + c: x^2, x^4 and x^5 in one body, the intermediate values in locals. */
function sboxFunction(): FunctionDef {
  const code = new Code();
  const f = new Limbs(code, 3);
  const again = (): void => {
    for (let k = 0; k < LIMBS; k++) code.get(f.c + LIMBS + k).set(f.a + k);
    code.i64(0n).set(f.c + 17);
  };
  f.load(1, f.a);
  f.square();
  f.reduce();
  again();
  f.square();
  f.reduce();
  again();
  f.load(1, f.b);
  f.product(true);
  f.addUpper(2);
  f.reduce();
  f.store(0);
  return { params: [I32, I32, I32], results: [], locals: i64Locals(f.count), code };
}

/** mulAdd(out, a, b, c) = a*b/R + c. */
function mulAddFunction(): FunctionDef {
  const code = new Code();
  const f = new Limbs(code, 4);
  f.load(1, f.a);
  f.load(2, f.b);
  f.product(true);
  f.addUpper(3); // + c*R
  f.reduce();
  f.store(0);
  return { params: [I32, I32, I32, I32], results: [], locals: i64Locals(f.count), code };
}

/** dot(out, a, aStride, b, bStride, n): sum of n products, reduced once. */
function dotFunction(): FunctionDef {
  const code = new Code();
  const [out, a, aStride, b, bStride, n, group] = [0, 1, 2, 3, 4, 5, 6];
  const f = new Limbs(code, 7);
  code.i32(5).set(group);
  code.block(() => {
    code.loop(() => {
      code.get(n).op(Op.i32Eqz).brIf(1);
      f.load(a, f.a);
      f.load(b, f.b);
      f.product(false);
      code.get(a).get(aStride).op(Op.i32Add).set(a);
      code.get(b).get(bStride).op(Op.i32Add).set(b);
      code.get(n).i32(1).op(Op.i32Sub).set(n);
      code.get(group).i32(1).op(Op.i32Sub).tee(group).op(Op.i32Eqz).ifThen(() => {
        f.normalize(0, 17);
        code.i32(5).set(group);
      });
      code.br(0);
    });
  });
  f.reduce();
  f.store(out);
  return { params: [I32, I32, I32, I32, I32, I32], results: [], locals: [I32, ...i64Locals(f.count)], code };
}

/** unpack(dst, src): 4 little-endian u64 words at src into 9 limbs at dst. */
function unpackFunction(): FunctionDef {
  const code = new Code();
  const words = 2;
  for (let q = 0; q < 4; q++) code.get(1).load64(8 * q).set(words + q);
  for (let k = 0; k < LIMBS; k++) {
    const bit = BITS * k;
    const q = bit >> 6;
    const shift = bit & 63;
    code.get(0);
    code.get(words + q);
    if (shift > 0) code.i64(BigInt(shift)).op(Op.i64ShrU);
    if (shift + BITS > 64 && q + 1 < 4) code.get(words + q + 1).i64(BigInt(64 - shift)).op(Op.i64Shl, Op.i64Or);
    code.i64(MASK).op(Op.i64And).store32(4 * k);
  }
  return { params: [I32, I32], results: [], locals: i64Locals(4), code };
}

/** pack(dst, src): 9 limbs (a value below 2^256) at src into 4 little-endian u64 words at dst. */
function packFunction(): FunctionDef {
  const code = new Code();
  const limbs = 2;
  for (let k = 0; k < LIMBS; k++) code.get(1).load32u(4 * k).set(limbs + k);
  for (let q = 0; q < 4; q++) {
    code.get(0);
    let first = true;
    for (let k = 0; k < LIMBS; k++) {
      const bit = BITS * k;
      if (bit >= 64 * (q + 1) || bit + BITS <= 64 * q) continue;
      code.get(limbs + k);
      if (bit >= 64 * q) {
        if (bit > 64 * q) code.i64(BigInt(bit - 64 * q)).op(Op.i64Shl);
      } else {
        code.i64(BigInt(64 * q - bit)).op(Op.i64ShrU);
      }
      if (!first) code.op(Op.i64Or);
      first = false;
    }
    code.store64(8 * q);
  }
  return { params: [I32, I32], results: [], locals: i64Locals(LIMBS), code };
}

/** reduce(p): the element at p (below 2r) minus r if it is at least r: below r. */
function reduceFunction(): FunctionDef {
  const code = new Code();
  const f = new Limbs(code, 1);
  f.load(0, f.c + LIMBS);
  f.subtractIfAtLeast(FIELD_LIMBS);
  f.store(0);
  return { params: [I32], results: [], locals: i64Locals(f.count), code };
}

/** Emits `for (i = from; i < bound; i++) body` over i32 locals. */
function forRange(code: Code, i: number, from: number | (() => void), bound: number, body: () => void): void {
  if (typeof from === 'number') code.i32(from);
  else from();
  code.set(i);
  code.block(() => {
    code.loop(() => {
      code.get(i).get(bound).op(Op.i32GeU).brIf(1);
      body();
      code.get(i).i32(1).op(Op.i32Add).set(i);
      code.br(0);
    });
  });
}

/** toMont(dst, src, n). */
function toMontFunction(): FunctionDef {
  const code = new Code();
  const [dst, src, n, i, r2] = [0, 1, 2, 3, 4];
  code.i32(R2_AT).set(r2);
  forRange(code, i, 0, n, () => {
    code.get(dst).get(src).call(F_UNPACK);
    code.get(dst).get(dst).get(r2).call(F_MUL);
    code.get(dst).call(F_REDUCE);
    code.get(dst).i32(ELEMENT).op(Op.i32Add).set(dst);
    code.get(src).i32(32).op(Op.i32Add).set(src);
  });
  return { params: [I32, I32, I32], results: [], locals: [I32, I32], code, exportName: 'toMont' };
}

/** hash(t, nRP, C, S, M, P): the permutation; inputs at INPUT_AT, result at OUT_AT. */
function hashFunction(): FunctionDef {
  const code = new Code();
  const [t, nRP, cPtr, sPtr, mPtr, pPtr] = [0, 1, 2, 3, 4, 5];
  const [s, u, i, r, x, mat, stride, swap, one, lastRound, zero, new0] = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
  const element = (base: number, index: number): void => {
    code.get(base).get(index).i32(ELEMENT).op(Op.i32Mul, Op.i32Add);
  };
  // s[i] = s[i]^5 + C (running pointer), for every i
  const sboxes = (): void => {
    forRange(code, i, 0, t, () => {
      element(s, i);
      code.set(x);
      code.get(x).get(x).get(cPtr).call(F_SBOX);
      code.get(cPtr).i32(ELEMENT).op(Op.i32Add).set(cPtr);
    });
  };
  // u[i] = sum_j mat[j][i] s[j]; then swap s and u
  const mix = (): void => {
    forRange(code, i, 0, t, () => {
      element(u, i);
      element(mat, i);
      code.get(stride).get(s).i32(ELEMENT).get(t).call(F_DOT);
    });
    code.get(s).set(swap).get(u).set(s).get(swap).set(u);
  };
  code.get(t).i32(ELEMENT).op(Op.i32Mul).set(stride);
  code.i32(STATE_A).set(s).i32(STATE_B).set(u).i32(1).set(one);
  code.i32(ZERO_AT).set(zero).i32(NEW0_AT).set(new0);
  // s[0] = 0, s[i] = inputs[i-1] (as limbs), then s[i] = s[i]*R + C[i] (into Montgomery form)
  code.get(s).i32(ZERO_WORDS_AT).call(F_UNPACK);
  forRange(code, i, 1, t, () => {
    element(s, i);
    code.get(i).i32(32).op(Op.i32Mul).i32(INPUT_AT - 32).op(Op.i32Add).call(F_UNPACK);
  });
  forRange(code, i, 0, t, () => {
    element(s, i);
    code.set(x);
    code.get(x).get(x).i32(R2_AT).get(cPtr).call(F_MUL_ADD);
    code.get(cPtr).i32(ELEMENT).op(Op.i32Add).set(cPtr);
  });
  // 4 full rounds: M, M, M, then P
  code.i32(4).set(lastRound);
  forRange(code, r, 0, lastRound, () => {
    sboxes();
    code.get(pPtr).get(mPtr).get(r).i32(3).op(Op.i32Eq, Op.select).set(mat);
    mix();
  });
  // partial rounds with the sparse matrices
  forRange(code, r, 0, nRP, () => {
    code.get(s).get(s).get(cPtr).call(F_SBOX);
    code.get(cPtr).i32(ELEMENT).op(Op.i32Add).set(cPtr);
    code.get(new0).get(sPtr).i32(ELEMENT).get(s).i32(ELEMENT).get(t).call(F_DOT);
    forRange(code, i, 1, t, () => {
      element(s, i);
      code.set(x);
      // s[i] += s0 * S[row + t + i - 1]
      code.get(x).get(s);
      code.get(sPtr).get(t).get(i).op(Op.i32Add).i32(1).op(Op.i32Sub).i32(ELEMENT).op(Op.i32Mul, Op.i32Add);
      code.get(x).call(F_MUL_ADD);
    });
    code.get(s).get(new0).load64(0).store64(0);
    code.get(s).get(new0).load64(8).store64(8);
    code.get(s).get(new0).load64(16).store64(16);
    code.get(s).get(new0).load64(24).store64(24);
    code.get(s).get(new0).load32u(32).store32(32);
    // next row: S += (2t - 1) elements
    code.get(sPtr).get(stride).i32(2).op(Op.i32Mul).i32(ELEMENT).op(Op.i32Sub, Op.i32Add).set(sPtr);
  });
  // 3 full rounds with M
  code.get(mPtr).set(mat);
  code.i32(3).set(lastRound);
  forRange(code, r, 0, lastRound, () => {
    sboxes();
    mix();
  });
  // last s-boxes, the first column of M, out of Montgomery form, fully reduced, as words
  forRange(code, i, 0, t, () => {
    element(s, i);
    code.set(x);
    code.get(x).get(x).get(zero).call(F_SBOX);
  });
  code.get(new0).get(mPtr).get(stride).get(s).i32(ELEMENT).get(t).call(F_DOT);
  code.get(new0).get(new0).i32(ONE_AT).call(F_MUL);
  code.get(new0).call(F_REDUCE);
  code.i32(OUT_AT).get(new0).call(F_PACK);
  return { params: [I32, I32, I32, I32, I32, I32], results: [], locals: new Array<number>(12).fill(I32), code, exportName: 'hash' };
}

/** The part of the WebAssembly JS API used here (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Module: new (bytes: Uint8Array<ArrayBuffer>) => object;
  Instance: new (module: object, imports: object) => { readonly exports: object };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface Exports {
  memory: WasmMemory;
  hash: (t: number, nRP: number, c: number, s: number, m: number, p: number) => void;
  toMont: (dst: number, src: number, count: number) => void;
}

interface Width {
  t: number;
  partialRounds: number;
  c: number;
  s: number;
  m: number;
  p: number;
}

interface Runtime {
  exports: Exports;
  words: BigUint64Array;
  widths: Array<Width | undefined>;
  next: number;
}

let runtime: Runtime | undefined;

/** Bytes of every width's constants in Montgomery form. */
function constantsBytes(): number {
  let total = 0;
  for (let w = 0; w < PARTIAL_ROUNDS.length; w++) total += ELEMENT * (OPT.C[w]!.length + OPT.S[w]!.length + 2 * (w + 2) ** 2);
  return total;
}

/** The module's binary: its functions in the order of their indices (F_MUL = 0 ... F_SBOX = 8). */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  return encodeModule([mulFunction(), mulAddFunction(), dotFunction(), unpackFunction(), packFunction(), reduceFunction(), toMontFunction(), hashFunction(), sboxFunction()], Math.ceil((CONSTANTS_AT + constantsBytes()) / 65536), 'memory');
}

function writeLimbs(memory: WasmMemory, at: number, x: bigint): void {
  const view = new Uint32Array(memory.buffer, at, LIMBS);
  toLimbs(x).forEach((limb, k) => (view[k] = Number(limb)));
}

function start(): Runtime {
  const module = new wasmApi.Module(moduleBytes());
  const exports = new wasmApi.Instance(module, {}).exports as Exports;
  writeLimbs(exports.memory, R2_AT, (1n << BigInt(2 * R_BITS)) % FIELD);
  writeLimbs(exports.memory, ONE_AT, 1n);
  return { exports, words: new BigUint64Array(exports.memory.buffer), widths: [], next: CONSTANTS_AT };
}

/** Converts the constants of width t into Montgomery form, in the module's memory. */
function prepareWidth(rt: Runtime, t: number): Width {
  const w = t - 2;
  const C = OPT.C[w]!;
  const S = OPT.S[w]!;
  const constants: bigint[] = [...C, ...S, ...OPT.M[w]!.flat(), ...OPT.P[w]!.flat()];
  const { words } = rt;
  let k = STAGE_AT / 8;
  for (const x of constants) {
    words[k] = x;
    words[k + 1] = x >> 64n;
    words[k + 2] = x >> 128n;
    words[k + 3] = x >> 192n;
    k += 4;
  }
  const base = rt.next;
  rt.exports.toMont(base, STAGE_AT, constants.length);
  rt.next += ELEMENT * constants.length;
  const c = base;
  const s = c + ELEMENT * C.length;
  const m = s + ELEMENT * S.length;
  const width: Width = { t, partialRounds: PARTIAL_ROUNDS[w]!, c, s, m, p: m + ELEMENT * t * t };
  rt.widths[w] = width;
  return width;
}

/** js-crypto's own function as it was when this module loaded: the error path. */
const libraryHash = Poseidon.hash.bind(Poseidon);

/** Whether js-crypto would hash `inputs` as they are: 1 to 16 bigints in the field. */
export function hashable(inputs: unknown): inputs is readonly bigint[] {
  if (!Array.isArray(inputs) || inputs.length < 1 || inputs.length > PARTIAL_ROUNDS.length) return false;
  for (const x of inputs) if (typeof x !== 'bigint' || x < 0n || x >= FIELD) return false;
  return true;
}

/**
 * Poseidon of 1 to 16 field elements: js-crypto's `Poseidon.hash`, computed in WebAssembly. The
 * module is compiled the first time, and a width's constants prepared the first time it is used.
 * Anything but 1 to 16 bigints in [0, r) goes to js-crypto's function, which throws as it does.
 */
export function poseidonWasm(inputs: readonly bigint[]): bigint {
  if (!hashable(inputs)) return libraryHash(inputs as bigint[]);
  const rt = (runtime ??= start());
  const t = inputs.length + 1;
  const width = rt.widths[t - 2] ?? prepareWidth(rt, t);
  const { words } = rt;
  let k = INPUT_AT / 8;
  for (const x of inputs) {
    words[k] = x;
    words[k + 1] = x >> 64n;
    words[k + 2] = x >> 128n;
    words[k + 3] = x >> 192n;
    k += 4;
  }
  rt.exports.hash(t, width.partialRounds, width.c, width.s, width.m, width.p);
  const o = OUT_AT / 8;
  return words[o]! | (words[o + 1]! << 64n) | (words[o + 2]! << 128n) | (words[o + 3]! << 192n);
}
