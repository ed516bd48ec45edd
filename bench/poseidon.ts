/**
 * Poseidon benchmark: the time of one hash with @iden3/js-crypto's `Poseidon.hash` (BigInt
 * arithmetic) and with vc's WebAssembly Poseidon (src/iden3/poseidonWasm.ts), for 2, 3, 5, 6 and
 * 16 inputs (2: a Merkle tree node, 3: a leaf, 16: a sponge frame of hashBytes), in the same run,
 * batches of the two alternating so both see the same machine load; and the first use of the
 * WebAssembly Poseidon in a fresh process (generating and compiling the module, the constants of
 * the width, the first hash), the median of a few processes.
 * Acceptance: a 2-input hash at most 0.15x js-crypto's time, the first use under 20 ms.
 * Run: node dist/bench/poseidon.js [rounds]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Poseidon } from '@iden3/js-crypto';
import { libraryPoseidon } from '../src/iden3/poseidon.js';
import { poseidonWasm } from '../src/iden3/poseidonWasm.js';
import { median, round, runIfMain } from './stats.js';

const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const INPUT_COUNTS = [2, 3, 5, 6, 16] as const;
const TARGET_RATIO_TWO_INPUTS = 0.15;
const TARGET_FIRST_USE_MS = 20;
const FIRST_USE_PROCESSES = 5;

export interface PoseidonWidthResult {
  inputs: number;
  /** Median microseconds per hash over the rounds. */
  jsCryptoUs: number;
  wasmUs: number;
  /** wasm / js-crypto, medians of the same run. */
  ratio: number;
}

export interface PoseidonBenchReport {
  benchmark: 'poseidon';
  machine: { cpus: number; cpuModel: string | undefined; node: string };
  rounds: number;
  widths: PoseidonWidthResult[];
  /** A fresh process's first 2-input hash (module generated and compiled, t = 3 constants, one hash), and what follows. */
  firstUse: {
    processes: number;
    /** Generating the module's bytes, compiling and instantiating it, converting the t = 3 constants, the first hash. */
    firstHashMs: number;
    /** The first hash of another width (17: the most constants) in the same process: its constants and the hash. */
    firstHashOfWidth17Ms: number;
    /** The second 2-input hash, for comparison (not yet optimized by the engine). */
    secondHashMs: number;
  };
  acceptance: { targetRatioTwoInputs: number; targetFirstUseMs: number; met: boolean };
}

const randomField = (): bigint => BigInt(`0x${randomBytes(32).toString('hex')}`) % R;

/** Microseconds per call of `hash` over `vectors`. */
function perHashUs(hash: (inputs: bigint[]) => bigint, vectors: bigint[][]): number {
  const start = process.hrtime.bigint();
  for (const inputs of vectors) hash(inputs);
  return Number(process.hrtime.bigint() - start) / 1e3 / vectors.length;
}

/** First use in a fresh process: the module's own timing, printed as JSON by a child node. */
function firstUse(): PoseidonBenchReport['firstUse'] {
  const moduleUrl = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'iden3', 'poseidonWasm.js')).href;
  const script = `
    const { poseidonWasm } = await import(${JSON.stringify(moduleUrl)});
    const time = (f) => { const s = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - s) / 1e6; };
    const first = time(() => poseidonWasm([1n, 2n]));
    const second = time(() => poseidonWasm([3n, 4n]));
    const wide = time(() => poseidonWasm(Array.from({ length: 16 }, (_, i) => BigInt(i))));
    process.stdout.write(JSON.stringify({ first, second, wide }));`;
  const samples: Array<{ first: number; second: number; wide: number }> = [];
  for (let i = 0; i < FIRST_USE_PROCESSES; i++) {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`the first-use process failed: ${child.stderr}`);
    samples.push(JSON.parse(child.stdout) as { first: number; second: number; wide: number });
  }
  return {
    processes: FIRST_USE_PROCESSES,
    firstHashMs: round(median(samples.map((s) => s.first)), 2),
    firstHashOfWidth17Ms: round(median(samples.map((s) => s.wide)), 2),
    secondHashMs: round(median(samples.map((s) => s.second)), 3),
  };
}

/** Runs the benchmark and returns the JSON report. */
export async function runPoseidonBench(options: { rounds?: number } = {}): Promise<PoseidonBenchReport> {
  const rounds = options.rounds ?? 15;
  // The library's own function, also when an earlier bench of this process installed vc's in its place.
  const library = libraryPoseidon({ Poseidon });
  const widths: PoseidonWidthResult[] = [];
  for (const count of INPUT_COUNTS) {
    // About 60 ms of js-crypto per round; the WebAssembly batch is 10 times larger.
    const libraryBatch = Math.max(10, Math.round(400 / count));
    const vectors = Array.from({ length: libraryBatch * 10 }, () => Array.from({ length: count }, randomField));
    for (const inputs of vectors.slice(0, 5)) {
      if (poseidonWasm(inputs) !== library(inputs)) throw new Error(`the WebAssembly Poseidon differs from js-crypto on [${inputs.join(', ')}]`);
    }
    perHashUs(poseidonWasm, vectors); // warm-up: the engine's optimizing tier
    perHashUs(library, vectors.slice(0, libraryBatch));
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      ours.push(perHashUs(poseidonWasm, vectors));
      theirs.push(perHashUs(library, vectors.slice(0, libraryBatch)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const wasmUs = median(ours);
    const jsCryptoUs = median(theirs);
    widths.push({ inputs: count, jsCryptoUs: round(jsCryptoUs, 1), wasmUs: round(wasmUs, 2), ratio: round(wasmUs / jsCryptoUs, 3) });
  }
  const first = firstUse();
  const two = widths.find((w) => w.inputs === 2)!;
  return {
    benchmark: 'poseidon',
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
    rounds,
    widths,
    firstUse: first,
    acceptance: {
      targetRatioTwoInputs: TARGET_RATIO_TWO_INPUTS,
      targetFirstUseMs: TARGET_FIRST_USE_MS,
      met: two.ratio <= TARGET_RATIO_TWO_INPUTS && first.firstHashMs < TARGET_FIRST_USE_MS,
    },
  };
}

runIfMain(
  import.meta.url,
  (rounds) => runPoseidonBench(rounds !== undefined && Number.isInteger(rounds) && rounds > 0 ? { rounds } : {}),
  (report) => !report.acceptance.met,
);
