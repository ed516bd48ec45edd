/**
 * The query hash as the on-chain side computes it, transcribed from the Solidity sources of
 * @iden3/contracts 3.4 so the tests compare the circuit with the contracts, not with the js-sdk:
 * lib/Poseidon.sol SpongePoseidon.hash over the 64-value array, then PoseidonUnit6L over
 * [schema, slotIndex, operator, claimPathKey, claimPathNotExists, valueHash]. (The MTP v2
 * validator compares the proof's circuitQueryHash with the request's queryHash, which request
 * builders compute this way.)
 */
import { poseidon } from '@iden3/js-crypto';

const VALUE_ARRAY_SIZE = 64;

/** SpongePoseidon.hash (BATCH_SIZE 6), statement by statement. */
export function spongePoseidon(values: bigint[]): bigint {
  const BATCH_SIZE = 6;
  let frame: bigint[] = [0n, 0n, 0n, 0n, 0n, 0n];
  let dirty = false;
  let fullHash = 0n;
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    dirty = true;
    frame[k] = values[i] as bigint;
    if (k === BATCH_SIZE - 1) {
      fullHash = poseidon.hash(frame);
      dirty = false;
      frame = [0n, 0n, 0n, 0n, 0n, 0n];
      frame[0] = fullHash;
      k = 1;
    } else {
      k++;
    }
  }
  if (dirty) {
    fullHash = poseidon.hash(frame);
  }
  return fullHash;
}

/** The query hash of a credentialAtomicQueryMTPV2OnChain request. */
export function validatorQueryHash(query: {
  schema: bigint;
  slotIndex: number;
  operator: number;
  claimPathKey: bigint;
  claimPathNotExists: number;
  values: bigint[];
}): bigint {
  const values = [...query.values];
  while (values.length < VALUE_ARRAY_SIZE) values.push(0n);
  const valueHash = spongePoseidon(values);
  return poseidon.hash([
    query.schema,
    BigInt(query.slotIndex),
    BigInt(query.operator),
    query.claimPathKey,
    BigInt(query.claimPathNotExists),
    valueHash,
  ]);
}
