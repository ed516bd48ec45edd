/**
 * Compiles the project's circom circuits for the witness tests, once per source version: the
 * output is cached under the OS temp directory by a hash of the circuit sources and compiler
 * versions, so reruns skip the (minutes long) compilation.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../helpers.js';

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);

/** A compiled circuit: witness computation and a constraint check against its R1CS. */
export interface CompiledCircuit {
  name: string;
  dir: string;
  r1csPath: string;
  wasmPath: string;
  /** Full witness (wire 0 is the constant 1, then outputs and public inputs); throws when a constraint fails. */
  calculateWitness(input: unknown): Promise<bigint[]>;
  /** Computes the witness with snarkjs and checks every R1CS constraint against it. */
  checkConstraints(input: unknown): Promise<boolean>;
}

/** The slice of snarkjs (untyped package) the constraint check uses. */
interface SnarkjsWitnessApi {
  wtns: {
    calculate(input: unknown, wasmPath: string, output: { type: 'mem'; data?: Uint8Array }): Promise<void>;
    check(r1csPath: string, wtns: { type: 'mem'; data?: Uint8Array }, logger: unknown): Promise<boolean>;
  };
}

async function loadSnarkjs(): Promise<SnarkjsWitnessApi> {
  const moduleName: string = 'snarkjs';
  return (await import(moduleName)) as SnarkjsWitnessApi;
}

interface WitnessCalculator {
  calculateWitness(input: unknown, sanityCheck: boolean): Promise<bigint[]>;
}

function circuitSources(): string[] {
  const files: string[] = [];
  for (const dir of [path.join(ROOT, 'circuits'), path.join(ROOT, 'circuits', 'lib')]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith('.circom')) files.push(path.join(dir, name));
    }
  }
  return files;
}

function packageVersion(name: string): string {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of circuitSources()) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  hash.update(`circom2@${packageVersion('circom2')} circomlib@${packageVersion('circomlib')}`);
  return hash.digest('hex').slice(0, 16);
}

// snarkjs reports a failed check through its logger, so it needs one even when we only want the result.
const silentLogger = { info() {}, warn() {}, debug() {}, error() {} };

/** Removes partial builds left by test processes that died mid-compilation. */
function removeAbandonedBuilds(dir: string): void {
  const parent = path.dirname(dir);
  if (!existsSync(parent)) return;
  const prefix = `${path.basename(dir)}.`;
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.partial')) continue;
    const pid = Number(entry.slice(prefix.length, -'.partial'.length));
    if (Number.isInteger(pid) && !isAlive(pid)) rmSync(path.join(parent, entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Compiles `circuits/<name>.circom` (or reuses the cached build) and loads its witness calculator. */
export async function compileCircuit(name: string): Promise<CompiledCircuit> {
  const dir = path.join(tmpdir(), 'vc-circuit-witness-tests', `${name}-${sourcesHash()}`);
  const doneMarker = path.join(dir, 'complete');
  if (!existsSync(doneMarker)) {
    removeAbandonedBuilds(dir);
    const work = `${dir}.${process.pid}.partial`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const cli = require.resolve('circom2/cli.js');
    // circom2 is a WASI build that only sees the working directory and its parents: run it from the
    // project root so `-l node_modules` resolves the circomlib includes.
    await execFileAsync(
      process.execPath,
      [cli, `circuits/${name}.circom`, '--r1cs', '--wasm', '--O2', '-l', 'node_modules', '-o', work],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    writeFileSync(path.join(work, 'complete'), '');
    try {
      renameSync(work, dir);
    } catch (error) {
      // Another test process finished the same build first.
      if (!existsSync(doneMarker)) throw error;
      rmSync(work, { recursive: true, force: true });
    }
  }

  const r1csPath = path.join(dir, `${name}.r1cs`);
  const wasmPath = path.join(dir, `${name}_js`, `${name}.wasm`);
  const builder = require(path.join(dir, `${name}_js`, 'witness_calculator.js')) as (
    code: Buffer,
    options?: unknown,
  ) => Promise<WitnessCalculator>;
  const calculator = await builder(readFileSync(wasmPath));

  return {
    name,
    dir,
    r1csPath,
    wasmPath,
    calculateWitness: (input) => calculator.calculateWitness(input, true),
    async checkConstraints(input) {
      const snarkjs = await loadSnarkjs();
      const wtns: { type: 'mem'; data?: Uint8Array } = { type: 'mem' };
      await snarkjs.wtns.calculate(input, wasmPath, wtns);
      return snarkjs.wtns.check(r1csPath, wtns, silentLogger);
    },
  };
}

/** Public signals of a witness: wires 1..count (outputs, then public inputs, as snarkjs orders them). */
export function publicSignals(witness: bigint[], count: number): string[] {
  return witness.slice(1, 1 + count).map((value) => value.toString());
}
