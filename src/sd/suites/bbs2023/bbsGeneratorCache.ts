/**
 * A cache of the IETF BBS message generators, for bbs-2023.
 *
 * Why: @digitalbazaar/bbs-signatures 3.0.0 computes the generators (Q_1, H_1 ... H_L) afresh in
 * every Sign, Verify, ProofGen and ProofVerify (lib/bbs/interface.js calls create_generators from
 * lib/bbs/util.js each time), one hash-to-curve per generator: about a third of each operation.
 * The generators depend only on the ciphersuite and their index (the IETF draft's
 * create_generators: a chain of expand_message outputs, each hashed to G1 with the DST
 * `api_id || "SIG_GENERATOR_DST_"`), so every credential and every key uses the same points.
 *
 * The library takes no generators from outside (its index.js exports sign, verifySignature,
 * deriveProof and verifyProof, none with a generators argument; create_generators is not
 * exported, and getCiphersuite accepts only its own ciphersuite objects, so a ciphersuite with a
 * caching hash_to_curve_g1 is refused). Its ciphersuite does look up `bls12_381.G1.hashToCurve` of
 * @noble/curves at each call, so the one seam is there: this module wraps that function with a
 * memo that answers only for the generator DST (any other DST goes straight to @noble/curves) and
 * keys on every input (the DST, the message, and the options' hash function, expand mode and
 * security level), so a cached point is the point @noble/curves would compute. Points of
 * @noble/curves are immutable (every operation returns a new point), so sharing one is safe.
 *
 * A generator asked for a third time also gets a window table for @noble/curves' scalar
 * multiplication (its `precompute`, built at the point's next multiplication): a BBS operation
 * multiplies each generator by a scalar (B = P1 + Q_1 * domain + H_1 * m_1 + ..., and the proof's
 * commitments); with a 4-bit window table a multiplication costs about a seventh of one without,
 * and building the table about two. Hence the third time: a process that does one or two BBS
 * operations (a `vc` command; verifying a base proof is a derivation and its verification) builds
 * none, one that does more (vc serve, its workers, a holder's wallet) gains from its fourth on. Same results (the table holds multiples of the point), about
 * 100 KB a generator, for the first GENERATOR_TABLE_LIMIT generators only.
 *
 * If @noble/curves ever freezes its objects or bbs-signatures gets a copy of its own, the wrapper
 * is not installed or not reached: operations stay correct, only slower, and
 * test/sd/suites/bbs2023/generatorCache.test.ts (which checks the cache is used) fails.
 */
type Curve = (typeof import('@noble/curves/bls12-381'))['bls12_381'];
type HashToCurve = Curve['G1']['hashToCurve'];
type HashToCurveOptions = NonNullable<Parameters<HashToCurve>[1]>;

/** The suffix of the DST the IETF BBS draft hashes its generators with. */
const GENERATOR_DST_SUFFIX = Buffer.from('SIG_GENERATOR_DST_', 'latin1');
/**
 * At most this many points are kept (a credential of L statements uses L + 1 generators, the
 * same first ones for every credential); past it, new inputs are computed and not kept.
 */
export const GENERATOR_CACHE_LIMIT = 4096;

/** Generators that get a window table (a credential within vc's statement limits needs at most 201). */
export const GENERATOR_TABLE_LIMIT = 128;
/** Window size of the tables: 2^(4-1) * 65 points each (about 100 KB). */
const TABLE_WINDOW = 4;
/** A generator gets its table when asked for this many times (see above). */
const TABLE_AT_USE = 3;

const INSTALLED = Symbol.for('vc.bbsGeneratorCache');

interface CacheState {
  original: HashToCurve;
  /** Per hash function (an object, so a WeakMap), then per "expand|k|DST|message" in hex. */
  points: WeakMap<object, Map<string, ReturnType<HashToCurve>>>;
  size: number;
  /** Points given a window table (at their TABLE_AT_USE-th request). */
  tables: number;
  /** How many times each cached point was asked for. */
  uses: WeakMap<object, number>;
  hits: number;
  misses: number;
}

let state: CacheState | undefined;

function isGeneratorDst(dst: unknown): dst is Uint8Array {
  if (!(dst instanceof Uint8Array) || dst.length < GENERATOR_DST_SUFFIX.length) return false;
  return Buffer.from(dst.buffer, dst.byteOffset, dst.byteLength).subarray(dst.length - GENERATOR_DST_SUFFIX.length).equals(GENERATOR_DST_SUFFIX);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * Installs the generator cache on the @noble/curves instance this process loads (once; later
 * calls do nothing). Returns whether the cache is in place.
 */
export async function installBbsGeneratorCache(): Promise<boolean> {
  if (state !== undefined) return true;
  const { bls12_381: curve } = await import('@noble/curves/bls12-381');
  const g1 = curve.G1 as Curve['G1'] & { [INSTALLED]?: CacheState };
  const existing = g1[INSTALLED];
  if (existing !== undefined) {
    state = existing;
    return true;
  }
  const original = g1.hashToCurve;
  const cache: CacheState = { original, points: new WeakMap(), size: 0, tables: 0, uses: new WeakMap(), hits: 0, misses: 0 };
  const cached: HashToCurve = function cachedHashToCurve(this: unknown, msg, options) {
    const opts = options as (HashToCurveOptions & { hash?: unknown; k?: unknown; expand?: unknown }) | undefined;
    const hash = opts?.hash;
    if (opts === undefined || !isGeneratorDst(opts.DST) || !(msg instanceof Uint8Array) || typeof hash !== 'function') {
      return original.call(this, msg, options);
    }
    let byHash = cache.points.get(hash);
    const key = `${String(opts.expand)}|${String(opts.k)}|${hex(opts.DST)}|${hex(msg)}`;
    const hit = byHash?.get(key);
    if (hit !== undefined) {
      cache.hits += 1;
      const uses = (cache.uses.get(hit) ?? 1) + 1;
      cache.uses.set(hit, uses);
      if (uses === TABLE_AT_USE && cache.tables < GENERATOR_TABLE_LIMIT) {
        const precompute = (hit as { precompute?: (windowSize: number, isLazy: boolean) => unknown }).precompute;
        if (typeof precompute === 'function') precompute.call(hit, TABLE_WINDOW, true);
        cache.tables += 1;
      }
      return hit;
    }
    cache.misses += 1;
    const point = original.call(this, msg, options);
    if (cache.size < GENERATOR_CACHE_LIMIT) {
      if (byHash === undefined) cache.points.set(hash, (byHash = new Map()));
      byHash.set(key, point);
      cache.size += 1;
    }
    return point;
  };
  try {
    Object.defineProperty(g1, INSTALLED, { value: cache });
    g1.hashToCurve = cached;
  } catch {
    // A frozen object: no cache, the library computes its generators as before.
    return false;
  }
  if (g1.hashToCurve !== cached) return false;
  state = cache;
  return true;
}

/** How the cache has been used in this thread (for tests). */
export function bbsGeneratorCacheStats(): { installed: boolean; size: number; tables: number; hits: number; misses: number } {
  if (state === undefined) return { installed: false, size: 0, tables: 0, hits: 0, misses: 0 };
  return { installed: true, size: state.size, tables: state.tables, hits: state.hits, misses: state.misses };
}
