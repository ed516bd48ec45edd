/**
 * A route of `vc serve`: `{role, method, path, operation}`. The server validates the input with
 * the operation's schema, runs it (mutating operations one at a time), and renders errors and
 * the OpenAPI document from the same declaration.
 */
import { z } from 'zod';
import type { AnyOperation } from '../core/operation.js';

export type Role = 'issuer' | 'holder' | 'verifier';
export const ROLES: readonly Role[] = ['issuer', 'holder', 'verifier'];
/** Default port of each role (PORT overrides when a single role is served). */
export const DEFAULT_PORTS: Record<Role, number> = { issuer: 3000, verifier: 4000, holder: 5000 };

export interface HttpRoute {
  role: Role;
  /** GET and DELETE take the input from the query string and path parameters, POST from the JSON body. */
  method: 'GET' | 'POST' | 'DELETE';
  /** Fastify path syntax; a `:param` is the input field of that name. */
  path: string;
  operation: AnyOperation;
  /** Input fields a request cannot set (the seed phrase stays on the command line). */
  omit?: readonly string[];
  /** Input fields the server sets. */
  fixed?: Readonly<Record<string, unknown>>;
  /** The body is this input field (a body that is not an object, such as an array). */
  bodyField?: string;
  /**
   * The body is this input field as text (a JWZ token: text/plain or application/iden3-zkp-json,
   * what wallets post), the other fields come from the query string; a JSON body is a 415.
   */
  textBody?: string;
  /**
   * A text body (text/plain or application/iden3-zkp-json: a JWZ token) is also taken, as the
   * input field `field` of this other operation (the issuer's agent: plain JSON messages, or a
   * fetch-request packed as a JWZ); a JSON body goes to the route's operation.
   */
  textAlternative?: { field: string; operation: AnyOperation };
  /**
   * The operation runs BBS+ calls on the worker pool: while the pool's queue is full, a request
   * is refused with 503 before its body is read (refusing after parsing a large body would cost
   * the event loop as much as the request).
   */
  pooled?: true;
  /**
   * The route takes an `Idempotency-Key` header (src/http/idempotentRequests.ts): a retry with the
   * same key gets the first answer instead of doing the work again (a second credential or
   * transaction).
   */
  idempotent?: true;
  /** Status of a success: fixed, or decided by the result (readiness answers 503). */
  status?: number | ((result: unknown) => number);
  /** The other status a `status` function gives, with the same result body (for the OpenAPI document). */
  negativeStatus?: number;
}

/**
 * The paths a request reaches without the bearer token (VC_API_TOKEN): readiness, which load
 * balancers probe, and what holders and verifiers read to learn a credential's status, published
 * for all: the W3C status lists, the reverse hash service's nodes (GET /node/:hash; storing nodes
 * with POST /node still needs the token) and the iden3comm agent; and what a wallet reads and
 * posts to answer an authorization request (its request_uri, the callback).
 */
export const OPEN_PATH_PATTERNS: readonly string[] = ['/healthz', '/status-lists/:id', '/node/:hash', '/agent', '/auth-requests/:id', '/callback'];

/** True when `path` (a request path, a route's pattern or its OpenAPI form) is open without the token. */
export function isOpenPath(path: string): boolean {
  const segments = path.split('/');
  return OPEN_PATH_PATTERNS.some((pattern) => {
    const expected = pattern.split('/');
    return expected.length === segments.length && expected.every((segment, i) => (segment.startsWith(':') ? segments[i] !== '' : segment === segments[i]));
  });
}

/** Declares a route (one line per route in src/http/routes.ts). */
export function route(role: Role, method: HttpRoute['method'], path: string, operation: AnyOperation, options: Omit<HttpRoute, 'role' | 'method' | 'path' | 'operation'> = {}): HttpRoute {
  return { role, method, path, operation, ...options };
}

/** The input fields a request may set: the operation's, without those omitted or fixed. */
export function requestSchema(route: HttpRoute): z.ZodType {
  const hidden = [...(route.omit ?? []), ...Object.keys(route.fixed ?? {})];
  const input = route.operation.input;
  if (hidden.length === 0) return input;
  if (!(input instanceof z.ZodObject)) throw new Error(`route ${route.method} ${route.path}: only an object input can omit fields`);
  return input.omit(Object.fromEntries(hidden.map((key) => [key, true])) as never);
}

/** The path parameters of a route (`/node/:hash` -> ['hash']). */
export function pathParameters(route: HttpRoute): string[] {
  return [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/** How a route names an input field in its error messages and bodies: a body path, a query or path parameter. */
export function httpFieldName(route: HttpRoute, path: string): { where: string; field: string | undefined } {
  const local = route.bodyField !== undefined && (path === route.bodyField || path.startsWith(`${route.bodyField}[`) || path.startsWith(`${route.bodyField}.`))
    ? path.slice(route.bodyField.length).replace(/^\./, '')
    : path;
  if (route.textBody !== undefined && local === route.textBody) return { where: 'request body', field: undefined };
  if (route.textAlternative !== undefined && local === route.textAlternative.field) return { where: 'request body', field: undefined };
  if (route.method === 'POST' && route.textBody === undefined) return { where: local === '' ? 'request body' : `request body: field ${local}`, field: local === '' ? undefined : local };
  // GET and DELETE: path parameters and the query string.
  const top = local.split(/[.[]/, 1)[0]!;
  if (pathParameters(route).includes(top)) return { where: `path parameter ${local}`, field: local };
  return { where: local === '' ? 'query string' : `query string: field ${local}`, field: local === '' ? undefined : local };
}
