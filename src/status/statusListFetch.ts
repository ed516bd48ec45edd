/**
 * Fetching a status list credential from an issuer service on this machine. vc never loads
 * documents from the network; the one allowance is the issuer service of vc itself when it listens
 * on the loopback (127.0.0.1, localhost, ::1): the caller (src/core/status) decides that a URL is
 * that service's, this module checks it is on the loopback and fetches it with a timeout, a size
 * limit and no redirect (a redirect could lead anywhere).
 */
import { boundedFetch, type FetchLimits } from '../boundedFetch.js';
import { NetworkError, NotFoundError } from '../errors.js';

/** Time allowed for one status list request (connect, answer and body). */
export const STATUS_LIST_FETCH_TIMEOUT_MS = 10_000;
/** Largest answer read: a list of 2^27 entries compresses far below this. */
export const STATUS_LIST_MAX_RESPONSE_BYTES = 1 << 20;

export type StatusListFetchLimits = FetchLimits;

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

/**
 * GETs the status list credential at `url`, which must be on the loopback; NotFoundError when the
 * service has no such list, NetworkError for anything else that goes wrong (named by the URL).
 */
export async function fetchLoopbackStatusList(url: string, limits: StatusListFetchLimits = DEFAULT_LIMITS): Promise<Record<string, unknown>> {
  if (!isLoopbackUrl(url)) throw new NetworkError(`status list ${url}: vc fetches status lists only from this machine (127.0.0.1, localhost, ::1)`);
  const { status, text } = await boundedFetch(url, { headers: { accept: 'application/json' } }, limits, (detail, cause) => new NetworkError(`status list ${url}: ${detail}`, cause === undefined ? {} : { cause }));
  if (status === 404) throw new NotFoundError(`status list ${url}: the issuer service has no such list (404)`);
  if (text === undefined) throw new NetworkError(`status list ${url}: the issuer service answered ${status}`);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new NetworkError(`status list ${url}: the answer is not JSON`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new NetworkError(`status list ${url}: the answer is not a JSON object`);
  return document as Record<string, unknown>;
}
