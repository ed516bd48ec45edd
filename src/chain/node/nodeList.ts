/**
 * `vc chain ps`: the embedded nodes of this user, whatever their home, found in /proc (Linux).
 * vc starts anvil with `--dump-state <home>/chain/<chain id>/autosave.anvil.json`, so a node's
 * command line names its home; its port and chain id are its own arguments, and its idle time is
 * the age of the home's "last used" mark (./nodeRecord.ts). Nothing here reads a store.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { connectHost, LOOPBACK } from './ports.js';
import { isKeptUp, lastNodeUse } from './nodeRecord.js';
import { nodeHomeOf } from './process.js';
import type { WatchdogArgs } from './watchdog.js';

export interface ListedNode {
  home: string;
  chainId: number;
  pid: number;
  port: number;
  host: string;
  rpcUrl: string;
  stateDir: string;
  /** When the process started (from /proc), if known. */
  startedAt: string | undefined;
  /** When a vc command last used it, if ever marked. */
  lastUsedAt: string | undefined;
  /** Seconds since then. */
  idleSeconds: number | undefined;
  /** Minutes of idleness after which its watchdog stops it; null: never (kept up by `vc chain up`, or no watchdog). */
  idleLimitMinutes: number | null;
  /** Kept up by `vc chain up` until `vc chain down`. */
  keptUp: boolean;
}

function cmdline(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

function argument(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

/** The processes of this user (by the owner of their /proc entry). */
function ownPids(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  return names.map(Number).filter((pid) => {
    try {
      return uid === undefined || statSync(`/proc/${pid}`).uid === uid;
    } catch {
      return false;
    }
  });
}

/** When a process started: its start time in clock ticks after boot (/proc/<pid>/stat) plus the boot time. */
function startTime(pid: number): Date | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name "(...)": state is field 3, starttime field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    if (!Number.isFinite(ticks) || boot === undefined) return undefined;
    // USER_HZ is 100 on every Linux platform Node runs on.
    return new Date(Number(boot) * 1000 + (ticks / 100) * 1000);
  } catch {
    return undefined;
  }
}

/** The embedded nodes of this user (empty where /proc does not exist), sorted by home. */
export function listLocalNodes(now = new Date()): ListedNode[] {
  const pids = ownPids();
  const watchdogs = new Map<number, WatchdogArgs>();
  /** The public address of each node's front (./front.ts), by the node's pid: anvil itself listens on a private port. */
  const fronts = new Map<number, { host: string; port: number }>();
  const nodes: ListedNode[] = [];
  for (const pid of pids) {
    const args = cmdline(pid);
    if (args === undefined) continue;
    if (args.some((arg) => path.basename(arg) === 'watchdog.js')) {
      try {
        const watched = JSON.parse(args[args.findIndex((arg) => path.basename(arg) === 'watchdog.js') + 1] ?? '') as WatchdogArgs;
        if (typeof watched.pid === 'number') watchdogs.set(watched.pid, watched);
      } catch {
        // not ours
      }
      continue;
    }
    if (args.some((arg) => path.basename(arg) === 'frontMain.js')) {
      const listen = /^\[?([^\]]*)\]?:(\d+)$/.exec(argument(args, '--listen') ?? '');
      const nodePid = Number(argument(args, '--node-pid'));
      if (listen !== null && Number.isInteger(nodePid)) fronts.set(nodePid, { host: listen[1]!, port: Number(listen[2]) });
      continue;
    }
    if (!/^anvil(\.exe)?$/.test(path.basename(args[0] ?? ''))) continue;
    const home = nodeHomeOf(pid);
    const dump = argument(args, '--dump-state');
    if (home === undefined || dump === undefined) continue;
    const port = Number(argument(args, '--port'));
    const host = argument(args, '--host') ?? LOOPBACK;
    const stateDir = path.dirname(dump);
    const last = lastNodeUse(stateDir);
    nodes.push({
      home,
      chainId: Number(argument(args, '--chain-id')),
      pid,
      port,
      host,
      rpcUrl: `http://${connectHost(host)}:${port}`,
      stateDir,
      startedAt: startTime(pid)?.toISOString(),
      lastUsedAt: last?.toISOString(),
      idleSeconds: last === undefined ? undefined : Math.max(0, Math.round((now.getTime() - last.getTime()) / 1000)),
      idleLimitMinutes: null,
      keptUp: isKeptUp(stateDir),
    });
  }
  for (const node of nodes) {
    const front = fronts.get(node.pid);
    if (front !== undefined) Object.assign(node, { host: front.host, port: front.port, rpcUrl: `http://${connectHost(front.host)}:${front.port}` });
    const watchdog = watchdogs.get(node.pid);
    if (watchdog !== undefined && !node.keptUp) node.idleLimitMinutes = watchdog.idleMs / 60_000;
  }
  return nodes.sort((a, b) => a.home.localeCompare(b.home) || a.chainId - b.chainId);
}
