/**
 * The project's circom circuits for the witness tests: the very files `vc circuits build` made
 * (circuit.wasm and circuit.r1cs in the per-user cache, built once per run by the integration
 * tests' global setup), so the tests check what vc proves with and never compile a second time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureCircuits, CIRCUIT_FILES } from '../../../src/circuits/build.js';
import { parseConfig } from '../../../src/config/parse.js';
import { Context } from '../../../src/context.js';

/** A compiled circuit: witness computation and a constraint check against its R1CS. */
export interface CompiledCircuit {
  name: string;
  dir: string;
  r1csPath: string;
  wasmPath: string;
  /** Full witness (wire 0 is the constant 1, then outputs and public inputs); throws when a constraint fails. One instance of the circuit serves every call. */
  calculateWitness(input: unknown): Promise<bigint[]>;
  /** The same, by snarkjs.wtns.calculate on a fresh instance (to check the shared one against). */
  freshWitness(input: unknown): Promise<bigint[]>;
  /** Computes the witness with snarkjs and checks every R1CS constraint against it. */
  checkConstraints(input: unknown): Promise<boolean>;
}

type MemoryFile = { type: 'mem'; data?: Uint8Array };

/** circom_runtime's witness calculator (snarkjs's own; untyped), as WitnessCalculatorBuilder makes it. */
interface WitnessCalculator {
  calculateWitness(input: unknown, sanityCheck?: boolean): Promise<bigint[]>;
}

async function loadWitnessCalculatorBuilder(): Promise<(code: Uint8Array, options?: unknown) => Promise<WitnessCalculator>> {
  // The runtime snarkjs.wtns.calculate builds its calculator with (a devDependency at the version snarkjs pins).
  const moduleName: string = 'circom_runtime';
  return ((await import(moduleName)) as { WitnessCalculatorBuilder: (code: Uint8Array, options?: unknown) => Promise<WitnessCalculator> }).WitnessCalculatorBuilder;
}

/** The slice of snarkjs (untyped package) the witness tests use. */
interface SnarkjsWitnessApi {
  wtns: {
    calculate(input: unknown, wasmPath: string, output: MemoryFile): Promise<void>;
    check(r1csPath: string, wtns: MemoryFile, logger: unknown): Promise<boolean>;
    exportJson(wtns: MemoryFile): Promise<bigint[]>;
  };
}

async function loadSnarkjs(): Promise<SnarkjsWitnessApi> {
  const moduleName: string = 'snarkjs';
  return (await import(moduleName)) as SnarkjsWitnessApi;
}

// snarkjs reports a failed check through its logger, so it needs one even when we only want the result.
const silentLogger = { info() {}, warn() {}, debug() {}, error() {} };

/** The circuit `circuits/<name>.circom` as vc builds it (from the cache; built here if missing). */
export async function compileCircuit(name: string): Promise<CompiledCircuit> {
  const home = mkdtempSync(path.join(tmpdir(), 'vc-circom-test-'));
  const ctx = new Context({ config: parseConfig({}, home) });
  let dir: string;
  try {
    const info = await ensureCircuits(ctx);
    if (info.source !== 'built') throw new Error(`the circuit tests check vc's own build, but CIRCUITS_PATH points to ${info.dir}`);
    dir = path.join(info.dir, name);
  } finally {
    await ctx.close();
    rmSync(home, { recursive: true, force: true });
  }
  const r1csPath = path.join(dir, CIRCUIT_FILES.r1cs);
  const wasmPath = path.join(dir, CIRCUIT_FILES.wasm);
  const snarkjs = await loadSnarkjs();
  const witness = async (input: unknown): Promise<MemoryFile> => {
    const wtns: MemoryFile = { type: 'mem' };
    await snarkjs.wtns.calculate(input, wasmPath, wtns);
    return wtns;
  };
  // One WebAssembly instance of the circuit serves the witnesses that succeed one after another
  // (snarkjs.wtns.calculate makes a new instance, with its memory, per call): each calculation
  // starts with the runtime's init(), which resets it. An instance whose calculation failed is
  // dropped (its runtime keeps the failure's message and would prefix it to the next one's), so
  // every failure is reported, as before, by an instance of its own. One calculation at a time.
  const builder = await loadWitnessCalculatorBuilder();
  const wasm = readFileSync(wasmPath);
  let calculator: Promise<WitnessCalculator> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const calculateWitness = (input: unknown): Promise<bigint[]> => {
    const run = queue.then(async () => {
      calculator ??= builder(wasm);
      try {
        return await (await calculator).calculateWitness(input, false);
      } catch (error) {
        calculator = undefined;
        throw error;
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    name,
    dir,
    r1csPath,
    wasmPath,
    calculateWitness,
    freshWitness: async (input) => snarkjs.wtns.exportJson(await witness(input)),
    checkConstraints: async (input) => snarkjs.wtns.check(r1csPath, await witness(input), silentLogger),
  };
}

/** Public signals of a witness: wires 1..count (outputs, then public inputs, as snarkjs orders them). */
export function publicSignals(witness: bigint[], count: number): string[] {
  return witness.slice(1, 1 + count).map((value) => value.toString());
}
