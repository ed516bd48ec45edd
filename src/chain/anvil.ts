/**
 * Lifecycle of the embedded local chain: an anvil node (binary shipped in the npm package
 * @foundry-rs/anvil-<platform>) running detached in the background between `vc` invocations, so
 * a shell script of separate commands sees one continuous chain.
 *
 * Persistence: the chain state lives under <home>/chain/<chainId>/. Two snapshots are kept:
 * - state.json: our checkpoint, written atomically (temp file + fsync + rename) from the
 *   anvil_dumpState RPC after our own transactions and when a command that used the chain ends,
 *   so a kill -9 of the node never loses anything a finished command recorded; the dump is
 *   checked (complete JSON of an anvil state) before it replaces the previous checkpoint;
 * - autosave.json: the last complete dump anvil made itself (covers transactions sent by other
 *   tools to the RPC). anvil's --dump-state rewrites its file in place every few seconds and on a
 *   graceful exit, so a crash or a full disk can leave it cut short: anvil therefore dumps to
 *   autosave.anvil.json, and only while no node runs (before a start, after a stop) does vc move
 *   that file over autosave.json, once it parsed as a complete snapshot newer than the one there.
 *   An incomplete dump is reported and dropped; it never replaces a good snapshot.
 * A start loads whichever valid snapshot is newest (highest block).
 *
 * Two `vc` processes never start two nodes: starting and stopping run under the store lock
 * 'chain'. A node is reused only when its pid is alive, its command line names this home's state
 * directory (guards against pid reuse) and its RPC answers with the expected chain id.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import type { Context } from '../context.js';
import { crashPoint } from '../faults.js';
import { ConfigError, NetworkError, StoreError, describeError } from '../errors.js';
import { jsonRpcCall, probeChainId } from './jsonRpc.js';
import { writeFileAtomicSync } from '../store/atomicFile.js';

/** Store namespace of the node record and the checkpoint marks. */
const NODE_NS = 'chain.node';
const NODE_KEY = 'local';
/** Seconds between anvil's own state dumps. */
const AUTOSAVE_INTERVAL_SECONDS = 5;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** What we remember about the running node (store namespace 'chain.node', key 'local'). */
export interface LocalNodeRecord {
  pid: number;
  port: number;
  /** The address the node listens on (absent: 127.0.0.1). */
  host?: string;
  chainId: number;
  rpcUrl: string;
  startedAt: string;
  stateDir: string;
  logFile: string;
}

/** The node a command can use. */
export interface LocalNodeInfo extends LocalNodeRecord {
  /** True when this call started the node (it was not running). */
  started: boolean;
  /** True when a previous node had died behind our back (killed, crashed) and was replaced. */
  recovered: boolean;
  /** The snapshot the node was started from, when it was started by this call. */
  loadedState: string | undefined;
}

export type LocalNodeState = 'running' | 'stopped' | 'dead' | 'unresponsive';

export interface LocalNodeStatus {
  state: LocalNodeState;
  record: LocalNodeRecord | undefined;
}

interface CheckpointMark {
  blockNumber: number;
  at: string;
}

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

/** The directory holding the snapshots and log of the local chain with this chain id. */
export function localStateDir(ctx: Context, chainId = ctx.config.chain.chainId): string {
  return path.join(ctx.store.paths.chain, String(chainId));
}

function stateFiles(stateDir: string): { checkpoint: string; autosave: string; anvilDump: string; log: string } {
  return {
    checkpoint: path.join(stateDir, 'state.json'),
    autosave: path.join(stateDir, 'autosave.json'),
    // anvil's --dump-state target, rewritten in place by anvil: never trusted before it is checked.
    anvilDump: path.join(stateDir, 'autosave.anvil.json'),
    log: path.join(stateDir, 'anvil.log'),
  };
}

/** Reports a problem that does not fail the command (shown even with --json). */
function warn(ctx: Context, text: string): void {
  if (ctx.progress.warn !== undefined) ctx.progress.warn(text);
  else ctx.progress.info(`warning: ${text}`);
}

function checkpointKey(chainId: number): string {
  return `checkpoint:${chainId}`;
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
export function isLocalNodeProcess(record: Pick<LocalNodeRecord, 'pid' | 'stateDir'>): boolean {
  return isProcessAlive(record.pid) && isOurNode(record.pid, record.stateDir);
}

/** Inspects the recorded node without changing anything. */
export async function localNodeStatus(ctx: Context): Promise<LocalNodeStatus> {
  const record = ctx.store.get<LocalNodeRecord>(NODE_NS, NODE_KEY);
  if (record === undefined) return { state: 'stopped', record };
  if (!isLocalNodeProcess(record)) return { state: 'dead', record };
  const chainId = await probeChainId(record.rpcUrl, 1_500);
  return { state: chainId === record.chainId ? 'running' : 'unresponsive', record };
}

/** Listens on `host`:`port` for a moment: the port it got (0 picks one), or undefined when it is taken. */
function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(chosen));
    });
  });
}

/** Finds a free TCP port on the loopback interface. */
export function findFreePort(preferred?: number): Promise<number> {
  return (async () => {
    if (preferred !== undefined && preferred > 0) {
      const port = await tryListen(preferred, LOOPBACK);
      if (port !== undefined) return port;
    }
    const port = await tryListen(0, LOOPBACK);
    if (port === undefined) throw new NetworkError('cannot find a free TCP port on 127.0.0.1 for the local chain');
    return port;
  })();
}

/**
 * The block number of an anvil state dump, or undefined when the text is not a complete one (cut
 * short by a crash or a full disk: a truncated JSON document never parses).
 */
export function snapshotTextBlock(text: string): number | undefined {
  try {
    const parsed = JSON.parse(text) as { accounts?: unknown; best_block_number?: string | number; block?: { number?: string | number } } | null;
    if (typeof parsed !== 'object' || parsed === null || typeof parsed.accounts !== 'object' || parsed.accounts === null) return undefined;
    const value = parsed.best_block_number ?? parsed.block?.number;
    return value === undefined ? 0 : Number(BigInt(value));
  } catch {
    return undefined;
  }
}

/** Reads a snapshot's block number; undefined when the file is missing or not a complete dump. */
function snapshotBlock(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return snapshotTextBlock(text);
}

export interface SettledDump {
  /** What happened to anvil's own dump file. */
  outcome: 'none' | 'promoted' | 'stale' | 'incomplete';
  blockNumber?: number;
}

/**
 * While no node runs: moves anvil's own dump (autosave.anvil.json) over autosave.json when it is a
 * complete snapshot newer than the one there, by a rename (atomic, and needs no free space), and
 * drops it when it is stale or incomplete. An incomplete dump is returned as such for the caller to
 * report; autosave.json and state.json are never touched by a partial dump.
 */
export function settleAnvilDump(stateDir: string): SettledDump {
  const { anvilDump, autosave } = stateFiles(stateDir);
  let text: string;
  try {
    text = readFileSync(anvilDump, 'utf8');
  } catch {
    return { outcome: 'none' };
  }
  const blockNumber = snapshotTextBlock(text);
  const current = snapshotBlock(autosave);
  if (blockNumber !== undefined && (current === undefined || blockNumber >= current)) {
    renameSync(anvilDump, autosave);
    try {
      const dirFd = openSync(stateDir, 'r');
      try {
        fsyncSync(dirFd);
      } finally {
        closeSync(dirFd);
      }
    } catch {
      // Durability of the rename is best effort; the checkpoint (state.json) is fsynced.
    }
    return { outcome: 'promoted', blockNumber };
  }
  unlinkSync(anvilDump);
  return blockNumber === undefined ? { outcome: 'incomplete' } : { outcome: 'stale', blockNumber };
}

/** settleAnvilDump, reporting an incomplete dump and any failure instead of failing the caller. */
function settleAnvilDumpReporting(ctx: Context, stateDir: string): void {
  const { anvilDump } = stateFiles(stateDir);
  try {
    const settled = settleAnvilDump(stateDir);
    if (settled.outcome === 'incomplete') {
      const kept = newestSnapshot(stateDir);
      warn(
        ctx,
        `the local chain node's last state dump ${anvilDump} was cut short (full disk or crash) and was dropped; ` +
          (kept === undefined ? 'no complete snapshot is left' : `the last complete snapshot ${kept.file} (block ${kept.blockNumber}) is kept`),
      );
    }
  } catch (error) {
    warn(ctx, `cannot keep the local chain node's state dump ${anvilDump}: ${describeError(error)}`);
  }
}

/** The newest valid snapshot of a state directory, if any. */
export function newestSnapshot(stateDir: string): { file: string; blockNumber: number } | undefined {
  const { checkpoint, autosave, anvilDump } = stateFiles(stateDir);
  let best: { file: string; blockNumber: number } | undefined;
  // anvil's own dump counts too when it could not be moved (it is checked like the others).
  for (const file of [checkpoint, autosave, anvilDump]) {
    const blockNumber = snapshotBlock(file);
    if (blockNumber !== undefined && (best === undefined || blockNumber > best.blockNumber)) best = { file, blockNumber };
  }
  return best;
}

function tail(file: string, lines = 5): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '';
  }
}

/** Spawns anvil detached and waits for its RPC; retries on another port if the port was taken. */
async function startNode(ctx: Context, chainId: number, preferredPort: number | undefined): Promise<LocalNodeInfo> {
  const binary = anvilBinaryPath();
  const stateDir = localStateDir(ctx, chainId);
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const files = stateFiles(stateDir);
  // No node runs here (we hold the 'chain' lock): anvil's last own dump can be checked and kept.
  settleAnvilDumpReporting(ctx, stateDir);
  const snapshot = newestSnapshot(stateDir);

  // An address fixed with `vc chain up --port/--host` is kept, or the start fails: other wallets use it.
  const fixed = fixedLocalNodeAddress(ctx, chainId);
  let lastFailure = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = fixed.port ?? (await findFreePort(attempt === 0 ? preferredPort : undefined));
    const args = [
      '--host', fixed.host,
      '--port', String(port),
      '--chain-id', String(chainId),
      '--dump-state', files.anvilDump,
      '--state-interval', String(AUTOSAVE_INTERVAL_SECONDS),
      '--silent',
    ];
    if (snapshot !== undefined) args.push('--load-state', snapshot.file);
    const logFd = openSync(files.log, 'w', 0o600);
    const child = spawn(binary, args, { detached: true, stdio: ['ignore', logFd, logFd], cwd: stateDir });
    closeSync(logFd);
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let spawnError: Error | undefined;
    child.once('exit', (code, signal) => {
      exited = { code, signal };
    });
    child.once('error', (error) => {
      spawnError = error;
    });
    child.unref();

    const rpcUrl = `http://${connectHost(fixed.host)}:${port}`;
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline && exited === undefined && spawnError === undefined) {
      if ((await probeChainId(rpcUrl, 500)) === chainId) {
        const record: LocalNodeRecord = {
          pid: child.pid!,
          port,
          ...(fixed.host === LOOPBACK ? {} : { host: fixed.host }),
          chainId,
          rpcUrl,
          startedAt: ctx.now().toISOString(),
          stateDir,
          logFile: files.log,
        };
        ctx.store.put(NODE_NS, NODE_KEY, record);
        // Remembered beyond `chain down`, so the RPC URL stays the same across restarts when possible.
        ctx.store.put(NODE_NS, `port:${chainId}`, port);
        return { ...record, started: true, recovered: false, loadedState: snapshot?.file };
      }
      await sleep(25);
    }
    if (spawnError !== undefined) throw new NetworkError(`cannot start the local chain node ${binary}: ${describeError(spawnError)}`, { cause: spawnError });
    if (exited === undefined) {
      // Started but never answered: do not leave a stray node behind.
      if (child.pid !== undefined) killQuietly(child.pid, 'SIGKILL');
      throw new NetworkError(`the local chain node did not answer on ${rpcUrl} within ${START_TIMEOUT_MS / 1000} s (log: ${files.log})`);
    }
    lastFailure = tail(files.log);
    if (!/address already in use/i.test(lastFailure) || fixed.port !== undefined) break;
  }
  if (fixed.port !== undefined && /address already in use/i.test(lastFailure)) {
    throw new NetworkError(`the local chain node cannot listen on ${fixed.host}:${fixed.port}: the port is in use (choose another with vc chain up --port N)`);
  }
  throw new NetworkError(`the local chain node failed to start: ${lastFailure || 'no output'} (log: ${files.log})`);
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid)) return true;
    await sleep(50);
  }
  return !isProcessAlive(pid);
}

const LOOPBACK = '127.0.0.1';

/** Where this machine reaches a node listening on `host` (a wildcard address: the loopback). */
function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return LOOPBACK;
  return host.includes(':') ? `[${host}]` : host;
}

/** The address fixed for the local node of a chain (`vc chain up --port/--host`), if any. */
function fixedLocalNodeAddress(ctx: Context, chainId: number): { port: number | undefined; host: string } {
  return { port: ctx.store.get<number>(NODE_NS, `fixedPort:${chainId}`), host: ctx.store.get<string>(NODE_NS, `host:${chainId}`) ?? LOOPBACK };
}

/**
 * Fixes the address of the local node (kept across restarts, so other wallets can use it through
 * RPC_URL) and restarts a running node that listens elsewhere, its state saved first.
 */
export async function fixLocalNodeAddress(ctx: Context, address: { port?: number | undefined; host?: string | undefined }): Promise<void> {
  const chainId = ctx.config.chain.chainId;
  const status = await localNodeStatus(ctx);
  const record = status.record;
  const current = fixedLocalNodeAddress(ctx, chainId);
  const host = address.host ?? current.host;
  const port = address.port ?? current.port;
  // Checked before anything changes: a refused address leaves the node and the setting as they were.
  // Our own node holding the port (on this or another host) is moved, not a conflict.
  const ours = record !== undefined && status.state === 'running' && record.port === port;
  if (port !== undefined && !ours && (await tryListen(port, host)) === undefined) {
    throw new NetworkError(`the local chain node cannot listen on ${host}:${port}: the port is in use (choose another with vc chain up --port N)`);
  }
  if (address.port !== undefined) ctx.store.put(NODE_NS, `fixedPort:${chainId}`, address.port);
  if (address.host !== undefined) ctx.store.put(NODE_NS, `host:${chainId}`, address.host);
  if (record === undefined || status.state !== 'running' || record.chainId !== chainId) return;
  if ((port === undefined || port === record.port) && host === (record.host ?? LOOPBACK)) return;
  await stopLocalNode(ctx);
}

/** Stops a node process: SIGTERM (anvil dumps its state on exit), then SIGKILL if it hangs. */
async function terminate(pid: number): Promise<void> {
  killQuietly(pid, 'SIGTERM');
  if (!(await waitForExit(pid, STOP_TIMEOUT_MS))) {
    killQuietly(pid, 'SIGKILL');
    await waitForExit(pid, 2_000);
  }
}

/**
 * Returns a running local node for the configured chain id, reusing the recorded one when it is
 * healthy, starting it (from the newest snapshot) when not, and replacing a node that died or hung.
 */
export async function ensureLocalNode(ctx: Context): Promise<LocalNodeInfo> {
  const chainId = ctx.config.chain.chainId;
  const quick = await localNodeStatus(ctx);
  if (quick.state === 'running' && quick.record?.chainId === chainId) {
    return { ...quick.record, started: false, recovered: false, loadedState: undefined };
  }
  return ctx.store.withLock('chain', async () => {
    // Another process may have started it while we waited for the lock.
    const status = await localNodeStatus(ctx);
    const record = status.record;
    if (status.state === 'running' && record?.chainId === chainId) {
      return { ...record, started: false, recovered: false, loadedState: undefined };
    }
    let recovered = false;
    if (record !== undefined) {
      if (status.state === 'running') {
        // A node of another chain id (CHAIN_ID changed): persist it and make room.
        await checkpointNode(ctx, record).catch((error: unknown) => {
          warn(ctx, `the state of the local chain ${record.chainId} was not saved before stopping it: ${describeError(error)}`);
        });
        await terminate(record.pid);
        settleAnvilDumpReporting(ctx, record.stateDir);
      } else if (status.state === 'unresponsive') {
        ctx.progress.info(`the local chain node (pid ${record.pid}) stopped answering on ${record.rpcUrl}; restarting it`);
        killQuietly(record.pid, 'SIGKILL');
        await waitForExit(record.pid, 2_000);
        recovered = true;
      } else {
        ctx.progress.info(`the local chain node (pid ${record.pid}) is gone (killed or crashed); restarting it from the saved state`);
        recovered = true;
      }
      ctx.store.delete(NODE_NS, NODE_KEY);
    }
    const step = ctx.progress.start(`starting the local chain (chain id ${chainId})`);
    try {
      const preferredPort = ctx.store.get<number>(NODE_NS, `port:${chainId}`);
      const info = await startNode(ctx, chainId, preferredPort);
      step.succeed(`local chain running on ${info.rpcUrl} (chain id ${chainId})`);
      return { ...info, recovered };
    } catch (error) {
      step.fail('the local chain failed to start');
      throw error;
    }
  });
}

async function checkpointNode(ctx: Context, record: LocalNodeRecord): Promise<{ blockNumber: number; written: boolean }> {
  return ctx.store.withLock('chain-state', async () => {
    const mark = ctx.store.get<CheckpointMark>(NODE_NS, checkpointKey(record.chainId));
    const hex = await jsonRpcCall<string>(record.rpcUrl, 'anvil_dumpState', [], 30_000);
    let json: Buffer;
    try {
      // gunzip checks the length and CRC of what anvil sent: a cut-short answer throws here.
      json = gunzipSync(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
    } catch (error) {
      throw new NetworkError(`the local chain node sent an unreadable state dump (${describeError(error)}); ${stateFiles(record.stateDir).checkpoint} is unchanged`, { cause: error });
    }
    const text = json.toString('utf8');
    // Only a complete snapshot may replace the previous checkpoint.
    const parsedBlock = snapshotTextBlock(text);
    if (parsedBlock === undefined) {
      throw new StoreError(`the local chain node's state dump is not a complete snapshot; ${stateFiles(record.stateDir).checkpoint} is unchanged`);
    }
    const blockNumber = parsedBlock;
    // A concurrent process may already have saved a later block: never go backwards.
    if (mark !== undefined && mark.blockNumber > blockNumber && existsSync(stateFiles(record.stateDir).checkpoint)) {
      return { blockNumber: mark.blockNumber, written: false };
    }
    crashPoint('checkpoint:dumped');
    mkdirSync(record.stateDir, { recursive: true, mode: 0o700 });
    writeFileAtomicSync(stateFiles(record.stateDir).checkpoint, json);
    ctx.store.put<CheckpointMark>(NODE_NS, checkpointKey(record.chainId), { blockNumber, at: ctx.now().toISOString() });
    return { blockNumber, written: true };
  });
}

/**
 * Saves the local chain's state to <home>/chain/<id>/state.json when it advanced since the last
 * checkpoint. Call after transactions whose effect must survive a kill -9 of the node.
 */
export async function checkpointLocalChain(ctx: Context, options: { always?: boolean } = {}): Promise<{ blockNumber: number; written: boolean } | undefined> {
  const record = ctx.store.get<LocalNodeRecord>(NODE_NS, NODE_KEY);
  if (record === undefined || !isProcessAlive(record.pid)) return undefined;
  if (options.always !== true) {
    const mark = ctx.store.get<CheckpointMark>(NODE_NS, checkpointKey(record.chainId));
    const current = Number(BigInt(await jsonRpcCall<string>(record.rpcUrl, 'eth_blockNumber', [], 5_000)));
    if (mark !== undefined && mark.blockNumber >= current && existsSync(stateFiles(record.stateDir).checkpoint)) {
      return { blockNumber: mark.blockNumber, written: false };
    }
  }
  return checkpointNode(ctx, record);
}

/** Stops the local node, saving its state first. Returns the pid it stopped, if one was running. */
export async function stopLocalNode(ctx: Context, options: { persist?: boolean } = {}): Promise<{ stopped: boolean; pid: number | undefined }> {
  return ctx.store.withLock('chain', async () => {
    const status = await localNodeStatus(ctx);
    const record = status.record;
    if (record === undefined) return { stopped: false, pid: undefined };
    if (status.state === 'dead') {
      ctx.store.delete(NODE_NS, NODE_KEY);
      return { stopped: false, pid: record.pid };
    }
    if (status.state === 'running' && options.persist !== false) {
      await checkpointNode(ctx, record);
    }
    await terminate(record.pid);
    ctx.store.delete(NODE_NS, NODE_KEY);
    // anvil dumped its state on exit: keep it if complete, report it if cut short.
    if (options.persist !== false) settleAnvilDumpReporting(ctx, record.stateDir);
    return { stopped: true, pid: record.pid };
  });
}

/** Stops the node and deletes every local chain snapshot and checkpoint mark of this home. */
export async function resetLocalChainState(ctx: Context): Promise<{ stoppedPid: number | undefined; removed: string }> {
  const { pid } = await stopLocalNode(ctx, { persist: false });
  return ctx.store.withLock('chain', async () => {
    const dir = ctx.store.paths.chain;
    rmSync(dir, { recursive: true, force: true });
    for (const { key } of ctx.store.list(NODE_NS)) ctx.store.delete(NODE_NS, key);
    return { stoppedPid: pid, removed: dir };
  });
}
