/**
 * The request id of `vc serve`: every answer carries it in `X-Request-Id`, and the access log
 * line of the request names it. A client (or a proxy in front) may give its own; it is kept only
 * when it is short and made of safe characters, since it is echoed in a header and written to the
 * log (a newline or a quote in it could fake a log line or a header). Otherwise the server makes
 * one (a UUID).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a given request id may be: 1 to 128 of letters, digits and `-_.:+/=@~` (UUIDs, ULIDs, trace ids, base64). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:+/=@~-]{1,128}$/;

/** The request id given in `header`, when it is valid; undefined otherwise (absent, repeated, too long, unsafe characters). */
export function validRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : undefined;
}

/** The id of a request: the one it gives, when valid, else a new UUID (fastify's genReqId). */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'> | undefined): string {
  return validRequestId(request?.headers[REQUEST_ID_HEADER]) ?? randomUUID();
}
