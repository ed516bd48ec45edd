/**
 * The anvil process of the embedded chain, seen from the operating system: where its binary is,
 * whether a pid is still a live anvil of a given home, stopping it. Nothing here reads the store.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../../errors.js';

const STOP_TIMEOUT_MS = 10_000;

/** The path of the anvil executable for this platform, from its npm package. */
export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const require = createRequire(import.meta.url);
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    throw new ConfigError(`the local chain needs the anvil binary from the npm package ${pkg}, which is not installed (run npm install)`, {
      field: 'RPC_URL',
      details: 'or set RPC_URL to use an external chain',
    });
  }
}

/** True when a process with this pid exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // A killed child that nobody reaped yet still answers kill(0); /proc tells it is a zombie.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const stateChar = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return stateChar !== 'Z' && stateChar !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}

/** True when the process' command line names our state directory (so the pid was not reused). */
function isOurNode(pid: number, stateDir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((arg) => arg.startsWith(stateDir + path.sep));
  } catch {
    // No /proc (not Linux): the RPC chain id check is the remaining guard.
    return process.platform !== 'linux';
  }
}

/** True when the recorded node's process is still running (without asking its RPC). */
export function isLocalNodeProcess(record: { pid: number; stateDir: string }): boolean {
  return isProcessAlive(record.pid) && isOurNode(record.pid, record.stateDir);
}

export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await sleep(50);
  }
  return !isProcessAlive(pid);
}

/** Stops a node process: SIGTERM (anvil dumps its state on exit), then SIGKILL if it hangs. */
export async function terminate(pid: number): Promise<void> {
  killQuietly(pid, 'SIGTERM');
  if (!(await waitForExit(pid, STOP_TIMEOUT_MS))) {
    killQuietly(pid, 'SIGKILL');
    await waitForExit(pid, 2_000);
  }
}
