/**
 * Compiling circom sources with the npm `circom2` package (circom built for WASI). It runs in a
 * child process: the WASI runtime calls process.exit, holds gigabytes for big circuits, and a
 * child can be killed cleanly.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { InputError } from '../errors.js';

const require = createRequire(import.meta.url);

export type CircomOptimisation = 'O0' | 'O1' | 'O2';

export interface CompileOptions {
  /** Main .circom file (the one with `component main`). */
  source: string;
  /** Directory receiving <name>.r1cs and <name>_js/<name>.wasm. */
  outDir: string;
  /** Library directories for `include` resolution (circomlib lives in node_modules). */
  includePaths: string[];
  optimisation: CircomOptimisation;
  /** Name used in error messages. */
  circuitId: string;
}

/** What circom reports about the compiled circuit. */
export interface CircuitStatistics {
  nonLinearConstraints: number;
  linearConstraints: number;
  /** non-linear + linear: the R1CS rows the setup and prover work on. */
  constraints: number;
  publicInputs: number;
  privateInputs: number;
  publicOutputs: number;
  wires: number;
  labels: number;
}

export interface CompileResult {
  r1csPath: string;
  wasmPath: string;
  statistics: CircuitStatistics;
  milliseconds: number;
}

/** Path of the circom2 command-line script. */
export function circomCliPath(): string {
  return require.resolve('circom2/cli.js');
}

function statistic(output: string, label: string): number {
  const match = new RegExp(`${label}:\\s*(\\d+)`).exec(output);
  return match ? Number(match[1]) : 0;
}

/** Compiles one circuit to R1CS and witness-generator WebAssembly. */
export async function compileCircuit(options: CompileOptions): Promise<CompileResult> {
  const started = Date.now();
  const args = [
    circomCliPath(),
    path.resolve(options.source),
    '--r1cs',
    '--wasm',
    `--${options.optimisation}`,
    ...options.includePaths.flatMap((dir) => ['-l', path.resolve(dir)]),
    '-o',
    path.resolve(options.outDir),
  ];
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    // cwd = the filesystem root: circom2 rewrites every path relative to its cwd, and its WASI
    // layer fails to resolve includes through '..', so no path may need to climb.
    const child = spawn(process.execPath, args, { cwd: path.parse(path.resolve(options.outDir)).root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ code: exitCode, output: Buffer.concat(chunks).toString('utf8') }));
  });
  const text = output.replace(/\u001b\[[0-9;]*m/g, '');
  if (code !== 0 || !text.includes('Everything went okay')) {
    const errorLines = text.split('\n').filter((line) => /error|Error/.test(line));
    throw new InputError(`circuit ${options.circuitId} failed to compile with circom: ${errorLines[0]?.trim() ?? `exit code ${code}`}`, {
      field: options.source,
      details: text.trim().split('\n').slice(-20).join('\n'),
    });
  }
  const name = path.basename(options.source, '.circom');
  const nonLinear = statistic(text, 'non-linear constraints');
  const linear = statistic(text, '(?<!non-)linear constraints');
  return {
    r1csPath: path.join(options.outDir, `${name}.r1cs`),
    wasmPath: path.join(options.outDir, `${name}_js`, `${name}.wasm`),
    statistics: {
      nonLinearConstraints: nonLinear,
      linearConstraints: linear,
      constraints: nonLinear + linear,
      publicInputs: statistic(text, 'public inputs'),
      privateInputs: statistic(text, 'private inputs'),
      publicOutputs: statistic(text, 'public outputs'),
      wires: statistic(text, 'wires'),
      labels: statistic(text, 'labels'),
    },
    milliseconds: Date.now() - started,
  };
}
