/**
 * Fetching a status list credential from an issuer service on this machine. vc never loads
 * documents from the network; the one allowance is the issuer service of vc itself when it listens
 * on the loopback (127.0.0.1, localhost, ::1): the caller (src/core/status) decides that a URL is
 * that service's, this module checks it is on the loopback and fetches it with a timeout, a size
 * limit and no redirect (a redirect could lead anywhere).
 */
import { NetworkError, NotFoundError, describeError } from '../errors.js';

/** Time allowed for one status list request (connect, answer and body). */
export const STATUS_LIST_FETCH_TIMEOUT_MS = 10_000;
/** Largest answer read: a list of 2^27 entries compresses far below this. */
export const STATUS_LIST_MAX_RESPONSE_BYTES = 1 << 20;

export interface StatusListFetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

const DEFAULT_LIMITS: StatusListFetchLimits = { timeoutMs: STATUS_LIST_FETCH_TIMEOUT_MS, maxBytes: STATUS_LIST_MAX_RESPONSE_BYTES };

/** True when the URL's host is this machine's loopback, by name or address. */
export function isLoopbackUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

/** A fetch failure in words: our timeout, or the library's error with its cause (ECONNREFUSED...). */
function describeFetchFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no complete answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined ? describeError(error) : `${describeError(error)} (${describeError(cause)})`;
}

async function readBounded(response: Response, url: string, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new NetworkError(`status list ${url}: the answer announces ${declared} bytes, more than the ${maxBytes} accepted`);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new NetworkError(`status list ${url}: the answer is longer than the ${maxBytes} bytes accepted`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * GETs the status list credential at `url`, which must be on the loopback; NotFoundError when the
 * service has no such list, NetworkError for anything else that goes wrong (named by the URL).
 */
export async function fetchLoopbackStatusList(url: string, limits: StatusListFetchLimits = DEFAULT_LIMITS): Promise<Record<string, unknown>> {
  if (!isLoopbackUrl(url)) throw new NetworkError(`status list ${url}: vc fetches status lists only from this machine (127.0.0.1, localhost, ::1)`);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(limits.timeoutMs), redirect: 'error', headers: { accept: 'application/json' } });
  } catch (error) {
    throw new NetworkError(`status list ${url}: ${describeFetchFailure(error, limits.timeoutMs)}`, { cause: error });
  }
  if (response.status === 404) {
    await response.body?.cancel().catch(() => undefined);
    throw new NotFoundError(`status list ${url}: the issuer service has no such list (404)`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new NetworkError(`status list ${url}: the issuer service answered ${response.status}`);
  }
  let text: string;
  try {
    text = await readBounded(response, url, limits.maxBytes);
  } catch (error) {
    if (error instanceof NetworkError) throw error;
    throw new NetworkError(`status list ${url}: ${describeFetchFailure(error, limits.timeoutMs)}`, { cause: error });
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new NetworkError(`status list ${url}: the answer is not JSON`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new NetworkError(`status list ${url}: the answer is not a JSON object`);
  return document as Record<string, unknown>;
}
