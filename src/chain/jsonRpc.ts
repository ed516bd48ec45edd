/**
 * A minimal JSON-RPC client over fetch, used where loading ethers would be wasted time: probing
 * whether the local node answers, reading its chain id, dumping its state. Everything richer
 * (contracts, signing) goes through the ethers provider of src/chain/connection.ts.
 */
import { randomInt } from 'node:crypto';
import { describeError } from '../errors.js';

/** A JSON-RPC call that failed: transport error, HTTP error or an error object in the reply. */
export class JsonRpcCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'transport' | 'http' | 'rpc',
    options: { cause?: unknown } = {},
  ) {
    // The cause (fetch's ECONNREFUSED, a socket closed mid-answer...) is kept, so a walk over the
    // cause chain (asConnectionFailure) recognises a lost connection.
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JsonRpcCallError';
  }
}

/**
 * A fresh request id per call: the replies are matched within one HTTP exchange, so ids only
 * need to differ inside a batch, and no counter is shared across the process.
 */
function newRequestId(count = 1): number {
  return randomInt(1, 2 ** 31 - count);
}

/** Where a request goes: the URL without user info, and the credentials it carried. */
export interface RpcEndpoint {
  /** The URL without `user:password@` (fetch refuses URLs with credentials). */
  url: string;
  /** `user:password`, decoded, when the URL carried them (HTTP basic authentication). */
  credentials: { username: string; password: string } | undefined;
}

/**
 * Splits `user:password@` (basic authentication, as some node providers use) off an RPC URL:
 * they travel as an Authorization header instead, and messages name the URL without them.
 */
export function rpcEndpoint(url: string): RpcEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, credentials: undefined };
  }
  if (parsed.username === '' && parsed.password === '') return { url, credentials: undefined };
  const credentials = { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) };
  parsed.username = '';
  parsed.password = '';
  // URL.href adds a slash to a bare origin; config's normal form has none.
  const bare = parsed.href.endsWith('/') && !url.endsWith('/') ? parsed.href.slice(0, -1) : parsed.href;
  return { url: bare, credentials };
}

/** The request headers for an endpoint: JSON, plus basic authentication when it has credentials. */
function requestHeaders(endpoint: RpcEndpoint): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.credentials !== undefined) {
    const { username, password } = endpoint.credentials;
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  }
  return headers;
}

/** Sends one JSON-RPC request and returns its result; throws JsonRpcCallError on any failure. */
export async function jsonRpcCall<T>(rpcUrl: string, method: string, params: unknown[] = [], timeoutMs = 2_000): Promise<T> {
  const endpoint = rpcEndpoint(rpcUrl);
  // Messages name the URL without its credentials.
  const url = endpoint.url;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: requestHeaders(endpoint),
      body: JSON.stringify({ jsonrpc: '2.0', id: newRequestId(), method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const reason = cause === undefined ? describeError(error) : describeError(cause);
    throw new JsonRpcCallError(`${method} to ${url} failed: ${reason}`, 'transport', { cause: error });
  }
  if (!response.ok) {
    throw new JsonRpcCallError(`${method} to ${url} failed: HTTP ${response.status} ${response.statusText}`, 'http');
  }
  let body: { result?: T; error?: { code?: number; message?: string } };
  try {
    body = (await response.json()) as typeof body;
  } catch (error) {
    // A body cut short (the node killed while answering) is a lost connection, not a bad reply.
    const cause = (error as { cause?: unknown }).cause;
    if (cause !== undefined || (error as { name?: unknown }).name !== 'SyntaxError') {
      throw new JsonRpcCallError(`${method} to ${url} failed while reading the reply: ${describeError(cause ?? error)}`, 'transport', { cause: error });
    }
    throw new JsonRpcCallError(`${method} to ${url}: the reply is not JSON (${describeError(error)})`, 'http', { cause: error });
  }
  if (body.error !== undefined) {
    throw new JsonRpcCallError(`${method} to ${url} was rejected: ${body.error.message ?? 'unknown error'} (code ${body.error.code ?? '?'})`, 'rpc');
  }
  return body.result as T;
}

/** The chain id reported by an endpoint, or undefined when it does not answer in time. */
export async function probeChainId(url: string, timeoutMs = 1_000): Promise<number | undefined> {
  try {
    const hex = await jsonRpcCall<string>(url, 'eth_chainId', [], timeoutMs);
    return Number(BigInt(hex));
  } catch {
    return undefined;
  }
}

/** Sends several JSON-RPC requests in one HTTP batch; results in request order, errors thrown. */
export async function jsonRpcBatch<T>(rpcUrl: string, calls: Array<{ method: string; params: unknown[] }>, timeoutMs = 5_000): Promise<T[]> {
  if (calls.length === 0) return [];
  const endpoint = rpcEndpoint(rpcUrl);
  const url = endpoint.url;
  let response: Response;
  const first = newRequestId(calls.length);
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: requestHeaders(endpoint),
      body: JSON.stringify(calls.map((call, i) => ({ jsonrpc: '2.0', id: first + i, method: call.method, params: call.params }))),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    throw new JsonRpcCallError(`batch of ${calls.length} requests to ${url} failed: ${describeError(cause ?? error)}`, 'transport', { cause: error });
  }
  if (!response.ok) throw new JsonRpcCallError(`batch to ${url} failed: HTTP ${response.status} ${response.statusText}`, 'http');
  const replies = (await response.json()) as Array<{ id: number; result?: T; error?: { message?: string } }>;
  if (!Array.isArray(replies)) throw new JsonRpcCallError(`batch to ${url}: the endpoint does not support JSON-RPC batches`, 'rpc');
  const byId = new Map(replies.map((reply) => [reply.id, reply]));
  return calls.map((call, i) => {
    const reply = byId.get(first + i);
    if (reply === undefined || reply.error !== undefined) {
      throw new JsonRpcCallError(`${call.method} to ${url} was rejected: ${reply?.error?.message ?? 'no reply in the batch'}`, 'rpc');
    }
    return reply.result as T;
  });
}
