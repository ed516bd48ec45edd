/**
 * One Groth16 proof of a circom circuit, in two measured phases: the witness (the circuit's
 * WebAssembly, through the js-sdk's witness calculator, as the js-sdk's own prover computes it)
 * and the proof (snarkjs). The same function runs on the calling thread (the commands) and in the
 * prover worker of `vc serve` (proverWorker.ts), so both give the same proofs.
 */

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

/** Imports an untyped module (snarkjs ships no type declarations). */
async function importUntyped<T>(name: string): Promise<T> {
  return (await import(name)) as T;
}

/**
 * Computes the witness of `inputs` (the circuit's input signals as JSON bytes) with the circuit's
 * WebAssembly, then proves it with the proving key. `useCurve` wraps the snarkjs call (the commands
 * release the curve's threads after their last proof; a worker keeps them).
 */
export async function proveGroth16(
  witnessBuilder: WitnessBuilder,
  files: { wasm: Uint8Array; zkey: Uint8Array },
  inputs: Uint8Array,
  useCurve: <T>(task: () => Promise<T>) => Promise<T> = (task) => task(),
): Promise<TimedGroth16Proof> {
  const snarkjs = await importUntyped<Snarkjs>('snarkjs');
  const started = performance.now();
  const code = files.wasm.buffer.slice(files.wasm.byteOffset, files.wasm.byteOffset + files.wasm.byteLength) as ArrayBuffer;
  const calculator = await witnessBuilder(code);
  const witness = await calculator.calculateWTNSBin(JSON.parse(new TextDecoder().decode(inputs)) as unknown, 0);
  const witnessDone = performance.now();
  const { proof, publicSignals } = await useCurve(() => snarkjs.groth16.prove(files.zkey, witness));
  return { proof, publicSignals, witnessMs: witnessDone - started, provingMs: performance.now() - witnessDone };
}
