/**
 * BabyJubJub keys and EdDSA-Poseidon signatures, byte for byte as @iden3/js-crypto makes them
 * (the js-sdk's BjjProvider), with a faster multiplication of the base point.
 *
 * js-crypto multiplies by double-and-add in affine coordinates: two field inversions per step,
 * about 500 steps per signature, 40-60 ms of the event loop for each claim an issuer signs and
 * each V3 challenge a holder signs (and half that for every public key it derives). Here the
 * point is in extended twisted Edwards coordinates (X:Y:Z:T, x = X/Z, y = Y/Z, xy = T/Z; Hisil,
 * Wong, Carter, Dawson, "Twisted Edwards curves revisited", 2008: the add-2008-hwcd formulas,
 * valid for any a), and the base point's multiples are in a table of 64 windows of 4 bits:
 * a multiplication is 64 additions, one of them per window whatever the scalar's digit (0 adds
 * the neutral point), and one inversion at the end. The algorithm (the scalars, the nonce, the
 * hash) is js-crypto's; only the arithmetic that gives the same points is faster, and tests
 * compare both on random and edge keys and messages.
 */
import type { AbstractPrivateKeyStore, IKeyProvider, KmsKeyId } from '@0xpolygonid/js-sdk';
import { blake512 } from '@noble/hashes/blake1';
import type { Iden3Modules } from './modules.js';

/** The BN254 scalar field: BabyJubJub's base field. */
const P = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
/** The curve: a x^2 + y^2 = 1 + d x^2 y^2. */
const A_COEF = 168700n;
const D_COEF = 168696n;
/** The order of the prime subgroup Base8 generates (the curve's order / 8). */
export const SUB_ORDER = 21888242871839275222246405745257275088614511777268538073601725287587578984328n >> 3n;
/** js-crypto's Base8: 8 times its generator. */
export const BASE8: readonly [bigint, bigint] = [
  5299619240641551281634865583518297030282874472190772894086521144482721001553n,
  16950150798460657717958625567821834550301663161624707787222815936182638968203n,
];

const WINDOW_BITS = 4;
const WINDOWS = 64;

/** A point in extended coordinates. */
type Extended = readonly [bigint, bigint, bigint, bigint];

const NEUTRAL: Extended = [0n, 1n, 1n, 0n];

function mod(value: bigint): bigint {
  const r = value % P;
  return r < 0n ? r + P : r;
}

/** The sum of two points (unified: doubling too). */
function add(p: Extended, q: Extended): Extended {
  const [x1, y1, z1, t1] = p;
  const [x2, y2, z2, t2] = q;
  const a = (x1 * x2) % P;
  const b = (y1 * y2) % P;
  const c = (((D_COEF * t1) % P) * t2) % P;
  const d = (z1 * z2) % P;
  const e = mod((x1 + y1) * (x2 + y2) - a - b);
  const f = mod(d - c);
  const g = (d + c) % P;
  const h = mod(b - A_COEF * a);
  return [(e * f) % P, (g * h) % P, (f * g) % P, (e * h) % P];
}

function power(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base % P;
  let e = exponent;
  while (e > 0n) {
    if ((e & 1n) === 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function toAffine(point: Extended): [bigint, bigint] {
  const zInverse = power(point[2], P - 2n);
  return [(point[0] * zInverse) % P, (point[1] * zInverse) % P];
}

let table: Extended[][] | undefined;

/** table[w][j] = j * 16^w * Base8, for the 64 windows of a scalar below 2^256. */
function baseTable(): Extended[][] {
  if (table !== undefined) return table;
  const rows: Extended[][] = [];
  let windowBase: Extended = [BASE8[0], BASE8[1], 1n, (BASE8[0] * BASE8[1]) % P];
  for (let w = 0; w < WINDOWS; w += 1) {
    const row: Extended[] = [NEUTRAL, windowBase];
    for (let j = 2; j < 1 << WINDOW_BITS; j += 1) row.push(add(row[j - 1]!, windowBase));
    rows.push(row);
    windowBase = add(row[(1 << WINDOW_BITS) - 1]!, windowBase);
  }
  table = rows;
  return rows;
}

/** scalar * Base8 in affine coordinates, for 0 <= scalar < 2^256 (js-crypto's babyJub.mulPointEScalar(Base8, scalar)). */
export function mulBase8(scalar: bigint): [bigint, bigint] {
  if (scalar < 0n || scalar >> BigInt(WINDOW_BITS * WINDOWS) !== 0n) throw new RangeError('the scalar must be in [0, 2^256)');
  const rows = baseTable();
  let acc = NEUTRAL;
  for (let w = 0; w < WINDOWS; w += 1) {
    acc = add(acc, rows[w]![Number((scalar >> BigInt(w * WINDOW_BITS)) & 15n)]!);
  }
  return toAffine(acc);
}

function littleEndianInt(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i -= 1) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

function littleEndianBytes(value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  if (rest !== 0n) throw new RangeError(`the value does not fit in ${length} bytes`);
  return out;
}

/** The secret scalar s of a 32-byte private key, and the second half of its hash (the nonce's key). */
function expandKey(privateKey: Uint8Array): { s: bigint; nonceKey: Uint8Array } {
  if (privateKey.length !== 32) throw new RangeError('a BabyJubJub private key is 32 bytes');
  const hash = blake512(privateKey);
  const head = hash.slice(0, 32);
  head[0]! &= 248;
  head[31]! &= 127;
  head[31]! |= 64;
  return { s: littleEndianInt(head), nonceKey: hash.slice(32, 64) };
}

/** The public key point of a private key (js-crypto's eddsa.prv2pub). */
export function babyJubPublicPoint(privateKey: Uint8Array): [bigint, bigint] {
  return mulBase8(expandKey(privateKey).s >> 3n);
}

/**
 * The EdDSA-Poseidon signature of `message` (a field element) by `privateKey` (js-crypto's
 * eddsa.signPoseidon): the nonce r = blake512(second half of the key's hash || message) mod the
 * subgroup order, R8 = r * Base8, S = r + Poseidon(R8, A, message) * s mod the subgroup order.
 */
export function babyJubSignPoseidon(
  privateKey: Uint8Array,
  message: bigint,
  poseidon5: (inputs: bigint[]) => bigint,
  /** The key's public point, when the caller has it (babyJubPublicPoint of the same key). */
  knownPublicPoint?: readonly [bigint, bigint],
): { R8: [bigint, bigint]; S: bigint } {
  if (message < 0n || message >= P) throw new RangeError('the message must be a field element');
  const { s, nonceKey } = expandKey(privateKey);
  const publicPoint = knownPublicPoint ?? mulBase8(s >> 3n);
  const composed = new Uint8Array(64);
  composed.set(nonceKey, 0);
  composed.set(littleEndianBytes(message, 32), 32);
  const r = littleEndianInt(blake512(composed)) % SUB_ORDER;
  const R8 = mulBase8(r);
  const hm = poseidon5([R8[0], R8[1], publicPoint[0], publicPoint[1], message]);
  return { R8, S: (r + hm * s) % SUB_ORDER };
}

/**
 * The js-sdk's BabyJubJub key provider (sdk.BjjProvider, its checks and its key ids) with its
 * signatures, public keys and key creation computed by the code above.
 */
export async function babyJubKeyProvider(modules: Iden3Modules, keyStore: AbstractPrivateKeyStore): Promise<IKeyProvider> {
  const { sdk, core } = modules;
  const { Hex, PublicKey, Signature, poseidon } = await import('@iden3/js-crypto');
  const hash = (inputs: bigint[]): bigint => poseidon.hash(inputs);
  const secret = async (keyId: KmsKeyId): Promise<Uint8Array> => Hex.decodeString(await keyStore.get({ alias: keyId.id }));
  // The public point of each key signed with (a scalar multiplication saved per signature): keys
  // never change under their id; a wallet has a few.
  const publicPoints = new Map<string, readonly [bigint, bigint]>();
  const publicPointOf = (keyId: KmsKeyId, key: Uint8Array): readonly [bigint, bigint] => {
    let point = publicPoints.get(keyId.id);
    if (point === undefined) {
      point = babyJubPublicPoint(key);
      if (publicPoints.size >= 256) publicPoints.clear();
      publicPoints.set(keyId.id, point);
    }
    return point;
  };
  class BabyJubProvider extends sdk.BjjProvider {
    override async sign(keyId: KmsKeyId, data: Uint8Array): Promise<Uint8Array> {
      // The js-sdk's own checks and messages: 32 bytes, a field element.
      if (data.length !== 32) throw new Error('data to sign is too large');
      const message = core.BytesHelper.bytesToInt(data);
      if (!core.checkBigIntInField(message)) throw new Error('data to sign is too large');
      const key = await secret(keyId);
      const { R8, S } = babyJubSignPoseidon(key, message, hash, publicPointOf(keyId, key));
      return new Signature(R8, S).compress();
    }

    override async publicKey(keyId: KmsKeyId): Promise<string> {
      return new PublicKey(babyJubPublicPoint(await secret(keyId))).hex();
    }

    override async newPrivateKeyFromSeed(seed: Uint8Array): Promise<KmsKeyId> {
      const publicKey = new PublicKey(babyJubPublicPoint(seed));
      const keyId = { type: sdk.KmsKeyType.BabyJubJub, id: `${sdk.KmsKeyType.BabyJubJub}:${publicKey.hex()}` };
      await keyStore.importKey({ alias: keyId.id, key: Hex.encodeString(seed) });
      return keyId;
    }
  }
  return new BabyJubProvider(sdk.KmsKeyType.BabyJubJub, keyStore);
}
