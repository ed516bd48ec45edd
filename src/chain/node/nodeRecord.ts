/**
 * What the wallet remembers about its embedded node (store namespace 'chain.node'): the running
 * node's record, the remembered and fixed addresses, the checkpoint marks; and where a chain's
 * state lives under the home.
 */
import { closeSync, existsSync, openSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../../context.js';
import { LOOPBACK } from './ports.js';

/** Store namespace of the node record and the checkpoint marks. */
export const NODE_NS = 'chain.node';
export const NODE_KEY = 'local';

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
  /**
   * The front (./front.ts) listening on `port` and saving the state before any answer shows a
   * change; anvil itself listens on the loopback at `nodeUrl`. Absent for a node started before.
   */
  front?: { pid: number; nodeUrl: string };
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

export interface CheckpointMark {
  blockNumber: number;
  at: string;
}

export function checkpointKey(chainId: number): string {
  return `checkpoint:${chainId}`;
}

/** The recorded node, running or not. */
export function readNodeRecord(ctx: Context): LocalNodeRecord | undefined {
  return ctx.store.get<LocalNodeRecord>(NODE_NS, NODE_KEY);
}

/** The directory holding the snapshots and log of the local chain with this chain id. */
export function localStateDir(ctx: Context, chainId = ctx.config.chain.chainId): string {
  return path.join(ctx.store.paths.chain, String(chainId));
}

/** The address fixed for the local node of a chain (`vc chain up --port/--host`), if any. */
export function fixedLocalNodeAddress(ctx: Context, chainId: number): { port: number | undefined; host: string } {
  return { port: ctx.store.get<number>(NODE_NS, `fixedPort:${chainId}`), host: ctx.store.get<string>(NODE_NS, `host:${chainId}`) ?? LOOPBACK };
}

/** Reports a problem that does not fail the command (shown even with --json). */
export function warn(ctx: Context, text: string): void {
  if (ctx.progress.warn !== undefined) ctx.progress.warn(text);
  else ctx.progress.info(`warning: ${text}`);
}

/**
 * The "last used" mark of a state directory: its mtime is when a vc command last used the node
 * (the idle shutdown of ./watchdog.ts and `vc chain ps` read it).
 */
export function nodeUseMark(stateDir: string): string {
  return path.join(stateDir, 'last-used');
}

/** The flag of `vc chain up`: while it exists, the node never stops for idleness (until `vc chain down`). */
export function keepUpFlag(stateDir: string): string {
  return path.join(stateDir, 'keep-up');
}

/** Marks the node of `stateDir` as used now. Best effort: a mark that cannot be written only shortens the idle time. */
export function touchNodeUse(stateDir: string, at = new Date()): void {
  const mark = nodeUseMark(stateDir);
  try {
    utimesSync(mark, at, at);
  } catch {
    try {
      closeSync(openSync(mark, 'a', 0o600));
      utimesSync(mark, at, at);
    } catch {
      // the state directory is gone (reset) or not writable
    }
  }
}

/** When the node of `stateDir` was last used (the mark's mtime), if ever. */
export function lastNodeUse(stateDir: string): Date | undefined {
  try {
    return statSync(nodeUseMark(stateDir)).mtime;
  } catch {
    return undefined;
  }
}

/** Sets or clears the keep-up flag (see keepUpFlag). */
export function setKeepUp(stateDir: string, keep: boolean): void {
  if (keep) closeSync(openSync(keepUpFlag(stateDir), 'a', 0o600));
  else rmSync(keepUpFlag(stateDir), { force: true });
}

export function isKeptUp(stateDir: string): boolean {
  return existsSync(keepUpFlag(stateDir));
}
