/**
 * Poseidon for the iden3 libraries, faster and remembering. Every Poseidon hash of the js-sdk, the
 * Merkle trees and JSON-LD merklization goes through @iden3/js-crypto's `Poseidon.hash`: 190 us
 * for two inputs, in BigInt arithmetic. Issuing a credential hashes about 240 times, three
 * quarters of them inputs already hashed (js-merkletree computes a leaf's key again each time it
 * asks for it, and the js-sdk merklizes every credential twice); they were two thirds of a
 * signature issuance.
 *
 * `acceleratePoseidon` replaces that one function, process-wide, by the same function computed in
 * WebAssembly (./poseidonWasm.ts: 25 us for two inputs), remembering its recent results. Poseidon
 * is a pure function, so a remembered result is the result. Anything but a valid input (a list of
 * 1 to 16 field elements as bigints) goes to the library's own function, which converts or refuses
 * it as before. Tests check the replacement against the library's function on every width and
 * every limb position, and against circomlibjs's reference implementation.
 */
import type { Poseidon as PoseidonClass } from '@iden3/js-crypto';
import { hashable, poseidonWasm } from './poseidonWasm.js';

/** How many results are remembered: each a key of at most 16 x 64 hex digits and a bigint. */
export const REMEMBERED_HASHES = 20_000;

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
const LIBRARY_HASH = Symbol.for('vc.poseidon.library');

/** js-crypto's own `Poseidon.hash`, installed or not (for comparisons: the bench, the tests). */
export function libraryPoseidon(library: { Poseidon: typeof PoseidonClass }): (inputs: bigint[]) => bigint {
  const target = library.Poseidon as typeof PoseidonClass & { [LIBRARY_HASH]?: (inputs: bigint[]) => bigint };
  return target[LIBRARY_HASH] ?? target.hash.bind(target);
}

/**
 * Makes js-crypto's `Poseidon.hash` (the class the iden3 libraries loaded with it call) the
 * WebAssembly one, remembering. Idempotent.
 */
export function acceleratePoseidon(library: { Poseidon: typeof PoseidonClass }): void {
  const target = library.Poseidon as typeof PoseidonClass & { [ACCELERATED]?: true; [LIBRARY_HASH]?: (inputs: bigint[]) => bigint };
  if (target[ACCELERATED]) return;
  const original = target.hash.bind(target);
  target[LIBRARY_HASH] = original;
  const remembering = rememberingPoseidon(poseidonWasm);
  target.hash = (inputs: bigint[]): bigint => (hashable(inputs) ? remembering(inputs) : original(inputs));
  target[ACCELERATED] = true;
}
