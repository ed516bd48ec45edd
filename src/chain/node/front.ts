/**
 * The front of the embedded node: a small JSON-RPC relay that listens on the node's public address
 * (the one `vc chain up --port` fixes and other wallets put in RPC_URL) and forwards to anvil on a
 * private loopback port. It makes every answer durable for every party of the chain:
 *
 * - a request that can change the chain (eth_send*, anvil_/evm_/hardhat_ mutators) takes an
 *   exclusive turn: it is forwarded, the transactions it sent are waited for until mined (anvil
 *   automines), the node's state is dumped and written atomically and fsynced (served.json, see
 *   ./snapshots.ts), and only then is it answered;
 * - reads wait while a change is between its mine and its save, and a change waits for the reads
 *   in flight, so no receipt, block number, log or state read shows an unsaved block;
 * - when the save fails (the node killed while it dumps, a full disk) the request is answered with
 *   a JSON-RPC error naming the reason, and the node is killed and the front exits (fail-stop):
 *   the unsaved block is never shown, and the next command restarts the node from its last
 *   snapshot.
 *
 * The front exits when the node's process is gone; the lifecycle (./lifecycle.ts) treats a node
 * whose front is gone as dead (it kills the node and restarts both). It runs as its own detached
 * process (./frontMain.ts), with no access to the wallet.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError } from '../../errors.js';
import { writeFileAtomicSync } from '../../store/atomicFile.js';
import { jsonRpcCall } from '../jsonRpc.js';
import { isProcessAlive, killQuietly } from './process.js';
import { fetchStateDump } from './snapshots.js';

export interface FrontOptions {
  /** Public address. */
  host: string;
  port: number;
  /** anvil's private RPC URL (loopback). */
  nodeUrl: string;
  /** anvil's pid: the front lives as long as it does. */
  nodePid: number;
  /** Where the state is saved after every change (served.json). */
  snapshotFile: string;
  /** Reports what happens (the front's log). */
  log?: (line: string) => void;
}

/** Largest request body relayed (anvil's own limit is far above what vc sends). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** How long a sent transaction is waited for until mined before the state is saved anyway. */
const MINE_WAIT_MS = 5_000;
const SUPERVISE_INTERVAL_MS = 200;
/** How long the requests in flight have to get their answers once the front stops. */
const SHUTDOWN_GRACE_MS = 1_000;

/** anvil_/evm_/hardhat_ methods that only read. */
const READ_ONLY_NODE_METHODS = new Set([
  'anvil_dumpState',
  'anvil_nodeInfo',
  'anvil_metadata',
  'hardhat_metadata',
  'anvil_getAutomine',
  'hardhat_getAutomine',
  'anvil_getIntervalMining',
]);

/** True for a JSON-RPC method that can change the chain's state. */
export function isMutatingMethod(method: unknown): boolean {
  if (typeof method !== 'string') return false;
  if (method.startsWith('eth_send') || method === 'personal_sendTransaction') return true;
  return /^(anvil|evm|hardhat)_/.test(method) && !READ_ONLY_NODE_METHODS.has(method);
}

/** Readers share, a writer is alone; waiting writers hold new readers back (no starvation). */
export class Turns {
  private readers = 0;
  private writing = false;
  private waitingWriters = 0;
  private waiters: Array<() => void> = [];

  async read<T>(fn: () => Promise<T>): Promise<T> {
    while (this.writing || this.waitingWriters > 0) await this.changed();
    this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      this.notify();
    }
  }

  async write<T>(fn: () => Promise<T>): Promise<T> {
    this.waitingWriters++;
    try {
      while (this.writing || this.readers > 0) await this.changed();
    } finally {
      this.waitingWriters--;
    }
    this.writing = true;
    try {
      return await fn();
    } finally {
      this.writing = false;
      this.notify();
    }
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

interface RpcRequest {
  id?: unknown;
  method?: unknown;
}
interface RpcReply {
  id?: unknown;
  result?: unknown;
  error?: unknown;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function errorReplies(requests: RpcRequest[] | RpcRequest | undefined, message: string): RpcReply[] | RpcReply {
  const one = (request: RpcRequest | undefined): RpcReply => ({ jsonrpc: '2.0', id: request?.id ?? null, error: { code: -32603, message } } as RpcReply);
  return Array.isArray(requests) ? requests.map(one) : one(requests);
}

/** Starts the front; resolves once it listens. */
export async function startFront(options: FrontOptions): Promise<{ server: Server; stopped: Promise<void> }> {
  const log = options.log ?? (() => undefined);
  const turns = new Turns();
  let failed = false;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });

  async function forward(body: Buffer): Promise<{ status: number; text: string }> {
    const response = await fetch(options.nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(120_000) });
    return { status: response.status, text: await response.text() };
  }

  /** Waits (briefly) until the transactions a request sent are mined, so the dump holds them. */
  async function waitMined(requests: RpcRequest[], replies: RpcReply[]): Promise<void> {
    const hashes: string[] = [];
    for (const request of requests) {
      if (typeof request.method !== 'string' || !request.method.startsWith('eth_send')) continue;
      const reply = replies.find((r) => r.id === request.id);
      if (typeof reply?.result === 'string' && /^0x[0-9a-fA-F]{64}$/.test(reply.result)) hashes.push(reply.result);
    }
    const deadline = Date.now() + MINE_WAIT_MS;
    for (const hash of hashes) {
      while (Date.now() < deadline && (await jsonRpcCall<unknown>(options.nodeUrl, 'eth_getTransactionReceipt', [hash], 5_000)) === null) await sleep(2);
    }
  }

  function shutDown(reason: string, killNode: boolean): void {
    if (failed) return;
    failed = true;
    log(`stopping: ${reason}`);
    if (killNode) killQuietly(options.nodePid, 'SIGKILL');
    server.close(() => resolveStopped());
    // The requests in flight (the send whose state could not be saved, the reads it held back)
    // are answered first, with the reason; whatever connection is left after that is cut.
    server.closeIdleConnections?.();
    setTimeout(() => server.closeAllConnections?.(), SHUTDOWN_GRACE_MS).unref();
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(JSON.stringify({ error: 'JSON-RPC over POST only' }));
      return;
    }
    const body = await readBody(request);
    let parsed: RpcRequest[] | RpcRequest | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as RpcRequest[] | RpcRequest;
    } catch {
      parsed = undefined;
    }
    const list = parsed === undefined ? [] : Array.isArray(parsed) ? parsed : [parsed];
    const mutating = list.some((entry) => isMutatingMethod(entry?.method));
    const send = (status: number, text: string): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    if (failed) {
      send(200, JSON.stringify(errorReplies(parsed, 'the chain node is stopping (its state could not be saved); retry once it is restarted')));
      return;
    }
    if (!mutating) {
      const answer = await turns.read(() => forward(body));
      send(answer.status, answer.text);
      return;
    }
    const answer = await turns.write(async () => {
      const forwarded = await forward(body);
      let replies: RpcReply[] = [];
      try {
        const value = JSON.parse(forwarded.text) as RpcReply[] | RpcReply;
        replies = Array.isArray(value) ? value : [value];
      } catch {
        // not JSON: nothing to wait for; the state is saved all the same
      }
      try {
        await waitMined(list, replies);
        const { json } = await fetchStateDump(options.nodeUrl, options.snapshotFile);
        writeFileAtomicSync(options.snapshotFile, json);
      } catch (error) {
        const reason = `the chain node's state could not be saved (${describeError(error)}); the change is not kept: send it again once the node is restarted`;
        shutDown(reason, true);
        return { status: 200, text: JSON.stringify(errorReplies(parsed, reason)) };
      }
      return forwarded;
    });
    send(answer.status, answer.text);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const reason = `the chain node did not answer: ${describeError(error)}`;
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: reason } }));
      if (!isProcessAlive(options.nodePid)) shutDown('the chain node is gone', false);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const supervisor = setInterval(() => {
    if (!isProcessAlive(options.nodePid)) shutDown('the chain node is gone', false);
  }, SUPERVISE_INTERVAL_MS);
  void stopped.then(() => clearInterval(supervisor));
  log(`listening on ${options.host}:${options.port}, relaying to ${options.nodeUrl} (pid ${options.nodePid})`);
  return { server, stopped };
}
