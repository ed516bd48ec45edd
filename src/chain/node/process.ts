/**
 * The anvil process of the embedded chain, seen from the operating system: where its binary is,
 * whether a pid is still a live anvil of a given home, who listens on a port, stopping it. Nothing
 * here reads the store.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
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

/**
 * The only variables a detached process of vc (the node, its watchdog) inherits: it outlives the
 * command, so WALLET_KEY, IDP_BLS_SIGN_SEED_PHRASE, VC_API_TOKEN, RPC_URL and the like must not
 * stay readable in its /proc/<pid>/environ for hours.
 */
const DETACHED_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ'];

export function scrubbedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of DETACHED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/**
 * Spawns a detached process with the scrubbed environment and a umask of 077, so every file it
 * creates (anvil's own state dumps) is 0600: a chain state holds the wallet's identity states.
 * The umask is this process' for the moment of the spawn (the child inherits it at fork).
 */
export function spawnDetached(command: string, args: string[], options: Pick<SpawnOptions, 'stdio' | 'cwd'>): ChildProcess {
  let previous: number | undefined;
  try {
    previous = process.umask(0o077);
  } catch {
    // Worker threads cannot change the umask: the files' modes are fixed after the fact (restrictFiles).
  }
  try {
    return spawn(command, args, { ...options, detached: true, env: scrubbedEnv() });
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
}

/** Makes existing files private (0600): files made by an older vc, or under another umask. Best effort. */
export function restrictFiles(files: string[]): void {
  for (const file of files) {
    try {
      chmodSync(file, 0o600);
    } catch {
      // absent
    }
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

/**
 * True when the recorded node's process is still running (without asking its RPC), and so is its
 * front when it has one (a node whose front is gone is dead: it is killed and restarted).
 */
export function isLocalNodeProcess(record: { pid: number; stateDir: string; front?: { pid: number } | undefined }): boolean {
  if (!isProcessAlive(record.pid) || !isOurNode(record.pid, record.stateDir)) return false;
  return record.front === undefined || (isProcessAlive(record.front.pid) && isOurNode(record.front.pid, record.stateDir));
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

/** The inodes of the sockets listening on TCP `port` (any address), from /proc/net/tcp{,6}; undefined without /proc. */
function listeningSocketInodes(port: number): Set<string> | undefined {
  const inodes = new Set<string>();
  let readAny = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    readAny = true;
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
      const local = fields[1];
      if (local === undefined || fields[3] !== '0A' || fields[9] === undefined) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]);
    }
  }
  return readAny ? inodes : undefined;
}

/** The socket inodes a process holds open (empty when its /proc entry cannot be read). */
function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match !== null) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * Whether process `pid` is the one listening on TCP `port`: true or false where /proc tells
 * (Linux), undefined where it cannot be known.
 */
export function isListeningOn(pid: number, port: number): boolean | undefined {
  const listening = listeningSocketInodes(port);
  if (listening === undefined) return undefined;
  if (listening.size === 0) return false;
  for (const inode of socketInodesOf(pid)) if (listening.has(inode)) return true;
  return false;
}

/** The process listening on TCP `port`, when /proc tells (processes of other users stay unknown). */
export function listeningProcess(port: number): number | undefined {
  const listening = listeningSocketInodes(port);
  if (listening === undefined || listening.size === 0) return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    for (const inode of socketInodesOf(Number(pid))) if (listening.has(inode)) return Number(pid);
  }
  return undefined;
}

/**
 * The wallet home whose embedded node process `pid` is: vc starts anvil with
 * `--dump-state <home>/chain/<chain id>/autosave.anvil.json`. Undefined for any other process.
 */
export function nodeHomeOf(pid: number): string | undefined {
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  // The node's front (./front.ts): `--snapshot <home>/chain/<chain id>/served.json`.
  const served = args.includes('--node-pid') ? args[args.indexOf('--snapshot') + 1] : undefined;
  if (served !== undefined && path.basename(served) === 'served.json') return path.dirname(path.dirname(path.dirname(served)));
  const dump = args[args.indexOf('--dump-state') + 1];
  if (!args.includes('--dump-state') || dump === undefined || path.basename(dump) !== 'autosave.anvil.json') return undefined;
  return path.dirname(path.dirname(path.dirname(dump)));
}

/** The node's pid when process `pid` is a node's front (it holds the node's public port). */
function frontedNodeOf(pid: number): number | undefined {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const value = args.includes('--node-pid') ? Number(args[args.indexOf('--node-pid') + 1]) : Number.NaN;
    return Number.isInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds TCP `port`, for a message: "another node (pid N, home H)", "another process (pid N)" or "another process". */
export function describePortHolder(port: number): string {
  const pid = listeningProcess(port);
  if (pid === undefined) return 'another process';
  const home = nodeHomeOf(pid);
  return home === undefined ? `another process (pid ${pid})` : `another node (pid ${frontedNodeOf(pid) ?? pid}, home ${home})`;
}
