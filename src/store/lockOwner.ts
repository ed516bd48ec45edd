/**
 * Who holds a wallet lock, and whether that holder is alive: so that the next command after a
 * `kill -9` takes over the lock of the dead process at once, instead of waiting for the lock to
 * go stale (10 s).
 *
 * On Linux every holder also binds an abstract unix socket named after the lock (no file: a name
 * in the kernel, `\0vc-lock-<hash of the lock file's device and inode>`, the same through every path
 * to it: a symlink, a bind mount). Only one live process of a network
 * namespace can bind a name, and the kernel lets it go the moment its process dies. A process that
 * binds the name while the lock's directory exists therefore knows the holder is dead, if the
 * holder bound the same name, which it says in the lock's owner record (the lock file's content:
 * its pid, host, network namespace and the name it holds, if any). Holders on another host or in
 * another network namespace (a container sharing the home) cannot be told apart from dead ones
 * this way: their locks are left to go stale, as before.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';

/** What a holder writes in the lock file while it holds the lock. */
export interface LockOwnerRecord {
  pid: number;
  host: string;
  /** The network namespace (`net:[inode]`), in which the abstract name is unique. */
  netns: string;
  /** Whether the holder bound the lock's abstract name (its liveness is known to the kernel). */
  bound: boolean;
  /** The abstract name it bound (lockName): only a process that binds this same name learns it is dead. */
  name?: string;
}

function networkNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/net');
  } catch {
    return undefined;
  }
}

/** This process' identity for the owner record, or undefined where abstract names do not exist. */
export function ownIdentity(): Omit<LockOwnerRecord, 'bound'> | undefined {
  if (process.platform !== 'linux') return undefined;
  const netns = networkNamespace();
  return netns === undefined ? undefined : { pid: process.pid, host: os.hostname(), netns };
}

/**
 * The lock's abstract name: from the lock file's device and inode, not its path, so that every
 * process reaching the same file (through a symlink, a bind mount, another spelling) binds the same name.
 */
export function lockName(lockFile: string): string {
  const { dev, ino } = statSync(lockFile, { bigint: true });
  return `vc-lock-${createHash('sha256').update(`${dev}:${ino}`).digest('hex').slice(0, 40)}`;
}

/**
 * Binds the lock's abstract name: the server (unreferenced: it never keeps the process alive) when
 * bound, 'taken' when a live process holds it, undefined when the name cannot be had here (not
 * Linux, or refused for another reason).
 */
export function bindLockName(lockFile: string): Promise<Server | 'taken' | undefined> {
  if (ownIdentity() === undefined) return Promise.resolve(undefined);
  let name: string;
  try {
    name = `\0${lockName(lockFile)}`;
  } catch {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE' ? 'taken' : undefined));
    server.listen({ path: name, exclusive: true }, () => {
      server.unref();
      resolve(server);
    });
  });
}

/** Lets the lock's abstract name go (when this process bound it). */
export function releaseLockName(server: Server | 'taken' | undefined): void {
  if (server !== undefined && server !== 'taken') server.close();
}

/** The owner record in the lock file, when it holds one. */
export function readOwner(lockFile: string): LockOwnerRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockOwnerRecord>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string' || typeof parsed.netns !== 'string' || typeof parsed.bound !== 'boolean') return undefined;
    if (parsed.name !== undefined && typeof parsed.name !== 'string') return undefined;
    return parsed as LockOwnerRecord;
  } catch {
    return undefined;
  }
}

/** Writes (or, with undefined, clears) the owner record. */
export function writeOwner(lockFile: string, record: LockOwnerRecord | undefined): void {
  writeFileSync(lockFile, record === undefined ? '' : `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/**
 * True when the owner record proves its holder dead: it bound the lock's name in this host's and
 * namespace's kernel, and this process now holds that name.
 */
export function ownerIsDead(record: LockOwnerRecord | undefined, holdingName: string | undefined): boolean {
  if (holdingName === undefined || record === undefined || !record.bound || record.name !== holdingName) return false;
  const self = ownIdentity();
  return self !== undefined && record.host === self.host && record.netns === self.netns;
}
