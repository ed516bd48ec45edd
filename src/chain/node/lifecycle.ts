/**
 * Lifecycle of the embedded local chain: an anvil node (binary shipped in the npm package
 * @foundry-rs/anvil-<platform>) running detached in the background between `vc` invocations, so
 * a shell script of separate commands sees one continuous chain. Its state is kept by
 * ./snapshots.ts; its process is watched by ./process.ts.
 *
 * Two `vc` processes never start two nodes: starting and stopping run under the store lock
 * 'chain'. A node is reused only when its pid is alive, its command line names this home's state
 * directory (guards against pid reuse) and its RPC answers with the expected chain id. A node is
 * started only when the child we spawned is the one answering on its port (on Linux /proc shows
 * who listens; elsewhere a node carrying another home's chain marker is refused): another node
 * holding a fixed port is refused, naming its pid and home, never adopted. The node then carries
 * this home's chain marker (./nodeIdentity.ts).
 */
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Context } from '../../context.js';
import { NetworkError, describeError } from '../../errors.js';
import { probeChainId } from '../jsonRpc.js';
import {
  NODE_KEY,
  NODE_NS,
  fixedLocalNodeAddress,
  isKeptUp,
  lastNodeUse,
  localStateDir,
  readNodeRecord,
  setKeepUp,
  touchNodeUse,
  warn,
  type LocalNodeInfo,
  type LocalNodeRecord,
  type LocalNodeStatus,
} from './nodeRecord.js';
import { LOOPBACK, findFreePort, tryListen } from './ports.js';
import { carriesAnotherMarker, claimNodeIdentity } from './nodeIdentity.js';
import { anvilBinaryPath, describePortHolder, isListeningOn, isLocalNodeProcess, killQuietly, restrictFiles, spawnDetached, terminate, waitForExit } from './process.js';
import { checkpointNode, loadableSnapshot, newestSnapshot, settleAnvilDumpReporting, stateFiles } from './snapshots.js';
import { workerEntry } from '../../workers/pool.js';
import type { WatchdogArgs } from './watchdog.js';
import { launchFront } from './frontLaunch.js';

/** Seconds between anvil's own state dumps. */
const AUTOSAVE_INTERVAL_SECONDS = 5;
const START_TIMEOUT_MS = 30_000;

/**
 * Stops the front of a node (it exits by itself within a moment of the node; SIGKILL if not), so
 * its public port is free again.
 */
async function stopFront(record: LocalNodeRecord): Promise<void> {
  if (record.front === undefined || !isLocalNodeProcess({ pid: record.front.pid, stateDir: record.stateDir })) return;
  if (!(await waitForExit(record.front.pid, 1_000))) {
    killQuietly(record.front.pid, 'SIGKILL');
    await waitForExit(record.front.pid, 2_000);
  }
}

/** Kills the node of a record whose front is gone (only when the pid is still that node). */
async function killNodeOf(record: LocalNodeRecord): Promise<void> {
  if (!isLocalNodeProcess({ pid: record.pid, stateDir: record.stateDir })) return;
  killQuietly(record.pid, 'SIGKILL');
  await waitForExit(record.pid, 2_000);
}

/** Inspects the recorded node without changing anything. */
export async function localNodeStatus(ctx: Context): Promise<LocalNodeStatus> {
  const record = readNodeRecord(ctx);
  if (record === undefined) return { state: 'stopped', record };
  if (!isLocalNodeProcess(record)) return { state: 'dead', record };
  const chainId = await probeChainId(record.rpcUrl, 1_500);
  return { state: chainId === record.chainId ? 'running' : 'unresponsive', record };
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
  const loadFile = snapshot === undefined ? undefined : loadableSnapshot(stateDir, snapshot);
  // Files an older vc (or anvil under the user's umask) left readable by others become private.
  restrictFiles(readdirSync(stateDir).map((name) => path.join(stateDir, name)));

  // An address fixed with `vc chain up --port/--host` is kept, or the start fails: other wallets use it.
  // anvil listens on a private loopback port; its front (./front.ts) holds the public address.
  const fixed = fixedLocalNodeAddress(ctx, chainId);
  let lastFailure = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = fixed.port ?? (await findFreePort(attempt === 0 ? preferredPort : undefined));
    const nodePort = await findFreePort();
    let retryElsewhere = false;
    const args = [
      '--host', LOOPBACK,
      '--port', String(nodePort),
      '--chain-id', String(chainId),
      '--dump-state', files.anvilDump,
      '--state-interval', String(AUTOSAVE_INTERVAL_SECONDS),
      '--silent',
    ];
    if (loadFile !== undefined) args.push('--load-state', loadFile);
    const logFd = openSync(files.log, 'w', 0o600);
    // Scrubbed environment, umask 077 (./process.ts).
    const child = spawnDetached(binary, args, { stdio: ['ignore', logFd, logFd], cwd: stateDir });
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

    const nodeUrl = `http://${LOOPBACK}:${nodePort}`;
    const deadline = Date.now() + START_TIMEOUT_MS;
    // Another process may hold the port and answer the probe before our anvil's failure to bind is
    // noticed: only an answer from the child we spawned counts.
    let answeredByAnother = false;
    while (Date.now() < deadline && exited === undefined && spawnError === undefined) {
      if ((await probeChainId(nodeUrl, 500)) === chainId) {
        if (await isAnotherNode(ctx, child.pid!, nodePort, nodeUrl, chainId, stateDir)) {
          answeredByAnother = true;
        } else {
          const front = await launchFront({ host: fixed.host, port, nodeUrl, nodePid: child.pid!, stateDir, chainId });
          if (front.outcome !== 'started') {
            killQuietly(child.pid!, 'SIGKILL');
            if (front.outcome === 'failed') throw new NetworkError(`the local chain node's front failed to start: ${front.reason}`);
            if (fixed.port !== undefined) throw portHeldError(fixed.host, port);
            lastFailure = `port ${port} is in use`;
            retryElsewhere = true;
            break;
          }
          const record: LocalNodeRecord = {
            pid: child.pid!,
            port,
            ...(fixed.host === LOOPBACK ? {} : { host: fixed.host }),
            chainId,
            rpcUrl: front.rpcUrl,
            startedAt: ctx.now().toISOString(),
            stateDir,
            logFile: files.log,
            front: { pid: front.pid, nodeUrl },
          };
          try {
            await claimNodeIdentity(ctx, record);
          } catch (error) {
            killQuietly(child.pid!, 'SIGKILL');
            killQuietly(front.pid, 'SIGKILL');
            throw new NetworkError(`the local chain node on ${front.rpcUrl} could not be given this wallet's chain identity: ${describeError(error)}`, { cause: error });
          }
          ctx.store.put(NODE_NS, NODE_KEY, record);
          // Remembered beyond `chain down`, so the RPC URL stays the same across restarts when possible.
          ctx.store.put(NODE_NS, `port:${chainId}`, port);
          touchNodeUse(stateDir, ctx.now());
          startWatchdog(ctx, record);
          return { ...record, started: true, recovered: false, loadedState: snapshot?.file };
        }
      }
      await sleep(25);
    }
    if (retryElsewhere) continue;
    if (spawnError !== undefined) throw new NetworkError(`cannot start the local chain node ${binary}: ${describeError(spawnError)}`, { cause: spawnError });
    if (exited === undefined) {
      // Started but never answered: do not leave a stray node behind.
      if (child.pid !== undefined) killQuietly(child.pid, 'SIGKILL');
      if (answeredByAnother) {
        lastFailure = `port ${nodePort} is in use`;
        continue;
      }
      throw new NetworkError(`the local chain node did not answer on ${nodeUrl} within ${START_TIMEOUT_MS / 1000} s (log: ${files.log})`);
    }
    lastFailure = tail(files.log);
    if (!/address already in use/i.test(lastFailure)) break;
  }
  throw new NetworkError(`the local chain node failed to start: ${lastFailure || 'no output'} (log: ${files.log})`);
}

/**
 * Starts the idle watchdog of a node just started (./watchdog.ts), unless VC_CHAIN_IDLE_MINUTES
 * is 0. A watchdog that cannot start leaves the node running, as before idle shutdown existed.
 */
function startWatchdog(ctx: Context, record: LocalNodeRecord): void {
  const minutes = ctx.config.chain.nodeIdleMinutes;
  if (minutes <= 0) return;
  const args: WatchdogArgs = {
    home: ctx.config.home,
    chainId: record.chainId,
    networkName: `${ctx.config.chain.didBlockchain}:${ctx.config.chain.didNetwork}`,
    pid: record.pid,
    stateDir: record.stateDir,
    idleMs: Math.round(minutes * 60_000),
  };
  let logFd: number | undefined;
  try {
    const entry = workerEntry('watchdog.js', import.meta.url);
    logFd = openSync(path.join(record.stateDir, 'watchdog.log'), 'a', 0o600);
    const child = spawnDetached(process.execPath, [fileURLToPath(entry), JSON.stringify(args)], { stdio: ['ignore', logFd, logFd], cwd: record.stateDir });
    child.once('error', (error) => warn(ctx, `the idle watchdog of the local chain node did not start (the node keeps running): ${describeError(error)}`));
    child.unref();
  } catch (error) {
    warn(ctx, `the idle watchdog of the local chain node did not start (the node keeps running): ${describeError(error)}`);
  } finally {
    if (logFd !== undefined) closeSync(logFd);
  }
}

/**
 * Stops the node the watchdog watches when it is still this home's node, not kept up, and unused
 * for its idle time (all checked under the 'chain' lock, so a command starting meanwhile wins).
 */
export async function stopIdleNode(ctx: Context, watched: { pid: number; stateDir: string; idleMs: number }): Promise<{ stopped: boolean }> {
  const idle = (): boolean => {
    const last = lastNodeUse(watched.stateDir);
    return !isKeptUp(watched.stateDir) && last !== undefined && Date.now() - last.getTime() >= watched.idleMs;
  };
  const { stopped } = await stopLocalNode(ctx, { onlyIf: (record) => record.pid === watched.pid && record.stateDir === watched.stateDir && idle() });
  return { stopped };
}

/** `vc chain up`: the node of the configured chain never stops for idleness, until `vc chain down`. */
export function keepLocalNodeUp(ctx: Context, keep: boolean): void {
  const stateDir = localStateDir(ctx);
  if (keep) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  try {
    setKeepUp(stateDir, keep);
  } catch (error) {
    warn(ctx, `cannot ${keep ? 'set' : 'clear'} the keep-up flag of the local chain node: ${describeError(error)}`);
  }
}

/** Marks the local node as used now (each command that uses it), postponing its idle shutdown. */
export function markLocalNodeUsed(ctx: Context, node: { stateDir: string }): void {
  touchNodeUse(node.stateDir, ctx.now());
}

/**
 * True when the node answering on `port` is not the child `pid` we spawned: on Linux, /proc tells
 * who listens; elsewhere, a node carrying another home's chain marker is not ours.
 */
async function isAnotherNode(ctx: Context, pid: number, port: number, rpcUrl: string, chainId: number, stateDir: string): Promise<boolean> {
  const listening = isListeningOn(pid, port);
  if (listening !== undefined) return !listening;
  return carriesAnotherMarker(ctx, rpcUrl, chainId, stateDir);
}

/** The refusal of a port held by another process, naming it when /proc tells (pid, and home for a vc node). */
function portHeldError(host: string, port: number): NetworkError {
  return new NetworkError(`the local chain node cannot listen on ${host}:${port}: the port is in use: port ${port} is held by ${describePortHolder(port)} (stop it, or choose another port with vc chain up --port N)`);
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
  if (port !== undefined && !ours && (await tryListen(port, host)) === undefined) throw portHeldError(host, port);
  if (address.port !== undefined) ctx.store.put(NODE_NS, `fixedPort:${chainId}`, address.port);
  if (address.host !== undefined) ctx.store.put(NODE_NS, `host:${chainId}`, address.host);
  if (record === undefined || status.state !== 'running' || record.chainId !== chainId) return;
  if ((port === undefined || port === record.port) && host === (record.host ?? LOOPBACK)) return;
  await stopLocalNode(ctx);
}

/**
 * Returns a running local node for the configured chain id, reusing the recorded one when it is
 * healthy, starting it (from the newest snapshot) when not, and replacing a node that died or hung.
 */
export async function ensureLocalNode(ctx: Context): Promise<LocalNodeInfo> {
  const chainId = ctx.config.chain.chainId;
  const quick = await localNodeStatus(ctx);
  if (quick.state === 'running' && quick.record?.chainId === chainId) {
    touchNodeUse(quick.record.stateDir, ctx.now());
    return { ...quick.record, started: false, recovered: false, loadedState: undefined };
  }
  return ctx.store.withLock('chain', async () => {
    // Another process may have started it while we waited for the lock.
    const status = await localNodeStatus(ctx);
    const record = status.record;
    if (status.state === 'running' && record?.chainId === chainId) {
      touchNodeUse(record.stateDir, ctx.now());
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
        await stopFront(record);
        settleAnvilDumpReporting(ctx, record.stateDir);
      } else if (status.state === 'unresponsive') {
        ctx.progress.info(`the local chain node (pid ${record.pid}) stopped answering on ${record.rpcUrl}; restarting it`);
        killQuietly(record.pid, 'SIGKILL');
        await waitForExit(record.pid, 2_000);
        await stopFront(record);
        recovered = true;
      } else {
        // Whichever of the node and its front survived the other goes too (nothing unsaved is served).
        await killNodeOf(record);
        await stopFront(record);
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

/** Stops the local node, saving its state first. Returns the pid it stopped, if one was running. */
export async function stopLocalNode(
  ctx: Context,
  options: { persist?: boolean; onlyIf?: (record: LocalNodeRecord) => boolean } = {},
): Promise<{ stopped: boolean; pid: number | undefined }> {
  return ctx.store.withLock('chain', async () => {
    const status = await localNodeStatus(ctx);
    const record = status.record;
    if (record === undefined) return { stopped: false, pid: undefined };
    if (options.onlyIf !== undefined && !options.onlyIf(record)) return { stopped: false, pid: record.pid };
    if (status.state === 'dead') {
      await killNodeOf(record);
      await stopFront(record);
      ctx.store.delete(NODE_NS, NODE_KEY);
      return { stopped: false, pid: record.pid };
    }
    if (status.state === 'running' && options.persist !== false) {
      await checkpointNode(ctx, record);
    }
    await terminate(record.pid);
    await stopFront(record);
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
