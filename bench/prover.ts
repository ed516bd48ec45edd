/**
 * The Groth16 proof alone, from a witness file, on the project circuits (stateTransition,
 * credentialAtomicQueryMTPV2OnChain and credentialAtomicQueryV3OnChain-16-16-64-16-32, the V3 size
 * vc proves with; witnesses of bench/inputs/<id>.json, the V3 one captured from a signature proof
 * of `vc holder prove-submit` on a throwaway home): vc's native prover
 * (native/groth16, a fresh process per proof as vc runs it) against snarkjs in process
 * (`snarkjs.groth16.prove`, curve warm, as vc ran it before) and the stock snarkjs CLI
 * (`node node_modules/snarkjs/cli.js groth16 prove`, a fresh process per proof), on the same zkey
 * and witness, run by run interleaved so that the machine's load hits all three alike. Each is
 * measured in wall time and in CPU time (user + system: of this process for snarkjs in process,
 * its threads included; of the reaped child for the other two, from /proc/self/stat), the latter
 * steadier on a machine shared with other work. Every native proof is verified with snarkjs. The native prover's phases (VC_PROVER_TIMINGS) of its
 * last run are reported too. Target (issue 27): native at most 0.8x the snarkjs CLI.
 * Run: node dist/bench/prover.js [runs]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureCircuits, type CircuitFiles } from '../src/circuits/build.js';
import { releaseBn128 } from '../src/circuits/curve.js';
import { chooseProver } from '../src/circuits/nativeProver.js';
import { snarkjsPackageDir } from '../src/circuits/solidity.js';
import { V3_ON_CHAIN_SMALL_CIRCUIT, projectRoot } from '../src/circuits/sources.js';
import { parseConfig } from '../src/config/parse.js';
import { Context } from '../src/context.js';
import { median, round, runIfMain } from './stats.js';

/** The target of issue 27: the native proof at most this fraction of the snarkjs CLI's time. */
export const TARGET_RATIO_TO_CLI = 0.8;

export interface ProverBenchCircuit {
  circuitId: string;
  constraints: number | undefined;
  runs: number;
  /** Median wall milliseconds of one proof from the witness file. */
  native: number;
  snarkjsInProcess: number;
  snarkjsCli: number;
  ratios: { nativeToSnarkjsInProcess: number; nativeToSnarkjsCli: number };
  /** Median CPU milliseconds (user + system, every thread) of one proof. */
  cpu: { native: number; snarkjsInProcess: number; snarkjsCli: number; ratios: { nativeToSnarkjsInProcess: number; nativeToSnarkjsCli: number } };
  /** The native prover's phases in its last run (ms). */
  nativePhases: Record<string, number>;
  meetsTarget: boolean;
}

export interface ProverBenchReport {
  benchmark: 'prover';
  machine: { cpus: number; node: string; loadAverage: number[]; proverThreads: string };
  binary: string;
  circuits: ProverBenchCircuit[];
  acceptance: { targetRatioToCli: number; met: boolean };
}

type Snarkjs = {
  wtns: { calculate(input: unknown, wasm: string, wtns: string): Promise<void> };
  groth16: {
    prove(zkey: string, wtns: string): Promise<{ proof: unknown; publicSignals: string[] }>;
    verify(vk: unknown, signals: string[], proof: unknown): Promise<boolean>;
  };
};

/** Clock ticks a second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU milliseconds of this process's reaped children (cutime + cstime of /proc/self/stat). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
}

/** Wall and CPU milliseconds of a child process run to its end. */
function timedChild<T>(fn: () => T): [T, number, number] {
  const cpu = childrenCpuMs();
  const start = process.hrtime.bigint();
  const value = fn();
  return [value, Number(process.hrtime.bigint() - start) / 1e6, childrenCpuMs() - cpu];
}

/** Wall and CPU milliseconds of work in this process (all its threads). */
async function timedHere<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return [value, Number(process.hrtime.bigint() - start) / 1e6, (used.user + used.system) / 1000];
}

async function benchCircuit(snarkjs: Snarkjs, binary: string, circuit: CircuitFiles, runs: number, work: string): Promise<ProverBenchCircuit> {
  const input = JSON.parse(readFileSync(path.join(projectRoot(), 'bench', 'inputs', `${circuit.id}.json`), 'utf8')) as unknown;
  const wtns = path.join(work, `${circuit.id}.wtns`);
  await snarkjs.wtns.calculate(input, circuit.wasm!, wtns);
  const vk = JSON.parse(readFileSync(circuit.verificationKey!, 'utf8')) as unknown;
  const cli = path.join(snarkjsPackageDir(), 'cli.js');
  const env = { ...(process.env.VC_PROVER_THREADS === undefined ? {} : { VC_PROVER_THREADS: process.env.VC_PROVER_THREADS }), VC_PROVER_TIMINGS: '1' };

  const native: number[] = [];
  const inProcess: number[] = [];
  const stock: number[] = [];
  const nativeCpu: number[] = [];
  const inProcessCpu: number[] = [];
  const stockCpu: number[] = [];
  let phases: Record<string, number> = {};
  // One untimed proof of each (page cache, snarkjs's curve), then the runs interleaved.
  for (let i = -1; i < runs; i++) {
    const [result, nativeMs, nativeCpuMs] = timedChild(() => spawnSync(binary, [circuit.zkey!, wtns], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
    if (result.status !== 0) throw new Error(`${circuit.id}: the native prover failed: ${result.stderr}`);
    const proved = JSON.parse(result.stdout) as { proof: unknown; publicSignals: string[] };
    if (!(await snarkjs.groth16.verify(vk, proved.publicSignals, proved.proof))) throw new Error(`${circuit.id}: the native proof does not verify`);
    phases = Object.fromEntries([...result.stderr.matchAll(/^vc-groth16: (.+) ([\d.]+) ms$/gm)].map((m) => [m[1]!, Number(m[2])]));
    const [, inProcessMs, inProcessCpuMs] = await timedHere(() => snarkjs.groth16.prove(circuit.zkey!, wtns));
    const [cliResult, cliMs, cliCpuMs] = timedChild(() => spawnSync(process.execPath, [cli, 'groth16', 'prove', circuit.zkey!, wtns, path.join(work, 'proof.json'), path.join(work, 'public.json')], { encoding: 'utf8' }));
    if (cliResult.status !== 0) throw new Error(`${circuit.id}: snarkjs groth16 prove failed: ${cliResult.stderr}`);
    if (i < 0) continue;
    native.push(nativeMs);
    inProcess.push(inProcessMs);
    stock.push(cliMs);
    nativeCpu.push(nativeCpuMs);
    inProcessCpu.push(inProcessCpuMs);
    stockCpu.push(cliCpuMs);
    process.stderr.write(
      `[prover] ${circuit.id} run ${i + 1}/${runs}: native ${Math.round(nativeMs)} ms (CPU ${Math.round(nativeCpuMs)}), snarkjs ${Math.round(inProcessMs)} ms (CPU ${Math.round(inProcessCpuMs)}), snarkjs CLI ${Math.round(cliMs)} ms (CPU ${Math.round(cliCpuMs)})\n`,
    );
  }
  const nativeMedian = median(native);
  const toCli = nativeMedian / median(stock);
  return {
    circuitId: circuit.id,
    constraints: circuit.statistics?.constraints,
    runs,
    native: round(nativeMedian, 1),
    snarkjsInProcess: round(median(inProcess), 1),
    snarkjsCli: round(median(stock), 1),
    ratios: { nativeToSnarkjsInProcess: round(nativeMedian / median(inProcess), 3), nativeToSnarkjsCli: round(toCli, 3) },
    cpu: {
      native: round(median(nativeCpu), 1),
      snarkjsInProcess: round(median(inProcessCpu), 1),
      snarkjsCli: round(median(stockCpu), 1),
      ratios: { nativeToSnarkjsInProcess: round(median(nativeCpu) / median(inProcessCpu), 3), nativeToSnarkjsCli: round(median(nativeCpu) / median(stockCpu), 3) },
    },
    nativePhases: phases,
    meetsTarget: toCli <= TARGET_RATIO_TO_CLI,
  };
}

/** Native prover vs snarkjs (in process and CLI) on the project circuits. */
export async function runProverBench(options: { runs?: number } = {}): Promise<ProverBenchReport> {
  const runs = options.runs ?? 3;
  const work = await mkdtemp(path.join(os.tmpdir(), 'vc-bench-prover-'));
  const ctx = new Context({ config: parseConfig({}, path.join(work, 'home')) });
  const moduleName: string = 'snarkjs';
  const snarkjs = (await import(moduleName)) as Snarkjs;
  try {
    const choice = await chooseProver({ ...process.env, VC_PROVER: 'native' });
    const info = await ensureCircuits(ctx, { extra: [V3_ON_CHAIN_SMALL_CIRCUIT] });
    const circuits: ProverBenchCircuit[] = [];
    for (const id of ['stateTransition', 'credentialAtomicQueryMTPV2OnChain', V3_ON_CHAIN_SMALL_CIRCUIT]) {
      circuits.push(await benchCircuit(snarkjs, choice.binary!, info.circuits.find((c) => c.id === id)!, runs, work));
    }
    return {
      benchmark: 'prover',
      machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((l) => round(l, 2)), proverThreads: process.env.VC_PROVER_THREADS ?? 'one per hardware thread' },
      binary: choice.binary!,
      circuits,
      acceptance: { targetRatioToCli: TARGET_RATIO_TO_CLI, met: circuits.every((c) => c.meetsTarget) },
    };
  } finally {
    await ctx.close();
    await releaseBn128();
    await rm(work, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, (runs) => runProverBench(runs === undefined ? {} : { runs }), (report) => !report.acceptance.met);
