/**
 * Circuit benchmarks: witness calculation and Groth16 proving time (median of several runs) for
 * each circuit built by our pipeline, in-process as vc does it (snarkjs library, curve already
 * warm), next to the stock snarkjs CLI (`snarkjs wtns calculate`, `snarkjs groth16 prove`, the
 * script `npx snarkjs` runs, a fresh process per run) on the same files, measured in the same run.
 *
 * Inputs: the pipeline's fixture circuit always; a project circuit when bench/inputs/<id>.json
 * holds a witness input for it (written from the circuit tests' js-sdk generated inputs).
 * Also times one trusted setup of the fixture: vc's development setup vs the stock snarkjs ceremony
 * (powers of tau at the smallest fitting power, beacon, prepare phase 2, zkey new, zkey beacon).
 * Run: node dist/bench/circuits.js [runs]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureCircuits, type CircuitFiles } from '../src/circuits/build.js';
import { compileCircuit } from '../src/circuits/compile.js';
import { loadBn128, releaseBn128 } from '../src/circuits/curve.js';
import { writeDevelopmentZkey } from '../src/circuits/devSetup.js';
import { snarkjsPackageDir } from '../src/circuits/solidity.js';
import { PROJECT_CIRCUIT_IDS, circomLibraryDir, projectRoot } from '../src/circuits/sources.js';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { median, round, timeRuns, runIfMain } from './stats.js';

export interface CircuitBenchResult {
  circuitId: string;
  constraints: number | undefined;
  development: boolean;
  runs: number;
  /** Median milliseconds. */
  witness: { vc: number; snarkjsCli: number };
  prove: { vc: number; snarkjsCli: number };
  /** First-build step timings recorded by the pipeline (ms), when it built the files. */
  buildTimings: CircuitFiles['timings'];
}

/** One trusted setup of the fixture circuit: vc's development setup vs the stock snarkjs route. */
export interface SetupComparison {
  circuitId: string;
  constraints: number;
  domainSize: number;
  /** vc's one-process development setup (writes the final zkey), ms. */
  vcDevelopmentSetup: number;
  /** Stock snarkjs at the smallest fitting power: steps in ms. */
  snarkjsStock: { powersOfTauNew: number; beacon: number; preparePhase2: number; zkeyNew: number; zkeyBeacon: number; total: number };
}

export interface CircuitsBenchReport {
  benchmark: 'circuits';
  machine: { cpus: number; node: string; loadAverage: number[] };
  setup: SetupComparison | undefined;
  circuits: CircuitBenchResult[];
  skipped: Array<{ circuitId: string; reason: string }>;
}

export interface CircuitsBenchOptions {
  runs?: number;
  /** Cache directory for the builds (default: the per-user cache). */
  cacheDir?: string;
}

type Snarkjs = {
  wtns: { calculate(input: unknown, wasm: string, wtns: string): Promise<void> };
  groth16: {
    prove(zkey: string, wtns: string): Promise<{ proof: unknown; publicSignals: string[] }>;
    verify(vk: unknown, signals: string[], proof: unknown): Promise<boolean>;
  };
};

function runCli(args: string[]): number {
  const cli = path.join(snarkjsPackageDir(), 'build', 'cli.cjs');
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`snarkjs ${args.slice(0, 2).join(' ')} failed: ${result.stderr || result.stdout}`);
  return elapsed;
}

async function benchCircuit(snarkjs: Snarkjs, circuit: CircuitFiles, input: unknown, runs: number, work: string): Promise<CircuitBenchResult> {
  const wasm = circuit.wasm!;
  const zkey = circuit.zkey!;
  const inputFile = path.join(work, `${circuit.id}.input.json`);
  await writeFile(inputFile, JSON.stringify(input));
  const wtnsVc = path.join(work, `${circuit.id}.vc.wtns`);
  const wtnsCli = path.join(work, `${circuit.id}.cli.wtns`);

  // Warm up both paths, then alternate them run by run, so changes in machine load hit both alike.
  await snarkjs.wtns.calculate(input, wasm, wtnsVc);
  const { proof, publicSignals } = await snarkjs.groth16.prove(zkey, wtnsVc);
  // The proof must be valid, or the timings mean nothing.
  const vk = JSON.parse(readFileSync(circuit.verificationKey!, 'utf8')) as unknown;
  if (!(await snarkjs.groth16.verify(vk, publicSignals, proof))) throw new Error(`${circuit.id}: benchmark proof does not verify`);
  const witnessVc: number[] = [];
  const proveVc: number[] = [];
  const witnessCli: number[] = [];
  const proveCli: number[] = [];
  for (let i = 0; i < runs; i++) {
    witnessVc.push(...(await timeRuns(() => snarkjs.wtns.calculate(input, wasm, wtnsVc), 1, 0)));
    proveVc.push(...(await timeRuns(() => snarkjs.groth16.prove(zkey, wtnsVc), 1, 0)));
    witnessCli.push(runCli(['wtns', 'calculate', wasm, inputFile, wtnsCli]));
    proveCli.push(runCli(['groth16', 'prove', zkey, wtnsCli, path.join(work, 'proof.json'), path.join(work, 'public.json')]));
  }
  return {
    circuitId: circuit.id,
    constraints: circuit.statistics?.constraints,
    development: circuit.development,
    runs,
    witness: { vc: round(median(witnessVc), 1), snarkjsCli: round(median(witnessCli), 1) },
    prove: { vc: round(median(proveVc), 1), snarkjsCli: round(median(proveCli), 1) },
    buildTimings: circuit.timings,
  };
}

/** Times vc's development setup and the stock snarkjs ceremony on the same compiled circuit. */
async function compareSetups(source: string, work: string): Promise<SetupComparison> {
  const moduleName: string = 'snarkjs';
  const snarkjs = (await import(moduleName)) as {
    powersOfTau: {
      newAccumulator(curve: unknown, power: number, file: string): Promise<unknown>;
      beacon(from: string, to: string, name: string, hash: string, iterations: number): Promise<unknown>;
      preparePhase2(from: string, to: string): Promise<unknown>;
    };
    zKey: { newZKey(r1cs: string, ptau: string, zkey: string): Promise<unknown>; beacon(from: string, to: string, name: string, hash: string, iterations: number): Promise<unknown> };
  };
  const dir = path.join(work, 'setup');
  await mkdir(dir, { recursive: true });
  const compiled = await compileCircuit({ source, outDir: dir, includePaths: [circomLibraryDir()], optimisation: 'O2', circuitId: 'pipelineFixture' });
  let started = Date.now();
  const ours = await writeDevelopmentZkey({ r1csPath: compiled.r1csPath, zkeyPath: path.join(dir, 'vc.zkey') });
  const vcDevelopmentSetup = Date.now() - started;

  const power = Math.log2(ours.domainSize);
  const beaconHash = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
  const lap = (): number => {
    const now = Date.now();
    const elapsed = now - started;
    started = now;
    return elapsed;
  };
  const file = (name: string): string => path.join(dir, name);
  started = Date.now();
  await snarkjs.powersOfTau.newAccumulator(await loadBn128(), power, file('0.ptau'));
  const powersOfTauNew = lap();
  await snarkjs.powersOfTau.beacon(file('0.ptau'), file('1.ptau'), 'bench', beaconHash, 10);
  const beacon = lap();
  await snarkjs.powersOfTau.preparePhase2(file('1.ptau'), file('2.ptau'));
  const preparePhase2 = lap();
  await snarkjs.zKey.newZKey(compiled.r1csPath, file('2.ptau'), file('0.zkey'));
  const zkeyNew = lap();
  await snarkjs.zKey.beacon(file('0.zkey'), file('1.zkey'), 'bench', beaconHash, 10);
  const zkeyBeacon = lap();
  return {
    circuitId: 'pipelineFixture',
    constraints: ours.nConstraints,
    domainSize: ours.domainSize,
    vcDevelopmentSetup,
    snarkjsStock: { powersOfTauNew, beacon, preparePhase2, zkeyNew, zkeyBeacon, total: powersOfTauNew + beacon + preparePhase2 + zkeyNew + zkeyBeacon },
  };
}

/** Benchmarks witness and proving time of every circuit that has an input, vs the snarkjs CLI. */
export async function runCircuitsBench(options: CircuitsBenchOptions = {}): Promise<CircuitsBenchReport> {
  const runs = options.runs ?? 5;
  const root = projectRoot();
  const work = await mkdtemp(path.join(os.tmpdir(), 'vc-bench-circuits-'));
  const ctx = new Context({ config: parseConfig({}, path.join(work, 'home')) });
  const moduleName: string = 'snarkjs';
  const snarkjs = (await import(moduleName)) as Snarkjs;
  const report: CircuitsBenchReport = {
    benchmark: 'circuits',
    machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => round(l, 2)) },
    setup: undefined,
    circuits: [],
    skipped: [],
  };
  const cache = options.cacheDir !== undefined ? { cacheDir: options.cacheDir } : {};
  try {
    const fixtureDir = path.join(root, 'test', 'circuits', 'fixtures');
    const fixture = await ensureCircuits(ctx, { ...cache, circuits: [{ id: 'pipelineFixture', main: path.join(fixtureDir, 'pipelineFixture.circom') }] });
    const fixtureInput = JSON.parse(readFileSync(path.join(fixtureDir, 'pipelineFixture.input.json'), 'utf8')) as unknown;
    report.circuits.push(await benchCircuit(snarkjs, fixture.circuits[0]!, fixtureInput, runs, work));
    report.setup = await compareSetups(path.join(fixtureDir, 'pipelineFixture.circom'), work);

    for (const id of PROJECT_CIRCUIT_IDS) {
      const inputFile = path.join(root, 'bench', 'inputs', `${id}.json`);
      if (!existsSync(inputFile)) {
        report.skipped.push({ circuitId: id, reason: `no witness input at bench/inputs/${id}.json` });
        continue;
      }
      const info = await ensureCircuits(ctx, cache);
      const circuit = info.circuits.find((c) => c.id === id)!;
      report.circuits.push(await benchCircuit(snarkjs, circuit, JSON.parse(readFileSync(inputFile, 'utf8')) as unknown, runs, work));
    }
  } finally {
    await ctx.close();
    await releaseBn128();
    await rm(work, { recursive: true, force: true });
  }
  return report;
}

runIfMain(import.meta.url, (runs) => runCircuitsBench(runs !== undefined ? { runs } : {}));
