/**
 * The one way vc reads an answer from another service (a reverse hash service, an issuer's
 * status list or iden3comm agent): the URL often comes from a credential, possibly from an HTTP
 * body, so a slow, endless or huge answer must not hold or swamp the caller. Every request has a
 * time limit for the whole exchange (connect, answer and body) and a size limit, and follows no
 * redirect (a redirect could lead anywhere). Each caller words its own errors (`fail`).
 */

/** Limits of one request. */
export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** A 2xx answer longer than maxBytes gives its first maxBytes (`truncated`) instead of failing. */
  cutLonger?: boolean;
}

/** What a bounded request gives: the HTTP status, and the body text of a 2xx answer. */
export interface BoundedAnswer {
  status: number;
  /** The whole body of a 2xx answer; undefined otherwise. */
  text: string | undefined;
  /** The start of another answer's body (at most ERROR_TEXT_BYTES, for its reason); undefined for a 2xx. */
  errorText?: string;
  /** With cutLonger: the 2xx answer was longer than maxBytes, and `text` is its start. */
  truncated?: boolean;
}

/** How much of a refusal's body is read, for the reason it gives. */
const ERROR_TEXT_BYTES = 2_048;

/** Reads at most `max` bytes of a body and drops the rest (for a refusal's reason, never an error). */
async function readPrefix(response: Response, max: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } catch {
    // what was read is enough
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** The absolute http(s) URL `text` names, or undefined (not a URL, or another scheme). */
export function httpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/** A fetch failure in words: our timeout, or the library's error with its cause (ECONNREFUSED...). */
export function describeFetchFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no complete answer within ${timeoutMs} ms`;
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause === undefined) return message;
  return `${message} (${cause instanceof Error ? cause.message : String(cause)})`;
}

/**
 * Sends one request with `limits` and reads a 2xx answer's body as text, at most `maxBytes`.
 * `fail(detail, cause)` makes the caller's error for everything that goes wrong: no answer in
 * time, a refused connection, a redirect, a body announced or found longer than the limit.
 */
export async function boundedFetch(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }, limits: FetchLimits, fail: (detail: string, cause?: unknown) => Error): Promise<BoundedAnswer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal, redirect: 'error' });
  } catch (error) {
    throw fail(describeFetchFailure(error, limits.timeoutMs), error);
  }
  if (!response.ok) return { status: response.status, text: undefined, errorText: await readPrefix(response, ERROR_TEXT_BYTES) };
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limits.maxBytes && limits.cutLonger !== true) {
    await response.body?.cancel().catch(() => undefined);
    throw fail(`the answer announces ${declared} bytes, more than the ${limits.maxBytes} bytes accepted`);
  }
  if (response.body === null) return { status: response.status, text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limits.maxBytes) {
        await reader.cancel().catch(() => undefined);
        if (limits.cutLonger === true) {
          chunks.push(value);
          return { status: response.status, text: Buffer.concat(chunks).subarray(0, limits.maxBytes).toString('utf8'), truncated: true };
        }
        throw fail(`the answer is more than the ${limits.maxBytes} bytes accepted`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (total > limits.maxBytes) throw error;
    throw fail(`reading the answer failed: ${describeFetchFailure(error, limits.timeoutMs)}`, error);
  }
  return { status: response.status, text: Buffer.concat(chunks).toString('utf8') };
}
