/**
 * vc's native Groth16 prover (native/groth16, C++): compiled with g++ on first need into the
 * per-user cache, next to the circuits (`<cache>/vc/prover/<key>/vc-groth16`, the key a hash of
 * the sources, the flags and the compiler's version), and run as a child process that reads the
 * witness on its standard input and the proving key by path. Its proofs are snarkjs's (same
 * computation, same verification key), at a fraction of snarkjs's time.
 *
 * VC_PROVER chooses: `auto` (the default) uses the native prover when it is built or can be built
 * and falls back to snarkjs otherwise, saying so once; `snarkjs` always uses snarkjs; `native`
 * makes a native prover that cannot be built an error. Nothing is downloaded.
 *
 * Concurrent builds are safe: each compiles to a temporary name in the key's directory and renames
 * the checked result into place (rename is atomic; the last one wins, all are the same program).
 * A failed compilation leaves `build-failed.txt` there, so later commands fall back at once instead
 * of compiling again; `vc circuits build` tries again.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ServiceKey, type Context, type ProgressReporter } from '../context.js';
import { ConfigError, InternalError, describeError } from '../errors.js';
import { packageRoot } from '../paths.js';
import { defaultCacheRoot } from './sources.js';

/** The values of VC_PROVER. */
export const PROVER_SETTINGS = ['auto', 'native', 'snarkjs'] as const;
export type ProverSetting = (typeof PROVER_SETTINGS)[number];

/** The compiler and its flags (part of the cache key). */
const COMPILER = 'g++';
const FLAGS = ['-std=c++17', '-O3', '-pthread'];
const BINARY_NAME = 'vc-groth16';
const FAILURE_NAME = 'build-failed.txt';
/** A compilation on a busy 2-core machine takes ~30 s; past this it is given up. */
const COMPILE_TIMEOUT_MS = 10 * 60_000;

/** Which prover proves, and why. */
export interface ProverChoice {
  prover: 'native' | 'snarkjs';
  /** One sentence for `vc circuits status` and the fallback warning. */
  reason: string;
  /** The native prover's executable (prover = native). */
  binary?: string;
  /** Threads the native prover uses (VC_PROVER_THREADS; undefined = one per hardware thread). */
  threads?: number;
}

/** VC_PROVER, checked. */
export function proverSetting(env: NodeJS.ProcessEnv): ProverSetting {
  const value = env.VC_PROVER?.trim() ?? '';
  if (value === '') return 'auto';
  if ((PROVER_SETTINGS as readonly string[]).includes(value)) return value as ProverSetting;
  throw new ConfigError(`VC_PROVER: expected ${PROVER_SETTINGS.join(', ')}, got ${JSON.stringify(value.slice(0, 40))}`, { field: 'VC_PROVER' });
}

/** VC_PROVER_THREADS, checked (undefined: the prover uses every hardware thread). */
export function proverThreads(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.VC_PROVER_THREADS?.trim() ?? '';
  if (value === '') return undefined;
  const threads = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(threads >= 1 && threads <= 1024)) {
    throw new ConfigError(`VC_PROVER_THREADS: expected a whole number from 1 to 1024, got ${JSON.stringify(value.slice(0, 40))}`, { field: 'VC_PROVER_THREADS' });
  }
  return threads;
}

/** Where the native prover of these sources and this compiler lives. */
export interface NativeProverPlan {
  sourcesDir: string;
  /** The compiler's `--version` first line, or undefined when there is no compiler on PATH. */
  compiler: string | undefined;
  /** Why the native prover cannot be built here: no compiler, or its sources are missing. */
  compilerProblem?: string;
  key: string | undefined;
  dir: string | undefined;
  binary: string | undefined;
}

/** The prover cache: `prover/` beside the circuits cache (`<cache>/vc/prover` by default). */
export function proverCacheRoot(env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(defaultCacheRoot(env)), 'prover');
}

function execOutput(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stdout, stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

/** The environment the compiler runs in: the caller's PATH (where g++ is looked up), nothing else of it. */
function compilerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: env.PATH ?? '', LANG: 'C', LC_ALL: 'C', ...(env.TMPDIR === undefined ? {} : { TMPDIR: env.TMPDIR }) };
}

async function sourceFiles(sourcesDir: string): Promise<string[]> {
  return (await readdir(sourcesDir)).filter((name) => /\.(cpp|hpp)$/.test(name)).sort();
}

/** Plans the native prover: the compiler's version, the cache key and the executable's path. */
export async function planNativeProver(env: NodeJS.ProcessEnv): Promise<NativeProverPlan> {
  const sourcesDir = path.join(packageRoot(), 'native', 'groth16');
  let version: string;
  try {
    version = (await execOutput(COMPILER, ['--version'], compilerEnv(env), 30_000)).stdout;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === 'ENOENT' ? `no C++ compiler (${COMPILER} is not on PATH)` : `${COMPILER} --version failed: ${describeError(error)}`;
    return { sourcesDir, compiler: undefined, compilerProblem: problem, key: undefined, dir: undefined, binary: undefined };
  }
  const hash = createHash('sha256');
  hash.update(`vc-groth16\0${COMPILER}\0${FLAGS.join(' ')}\0${version}\0`);
  try {
    const names = await sourceFiles(sourcesDir);
    if (!names.includes('main.cpp')) throw new Error('main.cpp is missing');
    for (const name of names) {
      hash.update(`${name}\0`);
      hash.update(await readFile(path.join(sourcesDir, name)));
      hash.update('\0');
    }
  } catch (error) {
    const problem = `the native prover's sources cannot be read (${sourcesDir}: ${describeError(error)})`;
    return { sourcesDir, compiler: version.split('\n')[0]?.trim(), compilerProblem: problem, key: undefined, dir: undefined, binary: undefined };
  }
  const key = hash.digest('hex').slice(0, 24);
  const dir = path.join(proverCacheRoot(env), key);
  return { sourcesDir, compiler: version.split('\n')[0]?.trim(), key, dir, binary: path.join(dir, BINARY_NAME) };
}

/** Why the last build of this plan failed, if it did (and was not tried again since). */
async function recordedFailure(plan: NativeProverPlan): Promise<string | undefined> {
  if (plan.dir === undefined) return undefined;
  try {
    return (await readFile(path.join(plan.dir, FAILURE_NAME), 'utf8')).trim() || 'the last build failed';
  } catch {
    return undefined;
  }
}

/** The first lines of a compiler's complaint, on one line. */
function firstLines(text: string): string {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '').slice(0, 3).join(' | ').slice(0, 400);
}

/**
 * Compiles the native prover of `plan` unless it is there: to a temporary name, checked by running
 * it with --version, then renamed into place. Returns undefined when built, or why it could not be.
 */
export async function buildNativeProver(plan: NativeProverPlan, env: NodeJS.ProcessEnv, options: { retryFailed: boolean }): Promise<string | undefined> {
  if (plan.binary === undefined || plan.dir === undefined) return plan.compilerProblem ?? 'no C++ compiler';
  if (existsSync(plan.binary)) return undefined;
  if (!options.retryFailed) {
    const failure = await recordedFailure(plan);
    if (failure !== undefined) return failure;
  }
  const tmp = path.join(plan.dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(plan.dir, { recursive: true });
    const sources = (await sourceFiles(plan.sourcesDir)).filter((name) => name.endsWith('.cpp')).map((name) => path.join(plan.sourcesDir, name));
    await execOutput(COMPILER, [...FLAGS, '-o', tmp, ...sources], compilerEnv(env), COMPILE_TIMEOUT_MS);
    const { stdout } = await execOutput(tmp, ['--version'], {}, 30_000);
    if (!stdout.startsWith(BINARY_NAME)) throw new Error(`the compiled prover answered --version with ${JSON.stringify(stdout.slice(0, 80))}`);
    await rename(tmp, plan.binary);
    await rm(path.join(plan.dir, FAILURE_NAME), { force: true });
    return undefined;
  } catch (error) {
    await rm(tmp, { force: true });
    const detail = (error as { stderr?: string }).stderr;
    const reason = `compiling the native prover with ${COMPILER} failed: ${detail !== undefined && detail.trim() !== '' ? firstLines(detail) : describeError(error)}`;
    const marker = path.join(plan.dir, `${FAILURE_NAME}.${randomBytes(6).toString('hex')}`);
    await writeFile(marker, `${reason}\n`).then(() => rename(marker, path.join(plan.dir!, FAILURE_NAME))).catch(() => rm(marker, { force: true }));
    return reason;
  }
}

/** Which prover VC_PROVER and this machine give, building the native one if needed and allowed. */
export async function chooseProver(
  env: NodeJS.ProcessEnv,
  options: { build: boolean; retryFailed?: boolean; progress?: ProgressReporter } = { build: true },
): Promise<ProverChoice> {
  const setting = proverSetting(env);
  const threads = proverThreads(env);
  if (setting === 'snarkjs') return { prover: 'snarkjs', reason: 'VC_PROVER=snarkjs' };
  const plan = await planNativeProver(env);
  let problem: string | undefined;
  if (plan.binary !== undefined && existsSync(plan.binary)) problem = undefined;
  else if (options.build) {
    const failed = options.retryFailed === true ? undefined : await recordedFailure(plan);
    const step = failed === undefined && plan.binary !== undefined ? options.progress?.start(`compiling vc's native Groth16 prover with ${COMPILER} (once; cached in ${plan.dir})`) : undefined;
    problem = await buildNativeProver(plan, env, { retryFailed: options.retryFailed === true });
    if (problem === undefined) step?.succeed(`compiled vc's native Groth16 prover (${plan.binary})`);
    else step?.fail(problem);
  }
  else problem = plan.compilerProblem ?? (await recordedFailure(plan)) ?? 'not built yet (built on the first proof or by vc circuits build)';
  if (problem === undefined) {
    return { prover: 'native', reason: setting === 'native' ? 'VC_PROVER=native' : `native prover built with ${plan.compiler ?? COMPILER}`, binary: plan.binary!, ...(threads === undefined ? {} : { threads }) };
  }
  if (setting === 'native') throw new ConfigError(`VC_PROVER=native but the native prover is not available: ${problem}`, { field: 'VC_PROVER' });
  return { prover: 'snarkjs', reason: `native prover unavailable: ${problem}` };
}

/** What `vc circuits status` says of the prover. */
export interface ProverStatus {
  /** VC_PROVER. */
  setting: ProverSetting;
  /** The prover the next proof uses (the native one is compiled first when it is not built yet). */
  inUse: 'native' | 'snarkjs';
  /** Why. */
  reason: string;
  /** Whether the native prover's executable is in the cache. */
  built: boolean;
  /** The native prover's executable (built or to be built). */
  binary: string | undefined;
  /** The C++ compiler's version line, when there is one. */
  compiler: string | undefined;
}

const PLAN_KEY = new ServiceKey<NativeProverPlan>('circuits.nativeProverPlan');

/** The native prover's plan, found once per Context (a server answering GET /circuits runs g++ --version once). */
export function nativeProverPlan(ctx: Context): Promise<NativeProverPlan> {
  return ctx.lazy(PLAN_KEY, () => planNativeProver(ctx.env));
}

/** The prover in use and why, without building anything. */
export async function proverStatus(env: NodeJS.ProcessEnv, knownPlan?: NativeProverPlan): Promise<ProverStatus> {
  const setting = proverSetting(env);
  proverThreads(env);
  const plan = knownPlan ?? (await planNativeProver(env));
  const built = plan.binary !== undefined && existsSync(plan.binary);
  const base = { setting, built, binary: plan.binary, compiler: plan.compiler };
  if (setting === 'snarkjs') return { ...base, inUse: 'snarkjs', reason: 'VC_PROVER=snarkjs' };
  if (built) return { ...base, inUse: 'native', reason: setting === 'native' ? 'VC_PROVER=native' : `native prover built with ${plan.compiler ?? COMPILER}` };
  const problem = plan.compilerProblem ?? (await recordedFailure(plan));
  if (problem === undefined) return { ...base, inUse: 'native', reason: `not built yet: compiled with ${plan.compiler ?? COMPILER} on the first proof or by vc circuits build` };
  return { ...base, inUse: 'snarkjs', reason: setting === 'native' ? `VC_PROVER=native but the native prover is not available (proofs fail): ${problem}` : `native prover unavailable: ${problem}` };
}

const CHOICE_KEY = new ServiceKey<ProverChoice>('circuits.prover');

/**
 * The prover of this Context, chosen (and the native one built) once; falling back to snarkjs
 * under VC_PROVER=auto is said once, as a warning.
 */
export function selectProver(ctx: Context): Promise<ProverChoice> {
  return ctx.lazy(CHOICE_KEY, async () => {
    const choice = await chooseProver(ctx.env, { build: true, progress: ctx.progress });
    if (choice.prover === 'snarkjs' && proverSetting(ctx.env) === 'auto') ctx.progress.warn?.(`${choice.reason}; proving with snarkjs (slower)`);
    return choice;
  });
}

/** What the native prover prints. */
export interface NativeProof {
  proof: unknown;
  publicSignals: string[];
}

/** The native prover's exit codes (native/groth16/formats.hpp), for the messages. */
const EXIT_MEANINGS: Record<number, string> = {
  2: 'bad usage',
  3: 'a file could not be read',
  4: 'invalid proving key',
  5: 'invalid witness',
  6: 'the witness does not fit the proving key',
  7: 'out of memory',
  8: 'internal error',
};

/** Largest answer accepted from the prover (a proof is ~1 KB plus the public signals). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * Proves a witness (.wtns bytes, given on the prover's standard input, never written to disk)
 * with the proving key at `zkeyPath`. A failure is an error naming the prover's own message.
 */
export function runNativeProver(binary: string, zkeyPath: string, witness: Uint8Array, threads?: number): Promise<NativeProof> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [zkeyPath, '-'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: threads === undefined ? {} : { VC_PROVER_THREADS: String(threads) },
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes <= MAX_OUTPUT_BYTES) out.push(chunk);
      else child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (err.length < 4096) err += chunk;
    });
    // The prover may exit (a bad key) before it has read the witness: that EPIPE is not the error.
    child.stdin.on('error', () => undefined);
    child.once('error', (error) => reject(new InternalError(`cannot run the native prover ${binary}: ${describeError(error)}`, { cause: error })));
    child.once('close', (code, signal) => {
      if (code === 0) {
        try {
          const parsed = JSON.parse(Buffer.concat(out).toString('utf8')) as NativeProof;
          if (!Array.isArray(parsed.publicSignals) || typeof parsed.proof !== 'object' || parsed.proof === null) throw new Error('not a proof');
          resolve(parsed);
        } catch (error) {
          reject(new InternalError(`the native prover's answer is not a proof: ${describeError(error)}`));
        }
        return;
      }
      const line = err.split('\n').find((l) => l.trim() !== '')?.trim().replace(/^vc-groth16: /, '') ?? '';
      const what = code === null ? `was killed (${signal ?? 'signal'})` : `failed (${EXIT_MEANINGS[code] ?? `exit code ${code}`})`;
      const message = `the native prover ${what}${line === '' ? '' : `: ${line}`}`;
      reject(code === 4 ? new ConfigError(message, { field: 'circuit_final.zkey' }) : new InternalError(message));
    });
    child.stdin.end(witness);
  });
}
