/**
 * Compiles the project's circuits that vc does not build yet (authV2, authV3, the V3 atomic query
 * circuits and their smaller variants) for the witness tests: circom2 from node_modules,
 * `--r1cs --wasm --sym --O2 -l node_modules`, cached under the OS temp directory by a hash of the
 * circom files the main file includes (followed recursively) and the compiler versions, so a
 * circuit is compiled once per version of its own sources.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../helpers.js';

const execFileAsync = promisify(execFile);
const require = createRequire(import.meta.url);

interface SnarkjsWitnessApi {
  wtns: {
    calculate(input: unknown, wasmPath: string, output: { type: 'mem'; data?: Uint8Array }): Promise<void>;
    check(r1csPath: string, wtns: { type: 'mem'; data?: Uint8Array }, logger: unknown): Promise<boolean>;
  };
}

interface WitnessCalculator {
  calculateWitness(input: unknown, sanityCheck: boolean): Promise<bigint[]>;
}

/** A compiled circuit with what the vector tests compare. */
export interface BuiltCircuit {
  name: string;
  dir: string;
  r1csPath: string;
  wasmPath: string;
  /** Non-linear + linear constraints after --O2 (from the R1CS header). */
  constraints: number;
  /** Names of the public signals, in snarkjs order (outputs, then public inputs). */
  publicSignalNames: string[];
  /** Seconds the compilation took (when this process compiled it), else undefined. */
  compileSeconds: number | undefined;
  /** Full witness; throws when a constraint fails (fresh WebAssembly instance per call). */
  calculateWitness(input: unknown): Promise<bigint[]>;
  /** Computes the witness with snarkjs and checks every R1CS constraint against it. */
  checkConstraints(input: unknown): Promise<boolean>;
}

const INCLUDE_RE = /\binclude\s+"([^"]+)"\s*;/g;

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

/** The main file and every file it includes, resolved as circom resolves them (own dir, then -l node_modules). */
function includedFiles(main: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of stripComments(readFileSync(file, 'utf8')).matchAll(INCLUDE_RE)) {
      const name = match[1] as string;
      const candidates = [path.resolve(path.dirname(file), name), path.resolve(ROOT, 'node_modules', name)];
      const found = candidates.find((candidate) => existsSync(candidate));
      if (!found) throw new Error(`${file}: cannot resolve include "${name}"`);
      visit(found);
    }
  };
  visit(main);
  return [...seen].sort();
}

function packageVersion(name: string): string {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

function sourcesHash(main: string): string {
  const hash = createHash('sha256');
  for (const file of includedFiles(main)) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  hash.update(`circom2@${packageVersion('circom2')} --O2 --sym`);
  return hash.digest('hex').slice(0, 16);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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

/** Header counts of an .r1cs file. */
export function r1csCounts(file: string): { nOutputs: number; nPubInputs: number; constraints: number } {
  const r1cs = readFileSync(file);
  const sections = r1cs.readUInt32LE(8);
  let offset = 12;
  for (let s = 0; s < sections; s++) {
    const type = r1cs.readUInt32LE(offset);
    const size = Number(r1cs.readBigUInt64LE(offset + 4));
    if (type === 1) {
      const header = offset + 12;
      const base = header + 4 + r1cs.readUInt32LE(header);
      return { nOutputs: r1cs.readUInt32LE(base + 4), nPubInputs: r1cs.readUInt32LE(base + 8), constraints: r1cs.readUInt32LE(base + 24) };
    }
    offset += 12 + size;
  }
  throw new Error(`${file}: no header section`);
}

/** Names of wires 1..count from a .sym file (main.<name>). */
function publicNames(symPath: string, count: number): string[] {
  const byWire = new Map<number, string>();
  for (const line of readFileSync(symPath, 'utf8').split('\n')) {
    const [, wire, , signal] = line.split(',');
    const index = Number(wire);
    if (signal && index >= 1 && index <= count && !byWire.has(index)) byWire.set(index, signal.replace(/^main\./, ''));
  }
  return Array.from({ length: count }, (_, i) => byWire.get(i + 1) ?? `?${i + 1}`);
}

function commonAncestor(a: string, b: string): string {
  let dir = a;
  while (path.relative(dir, b).startsWith('..')) dir = path.dirname(dir);
  return dir;
}

const silentLogger = { info() {}, warn() {}, debug() {}, error() {} };

/** Compiles `circuits/<name>.circom` (or reuses the cached build). */
export async function buildCircuit(name: string): Promise<BuiltCircuit> {
  const main = path.join(ROOT, 'circuits', `${name}.circom`);
  const dir = path.join(tmpdir(), 'vc-circuit-witness-tests', `${name}-${sourcesHash(main)}`);
  const doneMarker = path.join(dir, 'complete');
  let compileSeconds: number | undefined;
  if (!existsSync(doneMarker)) {
    removeAbandonedBuilds(dir);
    const work = `${dir}.${process.pid}.partial`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const started = Date.now();
    // circom2 is a WASI build that resolves includes only below its working directory and follows
    // no symbolic link: it runs from the common ancestor of the project and node_modules' real
    // path (a worktree may link another checkout's node_modules), with absolute paths (the CLI
    // makes them relative to it).
    const libraries = realpathSync(path.join(ROOT, 'node_modules'));
    const cwd = commonAncestor(realpathSync(ROOT), libraries);
    await execFileAsync(
      'nice',
      ['-n', '15', process.execPath, require.resolve('circom2/cli.js'), main, '--r1cs', '--wasm', '--sym', '--O2', '-l', libraries, '-o', work],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
    );
    compileSeconds = Math.round((Date.now() - started) / 1000);
    writeFileSync(path.join(work, 'compile-seconds'), `${compileSeconds}\n`);
    writeFileSync(path.join(work, 'complete'), '');
    try {
      renameSync(work, dir);
    } catch (error) {
      if (!existsSync(doneMarker)) throw error;
      rmSync(work, { recursive: true, force: true });
    }
  }

  const r1csPath = path.join(dir, `${name}.r1cs`);
  const wasmPath = path.join(dir, `${name}_js`, `${name}.wasm`);
  const counts = r1csCounts(r1csPath);
  const builder = require(path.join(dir, `${name}_js`, 'witness_calculator.js')) as (code: Buffer, options?: unknown) => Promise<WitnessCalculator>;
  const wasm = readFileSync(wasmPath);
  if (compileSeconds === undefined && existsSync(path.join(dir, 'compile-seconds'))) {
    compileSeconds = Number(readFileSync(path.join(dir, 'compile-seconds'), 'utf8'));
  }

  return {
    name,
    dir,
    r1csPath,
    wasmPath,
    constraints: counts.constraints,
    publicSignalNames: publicNames(path.join(dir, `${name}.sym`), counts.nOutputs + counts.nPubInputs),
    compileSeconds,
    async calculateWitness(input) {
      const calculator = await builder(wasm);
      return calculator.calculateWitness(input, true);
    },
    async checkConstraints(input) {
      const moduleName: string = 'snarkjs';
      const snarkjs = (await import(moduleName)) as SnarkjsWitnessApi;
      const wtns: { type: 'mem'; data?: Uint8Array } = { type: 'mem' };
      await snarkjs.wtns.calculate(input, wasmPath, wtns);
      return snarkjs.wtns.check(r1csPath, wtns, silentLogger);
    },
  };
}
