/**
 * Poseidon for the iden3 libraries, faster and remembering. Every Poseidon hash of the js-sdk, the
 * Merkle trees and JSON-LD merklization goes through @iden3/js-crypto's `Poseidon.hash`: 190 us
 * for two inputs, in BigInt arithmetic. Issuing a credential hashes about 240 times, three
 * quarters of them inputs already hashed (js-merkletree computes a leaf's key again each time it
 * asks for it, and the js-sdk merklizes every credential twice); they were two thirds of a
 * signature issuance.
 *
 * `acceleratePoseidon` replaces that one function, process-wide, by the same function computed
 * faster, remembering its recent results. Poseidon is a pure function, so a remembered result is
 * the result. Anything but a valid input (a list of 1 to 16 field elements as bigints) goes to the
 * library's own function, which converts or refuses it as before. Tests check the replacement
 * against the library's function on every width and every limb position.
 */
import type { OPT as OptConstants, Poseidon as PoseidonClass } from '@iden3/js-crypto';

/** The BN254 scalar field, Poseidon's field. */
export const FIELD_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/** Partial rounds per width t = 2..17 (index t - 2); every width has 8 full rounds. */
const PARTIAL_ROUNDS = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68] as const;

/** How many results are remembered: each a key of at most 16 x 64 hex digits and a bigint. */
export const REMEMBERED_HASHES = 20_000;

type Constants = typeof OptConstants;

function pow5(x: bigint): bigint {
  const x2 = (x * x) % FIELD_R;
  const x4 = (x2 * x2) % FIELD_R;
  return (x4 * x) % FIELD_R;
}

/**
 * Poseidon of `inputs` (1 to 16 field elements, unchecked) with the library's optimized-round
 * constants: the rounds of js-crypto's `Poseidon.hash`, each sum of products reduced once.
 */
export function poseidonBigint(constants: Constants, inputs: readonly bigint[]): bigint {
  const t = inputs.length + 1;
  const C = constants.C[t - 2]!;
  const S = constants.S[t - 2]!;
  const M = constants.M[t - 2]!;
  const P = constants.P[t - 2]!;
  const partialRounds = PARTIAL_ROUNDS[t - 2]!;
  let state: bigint[] = [C[0]!, ...inputs.map((x, i) => (x + C[i + 1]!) % FIELD_R)];
  const mix = (matrix: bigint[][]): void => {
    const next = new Array<bigint>(t);
    for (let i = 0; i < t; i++) {
      let sum = 0n;
      for (let j = 0; j < t; j++) sum += matrix[j]![i]! * state[j]!;
      next[i] = sum % FIELD_R;
    }
    state = next;
  };
  const fullRound = (offset: number, matrix: bigint[][]): void => {
    for (let i = 0; i < t; i++) state[i] = (pow5(state[i]!) + C[offset + i]!) % FIELD_R;
    mix(matrix);
  };
  for (let r = 1; r <= 3; r++) fullRound(r * t, M);
  fullRound(4 * t, P);
  const width = 2 * t - 1;
  for (let r = 0; r < partialRounds; r++) {
    const s0 = (pow5(state[0]!) + C[5 * t + r]!) % FIELD_R;
    const row = width * r;
    let first = S[row]! * s0;
    for (let j = 1; j < t; j++) first += S[row + j]! * state[j]!;
    for (let k = 1; k < t; k++) state[k] = (state[k]! + s0 * S[row + t + k - 1]!) % FIELD_R;
    state[0] = first % FIELD_R;
  }
  for (let r = 0; r < 3; r++) fullRound(5 * t + partialRounds + r * t, M);
  let out = 0n;
  for (let j = 0; j < t; j++) out += M[j]![0]! * pow5(state[j]!);
  return out % FIELD_R;
}

/** Whether the library's function would hash `inputs` as they are: 1 to 16 bigints in the field. */
function hashable(inputs: unknown): inputs is bigint[] {
  if (!Array.isArray(inputs) || inputs.length < 1 || inputs.length > PARTIAL_ROUNDS.length) return false;
  for (const x of inputs) if (typeof x !== 'bigint' || x < 0n || x >= FIELD_R) return false;
  return true;
}

/** A remembering Poseidon: recent results by their inputs (hex, comma-separated), oldest forgotten first. */
export function rememberingPoseidon(compute: (inputs: readonly bigint[]) => bigint, limit = REMEMBERED_HASHES): (inputs: readonly bigint[]) => bigint {
  const results = new Map<string, bigint>();
  return (inputs) => {
    let key = inputs[0]!.toString(16);
    for (let i = 1; i < inputs.length; i++) key += `,${inputs[i]!.toString(16)}`;
    const known = results.get(key);
    if (known !== undefined) return known;
    const result = compute(inputs);
    results.set(key, result);
    if (results.size > limit) results.delete(results.keys().next().value!);
    return result;
  };
}

const ACCELERATED = Symbol.for('vc.poseidon.accelerated');

/**
 * Makes js-crypto's `Poseidon.hash` (the class the iden3 libraries loaded with it call) the faster,
 * remembering one. Idempotent.
 */
export function acceleratePoseidon(library: { Poseidon: typeof PoseidonClass; OPT: Constants }): void {
  const target = library.Poseidon as typeof PoseidonClass & { [ACCELERATED]?: true };
  if (target[ACCELERATED]) return;
  const original = target.hash.bind(target);
  const constants = library.OPT;
  const remembering = rememberingPoseidon((inputs) => poseidonBigint(constants, inputs));
  target.hash = (inputs: bigint[]): bigint => (hashable(inputs) ? remembering(inputs) : original(inputs));
  target[ACCELERATED] = true;
}
