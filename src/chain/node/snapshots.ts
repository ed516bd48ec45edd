/**
 * The saved state of the embedded chain, under <home>/chain/<chainId>/. Two snapshots are kept:
 * - state.json: our checkpoint, written atomically (temp file + fsync + rename) from the
 *   anvil_dumpState RPC after our own transactions and when a command that used the chain ends,
 *   so a kill -9 of the node never loses anything a finished command recorded; the dump is
 *   checked (complete JSON of an anvil state) before it replaces the previous checkpoint;
 * - served.json: the front's snapshot (./front.ts), written the same way by the process that
 *   fronts the node's RPC after every request that changed the chain and before its answer (or
 *   any read showing the change) is served, so no party of the chain, in this home or another,
 *   is ever told of a block a kill -9 of the node takes back;
 * - autosave.json: the last complete dump anvil made itself (covers transactions sent by other
 *   tools to the RPC). anvil's --dump-state rewrites its file in place every few seconds and on a
 *   graceful exit, so a crash or a full disk can leave it cut short: anvil therefore dumps to
 *   autosave.anvil.json, and only while no node runs (before a start, after a stop) does vc move
 *   that file over autosave.json, once it parsed as a complete snapshot newer than the one there.
 *   An incomplete dump is reported and dropped; it never replaces a good snapshot.
 * A start loads whichever valid snapshot is newest (highest block), with one block 0 only
 * (loadableSnapshot).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Context } from '../../context.js';
import { crashPoint, killNodePoint } from '../../faults.js';
import { NetworkError, describeError } from '../../errors.js';
import { writeFileAtomicAsync, writeFileAtomicSync } from '../../store/atomicFile.js';
import { jsonRpcCall } from '../jsonRpc.js';
import { NODE_NS, checkpointKey, readNodeRecord, warn, type CheckpointMark, type LocalNodeRecord } from './nodeRecord.js';
import { isProcessAlive } from './process.js';

export function stateFiles(stateDir: string): { checkpoint: string; served: string; autosave: string; anvilDump: string; load: string; log: string; frontLog: string } {
  return {
    checkpoint: path.join(stateDir, 'state.json'),
    // The front's snapshot (./front.ts): saved after every change, before any answer shows it.
    served: path.join(stateDir, 'served.json'),
    frontLog: path.join(stateDir, 'front.log'),
    autosave: path.join(stateDir, 'autosave.json'),
    // anvil's --dump-state target, rewritten in place by anvil: never trusted before it is checked.
    anvilDump: path.join(stateDir, 'autosave.anvil.json'),
    // The snapshot a start loads when the newest one had to be mended (loadableSnapshot).
    load: path.join(stateDir, 'load.json'),
    log: path.join(stateDir, 'anvil.log'),
  };
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

/**
 * The block number of a state dump the node has just sent, whose gzip length and CRC were checked
 * (so the text is the node's own, whole): read from its top-level `best_block_number` without
 * parsing the megabytes around it. A server saves the chain after every transaction, and parsing
 * the whole dump each time (3 MB of JSON, ten times that in objects) cost its event loop tens of
 * milliseconds and a major garbage collection. The text must still be an object holding the
 * accounts; a dump without the field (an older anvil) is parsed whole.
 */
export function sentDumpBlock(dump: Buffer | string): number | undefined {
  // Read in the bytes: a 3 MB string made of them and scanned is garbage of its own.
  const bytes = typeof dump === 'string' ? Buffer.from(dump, 'utf8') : dump;
  const space = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
  let end = bytes.length - 1;
  while (end >= 0 && space(bytes[end])) end -= 1;
  if (bytes[0] !== 0x7b || bytes[end] !== 0x7d) return undefined;
  const accounts = bytes.indexOf('"accounts":');
  if (accounts < 0) return undefined;
  let next = accounts + '"accounts":'.length;
  while (space(bytes[next])) next += 1;
  if (bytes[next] !== 0x7b) return undefined;
  const field = bytes.indexOf('"best_block_number":');
  if (field < 0) return snapshotTextBlock(bytes.toString('utf8'));
  const value = /^\s*"?(0x[0-9a-fA-F]+|\d+)"?\s*[,}]/.exec(bytes.subarray(field + '"best_block_number":'.length, field + '"best_block_number":'.length + 100).toString('latin1'));
  return value === null ? undefined : Number(BigInt(value[1]!));
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
export function settleAnvilDumpReporting(ctx: Context, stateDir: string): void {
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

interface DumpedBlock {
  header?: { number?: string; timestamp?: string };
}

/**
 * Keeps one block 0 in a parsed anvil dump: the chain's own genesis, the oldest (a genesis made at
 * a later start has a later timestamp). Returns whether blocks were dropped.
 *
 * Why: anvil 1.7.1 makes a fresh genesis block at every start before it loads the state, and keeps
 * it beside the loaded one, so every dump after a restart holds two blocks numbered 0 (one more per
 * restart), in no fixed order; loading such a dump answers block 0 with whichever came last. The
 * chain's block-0 hash, part of its identity (../chainIdentity.ts), then changed at random from one
 * start to the next: the journals of parties on RPC_URL, which name it, stopped matching.
 */
export function keepOriginalGenesis(dump: { blocks?: unknown }): boolean {
  if (!Array.isArray(dump.blocks)) return false;
  const blocks = dump.blocks as DumpedBlock[];
  const isGenesis = (block: DumpedBlock): boolean => block.header?.number !== undefined && BigInt(block.header.number) === 0n;
  const geneses = blocks.filter(isGenesis);
  if (geneses.length <= 1) return false;
  const time = (block: DumpedBlock): bigint => (block.header?.timestamp === undefined ? 0n : BigInt(block.header.timestamp));
  const original = geneses.reduce((oldest, block) => (time(block) < time(oldest) ? block : oldest));
  dump.blocks = blocks.filter((block) => !isGenesis(block) || block === original);
  return true;
}

/**
 * The file a start should load for `snapshot`: the snapshot itself, or, when it holds more than one
 * block 0 (see keepOriginalGenesis), a mended copy written atomically to load.json.
 */
export function loadableSnapshot(stateDir: string, snapshot: { file: string }): string {
  let dump: { blocks?: unknown };
  try {
    dump = JSON.parse(readFileSync(snapshot.file, 'utf8')) as { blocks?: unknown };
  } catch {
    return snapshot.file;
  }
  if (!keepOriginalGenesis(dump)) return snapshot.file;
  const { load } = stateFiles(stateDir);
  try {
    writeFileAtomicSync(load, JSON.stringify(dump));
  } catch {
    // No room for the mended copy (a full disk): the chain still starts, from the snapshot as it is.
    return snapshot.file;
  }
  return load;
}

/** The newest valid snapshot of a state directory, if any. */
export function newestSnapshot(stateDir: string): { file: string; blockNumber: number } | undefined {
  const { checkpoint, served, autosave, anvilDump } = stateFiles(stateDir);
  let best: { file: string; blockNumber: number } | undefined;
  // anvil's own dump counts too when it could not be moved (it is checked like the others).
  for (const file of [checkpoint, served, autosave, anvilDump]) {
    const blockNumber = snapshotBlock(file);
    if (blockNumber !== undefined && (best === undefined || blockNumber > best.blockNumber)) best = { file, blockNumber };
  }
  return best;
}

const gunzipAsync = promisify(gunzip);

/**
 * Asks the node at `nodeUrl` for its whole state (anvil_dumpState): the uncompressed JSON and its
 * block number, checked complete. Every failure is a NetworkError with the reason (exit 4 / 502),
 * a node killed while it dumps included; `file` (what the dump was for) is named as unchanged.
 */
export async function fetchStateDump(nodeUrl: string, file: string): Promise<{ json: Buffer; blockNumber: number }> {
  let hex: string;
  try {
    hex = await jsonRpcCall<string>(nodeUrl, 'anvil_dumpState', [], 30_000);
  } catch (error) {
    throw new NetworkError(`the local chain node's state could not be saved: ${describeError(error)}; ${file} is unchanged`, { cause: error });
  }
  let json: Buffer;
  try {
    // gunzip checks the length and CRC of what anvil sent: a cut-short answer throws here. On the
    // thread pool: megabytes after every transaction, which held a server's event loop.
    json = await gunzipAsync(Buffer.from(hex.replace(/^0x/, ''), 'hex'));
  } catch (error) {
    throw new NetworkError(`the local chain node sent an unreadable state dump (${describeError(error)}); ${file} is unchanged`, { cause: error });
  }
  // Only a complete snapshot may replace a previous one.
  const blockNumber = sentDumpBlock(json);
  if (blockNumber === undefined) throw new NetworkError(`the local chain node's state dump is not a complete snapshot; ${file} is unchanged`);
  return { json, blockNumber };
}

/** Where vc talks to anvil itself: behind the front (./front.ts) when there is one. */
export function nodeUrlOf(record: LocalNodeRecord): string {
  return record.front?.nodeUrl ?? record.rpcUrl;
}

/** Saves the node's state to its checkpoint file (under the 'chain-state' lock), never going backwards. */
export async function checkpointNode(ctx: Context, record: LocalNodeRecord): Promise<{ blockNumber: number; written: boolean }> {
  return ctx.store.withLock('chain-state', async () => {
    const mark = ctx.store.get<CheckpointMark>(NODE_NS, checkpointKey(record.chainId));
    // VC_KILL_NODE_AT=checkpoint:dumping kills the node as the dump is asked for (both awaited
    // together, so the dump's failure is never left unhandled while the kill is waited for).
    const [{ json, blockNumber }] = await Promise.all([fetchStateDump(nodeUrlOf(record), stateFiles(record.stateDir).checkpoint), killNodePoint('checkpoint:dumping', record.pid)]);
    // A concurrent process may already have saved a later block: never go backwards.
    if (mark !== undefined && mark.blockNumber > blockNumber && existsSync(stateFiles(record.stateDir).checkpoint)) {
      return { blockNumber: mark.blockNumber, written: false };
    }
    crashPoint('checkpoint:dumped');
    mkdirSync(record.stateDir, { recursive: true, mode: 0o700 });
    await writeFileAtomicAsync(stateFiles(record.stateDir).checkpoint, json);
    ctx.store.put<CheckpointMark>(NODE_NS, checkpointKey(record.chainId), { blockNumber, at: ctx.now().toISOString() });
    return { blockNumber, written: true };
  });
}

/**
 * Saves the local chain's state to <home>/chain/<id>/state.json when it advanced since the last
 * checkpoint. Call after transactions whose effect must survive a kill -9 of the node.
 */
export async function checkpointLocalChain(ctx: Context, options: { always?: boolean } = {}): Promise<{ blockNumber: number; written: boolean } | undefined> {
  const record = readNodeRecord(ctx);
  if (record === undefined || !isProcessAlive(record.pid)) return undefined;
  if (options.always !== true) {
    const mark = ctx.store.get<CheckpointMark>(NODE_NS, checkpointKey(record.chainId));
    let current: number;
    try {
      current = Number(BigInt(await jsonRpcCall<string>(nodeUrlOf(record), 'eth_blockNumber', [], 5_000)));
    } catch (error) {
      throw new NetworkError(`the local chain node's state could not be saved: ${describeError(error)}`, { cause: error });
    }
    if (mark !== undefined && mark.blockNumber >= current && existsSync(stateFiles(record.stateDir).checkpoint)) {
      return { blockNumber: mark.blockNumber, written: false };
    }
  }
  return checkpointNode(ctx, record);
}
