/**
 * Helpers shared by the tests: run the built `vc` binary as a user would, in a throwaway home, or
 * run the same command line in the test's own process (runVcInProcess), which starts no node.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const VC_BIN = path.join(ROOT, 'dist', 'bin', 'vc.js');

export interface VcRun {
  status: number;
  /** The signal that ended the process (SIGKILL for a crash point), if any. */
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws when it is not JSON). */
  json<T = unknown>(): T;
}

export interface RunOptions {
  home?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

/**
 * Environment for a child vc: the test's variables only, no inherited vc configuration but the
 * prover of the run (VC_PROVER, VC_PROVER_THREADS: `VC_PROVER=snarkjs npx vitest run ...` runs
 * the flows with snarkjs).
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
  for (const name of ['VC_PROVER', 'VC_PROVER_THREADS']) if (process.env[name] !== undefined) env[name] = process.env[name];
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

function wrap(result: SpawnSyncReturns<string>): VcRun {
  const stdout = result.stdout ?? '';
  return {
    status: result.status ?? -1,
    signal: result.signal,
    stdout,
    stderr: result.stderr ?? '',
    json<T>() {
      return JSON.parse(stdout) as T;
    },
  };
}

/** Runs `vc ARGS` synchronously and returns its exit status and output. */
export function runVc(args: string[], options: RunOptions = {}): VcRun {
  const fullArgs = options.home === undefined ? args : ['--home', options.home, ...args];
  const result = spawnSync(process.execPath, [VC_BIN, ...fullArgs], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(options.env),
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 600_000,
  });
  return wrap(result);
}

/**
 * Runs `vc ARGS` asynchronously: for concurrency tests, and where this process must keep serving
 * its event loop meanwhile (a keep-alive connection it holds is closed by the server while a
 * synchronous run blocks it, and is then reused dead).
 */
export function runVcAsync(args: string[], options: RunOptions = {}): Promise<VcRun> {
  const fullArgs = options.home === undefined ? args : ['--home', options.home, ...args];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VC_BIN, ...fullArgs], { cwd: options.cwd ?? ROOT, env: childEnv(options.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status, signal) => resolve({ status: status ?? -1, signal, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }));
  });
}

/** Runs of runVcInProcess under way, and the test process' own TZ they replaced with UTC. */
let inProcessRuns = 0;
let testTimeZone: string | undefined;

/** A stream that keeps what is written to it (not a terminal, like a pipe to a child process). */
function captureStream(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Runs `vc ARGS` in this process, as the binary would run them (src/cli/main.ts's runCli, which
 * bin/vc.ts calls): the same environment as runVc's child (childEnv), stdout and stderr captured,
 * stdin not a terminal, and the process' time zone UTC while the command runs, as bin/vc.ts sets
 * it (the test's own TZ is restored when no run is under way; code of the test running meanwhile
 * sees UTC). It starts no node, so it costs the command and not the start-up: use it where the
 * test is about what a command does, and runVc where it is about the process (signals, crash
 * points, exit on a closed pipe, stdin). Concurrent runs are allowed (each has its own runtime,
 * context and store handles, released before it resolves).
 */
export async function runVcInProcess(args: string[], options: RunOptions = {}): Promise<VcRun> {
  if (options.cwd !== undefined && path.resolve(options.cwd) !== process.cwd()) {
    throw new Error(`runVcInProcess runs in the test process' directory (${process.cwd()}), not ${options.cwd}: use runVc`);
  }
  if (options.input !== undefined && options.input !== '') throw new Error('runVcInProcess has no stdin input: use runVc');
  if (options.env?.VC_CRASH_AT !== undefined) throw new Error('a crash point kills the process: use runVc for VC_CRASH_AT');
  const { runCli } = await import('../src/cli/main.js');
  const fullArgs = options.home === undefined ? args : ['--home', options.home, ...args];
  const stdout = captureStream();
  const stderr = captureStream();
  if (inProcessRuns++ === 0) {
    testTimeZone = process.env.TZ;
    process.env.TZ = 'UTC';
  }
  let status: number;
  try {
    status = await runCli(fullArgs, { stdout: stdout.stream, stderr: stderr.stream, env: childEnv(options.env), stdinIsTerminal: false });
  } finally {
    if (--inProcessRuns === 0) {
      if (testTimeZone === undefined) delete process.env.TZ;
      else process.env.TZ = testTimeZone;
    }
  }
  const out = stdout.text();
  return { status, signal: null, stdout: out, stderr: stderr.text(), json: <T>() => JSON.parse(out) as T };
}

/**
 * A wallet home at `target` (created), copied from the run's template (test/setup/chainTemplate.ts):
 * the iden3 contracts are deployed on its embedded chain, which is stopped with its state saved;
 * the first command that needs the chain starts this home's own node from that state. For the
 * integration tests only (the template is made by their global setup).
 */
export function templateHome(target: string): string {
  cpSync(inject('templateHome'), target, { recursive: true });
  return target;
}

/**
 * An e2e file's wallet: a temporary directory with a home copied from the template, the circuits
 * cache of the run, and the helpers those files use: `file(name)` in the directory, `vc(args)` run
 * in process with --json on the home, `ok(run)` expecting exit 0 (its stderr shown otherwise).
 */
export function templateWallet(prefix: string): {
  tmp: { dir: string; cleanup: () => void };
  home: string;
  env: Record<string, string | undefined>;
  file: (name: string) => string;
  vc: (args: string[]) => Promise<VcRun>;
  ok: (run: VcRun) => VcRun;
} {
  const tmp = tempDir(prefix);
  const home = templateHome(path.join(tmp.dir, 'home'));
  const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE };
  return {
    tmp,
    home,
    env,
    file: (name) => path.join(tmp.dir, name),
    vc: (args) => runVcInProcess(['--json', ...args], { home, env }),
    ok: (run) => {
      expect(run.status, run.stderr).toBe(0);
      return run;
    },
  };
}

/** The error of a failed `vc --json` run: its stderr must be exactly one JSON line. */
export function jsonError(stderr: string): { code: string; message: string; field?: string } {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  return (JSON.parse(lines[0]!) as { error: { code: string; message: string; field?: string } }).error;
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'vc-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ServedUrls {
  issuer: string;
  holder: string;
  verifier: string;
}

export interface VcServer {
  /** Base URL of each served role. */
  urls: Partial<ServedUrls> & Record<string, string>;
  child: ChildProcess;
  /** What the server wrote on stderr so far (request logs, warnings). */
  stderr(): string;
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `vc serve ARGS` on free ports (or `port`, for a single role) and resolves once it reports its listening URLs. */
export async function startVcServe(home: string, args: string[] = ['--role', 'all'], options: { env?: Record<string, string | undefined>; timeoutMs?: number; port?: number } = {}): Promise<VcServer> {
  const child = spawn(process.execPath, [VC_BIN, '--home', home, 'serve', ...args, '--port', String(options.port ?? 0)], {
    cwd: ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const urls = await new Promise<VcServer['urls']>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`vc serve did not start: ${stderr}`)), options.timeoutMs ?? 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const line = stdout.split('\n').find((l) => l.includes('"listening"'));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { listening: VcServer['urls'] }).listening);
      }
    });
    void exited.then((code) => reject(new Error(`vc serve exited with ${String(code)}: ${stderr}`)));
  });
  return {
    urls,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * How many turns the event loop had while `chain` ran: an immediate callback that reschedules
 * itself counts them (a chain of promises that never waits for I/O gives it none).
 */
export async function eventLoopTurnsDuring(chain: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  await new Promise((resolve) => setImmediate(resolve));
  setImmediate(tick);
  await chain();
  running = false;
  return turns;
}
