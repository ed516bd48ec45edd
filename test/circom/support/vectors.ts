/**
 * The official test vectors of test/circom/vectors/ (see its README): the inputs of every case of
 * the official iden3/circuits tests (and of the js-sdk's circuit input tests), with the outputs the
 * official circuits give on them or the fact that they fail.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from '../../helpers.js';
import type { BuiltCircuit } from './compileV3.js';

export interface VectorCase {
  name: string;
  desc: string;
  source: Record<string, unknown>;
  inputs: Record<string, unknown>;
  expected: { publicSignals: [string, string][] } | { fails: true; officialError: string };
}

export interface VectorFile {
  circuit: string;
  official: { commit: string; sizes: Sizes; constraints: number; publicSignals: string[]; outputs: number };
  cases: VectorCase[];
}

/** Template parameters that size the array inputs. */
export interface Sizes {
  issuerLevels?: number;
  claimLevels?: number;
  valueArraySize?: number;
  idOwnershipLevels?: number;
  onChainLevels?: number;
}

export function loadVectors(circuit: string): VectorFile {
  return JSON.parse(readFileSync(path.join(ROOT, 'test', 'circom', 'vectors', `${circuit}.json`), 'utf8')) as VectorFile;
}

const ARRAY_SIZES: Record<string, keyof Sizes> = {
  authClaimIncMtp: 'idOwnershipLevels',
  authClaimNonRevMtp: 'idOwnershipLevels',
  gistMtp: 'onChainLevels',
  issuerClaimMtp: 'issuerLevels',
  issuerClaimNonRevMtp: 'issuerLevels',
  issuerAuthClaimMtp: 'issuerLevels',
  issuerAuthClaimNonRevMtp: 'issuerLevels',
  claimPathMtp: 'claimLevels',
  value: 'valueArraySize',
};

/**
 * The inputs resized for a circuit of the given sizes (Merkle siblings and query values padded with
 * zeros or cut), or undefined when cutting would drop a non-zero element (the case needs a bigger
 * tree than the circuit has).
 */
export function resizeInputs(inputs: Record<string, unknown>, sizes: Sizes): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...inputs };
  for (const [key, param] of Object.entries(ARRAY_SIZES)) {
    const size = sizes[param];
    if (!(key in out) || size === undefined) continue;
    const values = (out[key] as unknown[]).map(String);
    if (values.slice(size).some((v) => v !== '0')) return undefined;
    out[key] = [...values.slice(0, size), ...Array<string>(Math.max(0, size - values.length)).fill('0')];
  }
  return out;
}

/**
 * Runs one case on our circuit: the same public signals (names and values, in order) as the
 * official circuit, every R1CS constraint satisfied; or a failure where the official circuit fails.
 */
export async function checkCase(circuit: BuiltCircuit, file: VectorFile, c: VectorCase, sizes: Sizes): Promise<void> {
  const inputs = resizeInputs(c.inputs, sizes);
  if (!inputs) throw new Error(`${c.name} does not fit ${circuit.name}`);
  if ('fails' in c.expected) {
    await expect(circuit.calculateWitness(inputs)).rejects.toThrow(/Error in template|Assert Failed/);
    return;
  }
  const witness = await circuit.calculateWitness(inputs);
  expect(circuit.publicSignalNames).toEqual(file.official.publicSignals);
  const got = circuit.publicSignalNames.map((name, i) => [name, (witness[1 + i] as bigint).toString()]);
  expect(got).toEqual(c.expected.publicSignals);
  expect(await circuit.checkConstraints(inputs)).toBe(true);
}
