/**
 * One Groth16 proof of a circom circuit, in two measured phases: the witness (the circuit's
 * WebAssembly, through the js-sdk's witness calculator, as the js-sdk's own prover computes it)
 * and the proof: vc's native prover (src/circuits/nativeProver.ts) on the proving key's file, or
 * snarkjs on its bytes. The same function runs on the calling thread (the commands) and in the
 * prover process of `vc serve` (proverProcess.ts), so both give the same proofs.
 */
import { runNativeProver } from '../circuits/nativeProver.js';

interface Snarkjs {
  groth16: { prove(zkey: Uint8Array, witness: Uint8Array): Promise<{ proof: unknown; publicSignals: string[] }> };
}

interface WitnessCalculator {
  calculateWTNSBin(input: unknown, sanityCheck: number): Promise<Uint8Array>;
}

/** The js-sdk's witness calculator builder (circom's WebAssembly witness protocol). */
export type WitnessBuilder = (code: ArrayBuffer) => Promise<WitnessCalculator>;

/** A proof with its public signals and the durations of its two phases. */
export interface TimedGroth16Proof {
  proof: unknown;
  publicSignals: string[];
  witnessMs: number;
  provingMs: number;
}

/**
 * Who makes the proof from the witness: snarkjs, given the proving key's bytes (`useCurve` wraps
 * the call: the commands release the curve's threads after their last proof, a prover process
 * keeps them), or the native prover, given the key's path (the witness goes to its standard input).
 */
export type Groth16Backend =
  | { kind: 'snarkjs'; zkey: Uint8Array; useCurve?: <T>(task: () => Promise<T>) => Promise<T> }
  | { kind: 'native'; binary: string; zkeyPath: string; threads?: number };

/** Imports an untyped module (snarkjs ships no type declarations). */
async function importUntyped<T>(name: string): Promise<T> {
  return (await import(name)) as T;
}

/**
 * Computes the witness of `inputs` (the circuit's input signals as JSON bytes) with the circuit's
 * WebAssembly, then proves it with the proving key.
 */
export async function proveGroth16(witnessBuilder: WitnessBuilder, wasm: Uint8Array, inputs: Uint8Array, backend: Groth16Backend): Promise<TimedGroth16Proof> {
  const snarkjs = backend.kind === 'snarkjs' ? await importUntyped<Snarkjs>('snarkjs') : undefined;
  const started = performance.now();
  const code = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
  const calculator = await witnessBuilder(code);
  const witness = await calculator.calculateWTNSBin(JSON.parse(new TextDecoder().decode(inputs)) as unknown, 0);
  const witnessDone = performance.now();
  let proved: { proof: unknown; publicSignals: string[] };
  if (backend.kind === 'native') {
    proved = await runNativeProver(backend.binary, backend.zkeyPath, witness, backend.threads);
  } else {
    const useCurve = backend.useCurve ?? ((task) => task());
    proved = await useCurve(() => snarkjs!.groth16.prove(backend.zkey, witness));
  }
  return { proof: proved.proof, publicSignals: proved.publicSignals, witnessMs: witnessDone - started, provingMs: performance.now() - witnessDone };
}
