/**
 * `vc serve`: one fastify instance per served role, each a thin adapter over the core operations
 * of the route table (src/http/routes.ts). Cross-cutting behaviour lives here: body validation,
 * size and content-type limits, bearer authentication, CORS, JSON errors, request logs,
 * serialisation of mutating requests and graceful close.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import { invokeOperation } from '../core/operation.js';
import { sdEngine } from '../core/sd/sdEngine.js';
import { announceServedRhs } from '../core/pbq/rhsService.js';
import { parseInput } from '../core/validate.js';
import { InputError, OverloadedError, asConnectionFailure, isVcError, describeError, redactUrls } from '../errors.js';
import { parseJsonText } from '../jsonInput.js';
import { DEFAULT_PORTS, httpFieldName, pathParameters, requestSchema, type HttpRoute, type Role } from './route.js';
import { ROUTES } from './routes.js';
import { buildOpenApiDocument } from './openapi.js';

export interface RequestLogLine {
  time: string;
  id: string;
  role: Role;
  method: string;
  route: string;
  status: number;
  durationMs: number;
}

export interface StartServerOptions {
  roles: Role[];
  /** Port for a single role (overrides PORT and the role default); 0 picks a free port. */
  port?: number | undefined;
  host?: string | undefined;
  /** Receives one line per request (never bodies, keys or subjects). */
  log?: (line: RequestLogLine) => void;
  /** Receives unexpected (500) errors with their stack. */
  logError?: (message: string) => void;
  /** The routes to serve (default: every route of the project); tests pass their own. */
  routes?: readonly HttpRoute[];
}

export interface RunningServer {
  /** Base URL of each served role. */
  urls: Partial<Record<Role, string>>;
  /**
   * With the issuer role and RHS_URL unset: the reverse hash service its credentials name (its
   * own address), and whether others can reach it (not on a wildcard address).
   */
  rhs?: { url: string; reachable: boolean } | undefined;
  /** The BBS+ worker threads running (VC_WORKERS; 0: BBS+ runs on the main thread, or the server is closed). */
  readonly workers: number;
  /** Stops accepting, waits for in-flight requests, stops the worker threads, then resolves. */
  close(): Promise<void>;
}

export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of a presented bearer token against the configured one. */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(sha256(presented), sha256(expected));
}

function errorBody(code: string, message: string, field?: string): ErrorBody {
  return { error: { code, message, ...(field !== undefined ? { field } : {}) } };
}

function sendError(reply: FastifyReply, status: number, code: string, message: string, field?: string): FastifyReply {
  return reply.code(status).type('application/json').send(errorBody(code, message, field));
}

/**
 * How often Node looks for requests past their timeout: its default (30 s) would let a slow body
 * live up to 30 s past VC_BODY_TIMEOUT.
 */
const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/**
 * Answers an error found below fastify (the HTTP parser, Node's request timeout, CONNECT) with a
 * raw response in our JSON shape, then closes the connection: the rest of its bytes cannot be
 * trusted. Nothing is written once a response has started on the socket, as Node itself does.
 */
function writeRawError(socket: Duplex, status: number, code: string, message: string): void {
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true;
  if (socket.destroyed || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(code, message));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // Once flushed, drop whatever the client still sends; a client that never reads is dropped anyway.
  const timer = setTimeout(() => socket.destroy(), 1000);
  timer.unref();
  socket.once('finish', () => {
    clearTimeout(timer);
    socket.destroy();
  });
}

/** Maps an error of Node's HTTP layer (llhttp's HPE_* codes, timeouts) to a status and code. */
function clientErrorStatus(error: NodeJS.ErrnoException, timeoutSeconds: number): { status: number; code: string; message: string } {
  switch (error.code) {
    // Node counts the request line in the header size: a long URL lands here too (llhttp has no URI-too-long error).
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'header_too_large', message: `the request line and headers exceed ${maxHeaderSize} bytes` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'payload_too_large', message: 'chunk extensions too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: `the request (headers and body) did not arrive within ${timeoutSeconds} s` };
    default:
      return { status: 400, code: 'bad_request', message: `malformed HTTP request${error.code !== undefined ? ` (${error.code})` : ''}` };
  }
}

/** Maps fastify's routing errors (raised before any hook runs) to a status and code. */
function frameworkErrorStatus(error: FastifyError): { status: number; code: string; message: string } {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'invalid_url', message: 'the request URL is malformed (invalid percent-encoding or form)' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, code: 'uri_too_long', message: 'a path parameter exceeds 100 characters' };
    default: {
      const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      return status === 500 ? { status, code: 'internal_error', message: 'internal error' } : { status, code: 'bad_request', message: describeError(error) };
    }
  }
}

/** Maps fastify's own errors (parsing, limits) to our JSON error bodies. */
function fastifyErrorStatus(error: { code?: string; statusCode?: number }): { status: number; code: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'invalid_json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'invalid_request' };
    default:
      if (error.statusCode === 400) return { status: 400, code: 'invalid_json' };
      return undefined;
  }
}

/** The input of a route's operation from a request: the body (POST) or the query string (GET), and the path parameters. */
function requestInput(route: HttpRoute, request: FastifyRequest): Record<string, unknown> | unknown {
  const params = (request.params ?? {}) as Record<string, string>;
  if (route.method === 'GET') return { ...((request.query ?? {}) as Record<string, unknown>), ...params };
  const body: unknown = request.body ?? {};
  if (route.bodyField !== undefined) return { [route.bodyField]: body, ...params };
  if (typeof body !== 'object' || body === null || Array.isArray(body) || pathParameters(route).length === 0) return body;
  return { ...(body as Record<string, unknown>), ...params };
}

/** An error's field as this route names it (a body path, a query or path parameter). */
type FieldRenderer = (field: string | undefined) => string | undefined;

async function buildRoleApp(ctx: Context, role: Role, routes: readonly HttpRoute[], options: StartServerOptions): Promise<FastifyInstance> {
  const { default: Fastify, errorCodes } = await import('fastify');
  const { server: serverConfig } = ctx.config;
  const bodyTimeoutMs = serverConfig.bodyTimeoutSeconds * 1000;
  const app = Fastify({
    bodyLimit: serverConfig.bodyLimit,
    logger: false,
    genReqId: () => randomUUID(),
    // Responses are JSON written by us; fastify's own plain-text errors are replaced below.
    // While closing, new requests get a 503 from the onRequest hook below, in our JSON shape
    // (fastify's own 503 has another body).
    return503OnClosing: false,
    // On close, drop idle keep-alive connections at once (in-flight requests still finish);
    // otherwise shutdown waits for the clients' keep-alive timeout.
    forceCloseConnections: 'idle',
    // The whole request (headers and body) must arrive within VC_BODY_TIMEOUT, or a client
    // trickling a body holds a connection forever (fastify's default is no limit). Node checks
    // only every connectionsCheckingInterval. Set through `http` (the options of
    // http.createServer) rather than a serverFactory, which would turn off fastify's
    // keepAliveTimeout and its second binding of `localhost` (IPv4 and IPv6).
    requestTimeout: bodyTimeoutMs,
    http: {
      requestTimeout: bodyTimeoutMs,
      headersTimeout: bodyTimeoutMs,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
      // Node answers a missing Host with a bare 400; the onRequest hook answers it in JSON.
      requireHostHeader: false,
    },
    // Errors below the routes: the HTTP parser and Node's timeouts...
    clientErrorHandler: (error, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) {
        socket.destroy();
        return;
      }
      const { status, code, message } = clientErrorStatus(error, serverConfig.bodyTimeoutSeconds);
      writeRawError(socket, status, code, message);
    },
    // ...and fastify's routing (a bad percent-encoding, an over-long path parameter).
    frameworkErrors: (error, _request, reply) => {
      const { status, code, message } = frameworkErrorStatus(error);
      if (status === 500) options.logError?.(error.stack ?? error.message);
      void sendError(reply, status, code, message);
    },
  });
  // Node answers these without a request reaching fastify: an unknown Expect (bare 417) and
  // CONNECT (connection dropped).
  app.server.on('checkExpectation', (_request, response) => {
    const body = JSON.stringify(errorBody('expectation_failed', 'only "Expect: 100-continue" is supported'));
    response.writeHead(417, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
  });
  app.server.on('connect', (_request, socket: Duplex) => {
    writeRawError(socket, 405, 'method_not_allowed', 'CONNECT is not allowed');
  });
  // Bodies are JSON only: fastify's default text/plain parser would turn a text body into a
  // string that then fails the schema with a 400 instead of the 415 it deserves.
  app.removeContentTypeParser('text/plain');
  // JSON bodies go through the strict parser of CLI input files: a duplicated key, nesting deeper
  // than MAX_JSON_DEPTH or an unsafe integer is a 400 naming its path (an InvalidJsonError), like
  // a syntax error. `application/json; charset=utf-8` and other parameters match this parser too.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: serverConfig.bodyLimit }, (_request, body, done) => {
    // As before: an empty body with a JSON content type is fastify's own 400 (invalid_json).
    if (body.length === 0) {
      done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
      return;
    }
    let value: unknown;
    try {
      value = parseJsonText(body as string, 'request body');
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });
  // While shutting down, responses to in-flight requests close their connection, so clients'
  // keep-alive sockets do not hold the server open until their idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  const openapi = buildOpenApiDocument(role, routes);

  app.addHook('onRequest', async (request, reply) => {
    (request as FastifyRequest & { startedAt?: bigint }).startedAt = process.hrtime.bigint();
    if (closing) return sendError(reply, 503, 'service_unavailable', 'the server is shutting down');
    // HTTP/1.1 requires Host (RFC 9112 3.2); Node's own check (requireHostHeader) has no JSON body.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('connection', 'close');
      return sendError(reply, 400, 'bad_request', 'missing Host header');
    }
    if (serverConfig.corsOrigin !== undefined) {
      reply.header('Access-Control-Allow-Origin', serverConfig.corsOrigin);
      reply.header('Vary', 'Origin');
      if (request.method === 'OPTIONS') {
        reply.header('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
        reply.header('Access-Control-Allow-Headers', 'Content-Type, Authorization');
        return reply.code(204).send();
      }
    }
    const path = request.url.split('?')[0];
    if (serverConfig.apiToken !== undefined && path !== '/healthz') {
      const header = request.headers.authorization;
      const presented = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
      if (!tokenMatches(presented, serverConfig.apiToken)) {
        reply.header('WWW-Authenticate', 'Bearer');
        return sendError(reply, 401, 'unauthorized', 'missing or invalid bearer token');
      }
    }
    return undefined;
  });

  app.addHook('onResponse', async (request, reply) => {
    const started = (request as FastifyRequest & { startedAt?: bigint }).startedAt ?? process.hrtime.bigint();
    options.log?.({
      time: new Date().toISOString(),
      id: String(request.id),
      role,
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
      status: reply.statusCode,
      durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
    });
  });

  app.setErrorHandler((raised, request, reply) => {
    // The connection closed before the body arrived (the client left, or the request timeout or
    // a parse error closed it): nobody reads an answer, and it is no upstream failure to log.
    if (request.raw.destroyed && !request.raw.complete) return sendError(reply, 400, 'bad_request', 'the connection closed before the request body arrived');
    // A lost connection inside a library call (the chain node died) is a 502, not a bug.
    const error = asConnectionFailure(raised) ?? raised;
    if (isVcError(error)) {
      const field = ((request as FastifyRequest & { renderField?: FieldRenderer }).renderField ?? ((name: string | undefined) => name))(error.field);
      // A full worker queue: nothing was done, the same request succeeds later. Not a fault to
      // log (under overload that would be one line per refused request), and its message names
      // no path or secret.
      if (error instanceof OverloadedError) {
        reply.header('Retry-After', String(error.retryAfterSeconds));
        return sendError(reply, error.httpStatus, error.code, error.message, field);
      }
      if (error.httpStatus >= 500) {
        options.logError?.(`${error.name}: ${error.message}`);
        // Server-side faults (configuration, store) can name paths and variables: the operator
        // reads them in the log, the client gets the code only. Upstream (chain) errors stay.
        if (error.httpStatus !== 502) return sendError(reply, error.httpStatus, error.code, `${error.code.replace(/_/g, ' ')} on the server (see its log)`, field);
      }
      // Upstream errors name the URL that failed: its origin only, never a key in its path.
      return sendError(reply, error.httpStatus, error.code, error.httpStatus === 502 ? redactUrls(error.message) : error.message, field);
    }
    const known = fastifyErrorStatus(error as { code?: string; statusCode?: number });
    if (known !== undefined) {
      const code = (error as { code?: string }).code;
      const message =
        known.status === 413
          ? `request body exceeds the limit of ${serverConfig.bodyLimit} bytes`
          : code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'request body is empty: expected a JSON object'
            : describeError(error);
      return sendError(reply, known.status, known.code, message);
    }
    options.logError?.(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return sendError(reply, 500, 'internal_error', 'internal error');
  });

  const methodsByPath = new Map<string, string[]>();
  const register = (method: string, path: string): void => {
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
  };

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = [...methodsByPath.entries()].find(([pattern]) => matchesPath(pattern, path))?.[1];
    if (allowed !== undefined) {
      reply.header('Allow', allowed.join(', '));
      return sendError(reply, 405, 'method_not_allowed', `${request.method} is not allowed on ${path} (allowed: ${allowed.join(', ')})`);
    }
    return sendError(reply, 404, 'not_found', `no route ${request.method} ${path} on the ${role} service`);
  });

  app.get('/openapi.json', async () => openapi);
  register('GET', '/openapi.json');

  for (const route of routes) {
    register(route.method, route.path);
    const schema = requestSchema(route);
    const names = (path: string): string => httpFieldName(route, path).where;
    app.route({
      method: route.method,
      url: route.path,
      // A full worker queue refuses the request before its body is read and parsed.
      ...(route.pooled === true
        ? {
            onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
              const refusal = (await sdEngine(ctx)).overloaded?.();
              if (refusal === undefined) return;
              // The body stays unread, so the connection cannot carry another request: closed.
              // The error handler answers as for any OverloadedError (503, Retry-After).
              reply.header('connection', 'close');
              throw refusal;
            },
          }
        : {}),
      handler: async (request, reply) => {
        (request as FastifyRequest & { renderField?: FieldRenderer }).renderField = (field) => (field === undefined ? undefined : httpFieldName(route, field).field);
        // What the request may set is checked first (an omitted field is refused, not overridden).
        const input = { ...(parseInput(schema, requestInput(route, request), names) as Record<string, unknown>), ...route.fixed };
        const run = () => invokeOperation(ctx, route.operation, input, { names });
        // Mutating operations run one at a time (the wallet, the signer's nonces and the prover
        // are shared, across roles too); a coalesced one takes that turn itself, for many calls.
        const result = route.operation.mutates === true ? await ctx.exclusive(run) : await run();
        const status = typeof route.status === 'function' ? route.status(result) : (route.status ?? 200);
        return reply.code(status).type('application/json').send(result);
      },
    });
  }
  return app;
}

/** Matches a concrete path against a fastify pattern with :params. */
function matchesPath(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((segment, i) => segment.startsWith(':') || segment === b[i]);
}

/** Starts the services of the given roles; resolves once every port is listening. */
export async function startServer(ctx: Context, options: StartServerOptions): Promise<RunningServer> {
  // Every role signs, derives or verifies BBS+: its randomness self-test runs before the first
  // request, here and in each worker thread that will run the BBS+ calls of the requests.
  const { prepareSelectiveDisclosure, startSelectiveDisclosureWorkers } = await import('../core/sd/ready.js');
  await prepareSelectiveDisclosure();
  const workers = await startSelectiveDisclosureWorkers(ctx, { log: options.logError });
  const host = options.host ?? ctx.config.server.host;
  const single = options.roles.length === 1;
  const apps: FastifyInstance[] = [];
  const urls: Partial<Record<Role, string>> = {};
  try {
    for (const role of options.roles) {
      const routes = (options.routes ?? ROUTES).filter((route) => route.role === role);
      const app = await buildRoleApp(ctx, role, routes, options);
      apps.push(app);
      const port = single ? (options.port ?? ctx.config.server.port ?? DEFAULT_PORTS[role]) : (options.port !== undefined && options.port === 0 ? 0 : DEFAULT_PORTS[role]);
      const address = await app.listen({ port, host });
      urls[role] = address.replace('[::1]', 'localhost');
    }
  } catch (error) {
    await Promise.all(apps.map((app) => app.close()));
    await workers.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'ERR_SOCKET_BAD_PORT') {
      throw new InputError(`cannot listen on port: ${describeError(error)} (choose another --port or PORT)`, { field: 'port', cause: error });
    }
    if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN' || code === 'EINVAL') {
      throw new InputError(`cannot listen on host ${host}: ${describeError(error)} (choose another --host or VC_HOST)`, { field: 'host', cause: error });
    }
    throw error;
  }
  // Credentials name the RHS where this issuer actually listens (RHS_URL, when set, wins).
  const rhs = urls.issuer === undefined ? undefined : announceServedRhs(ctx, urls.issuer, host);
  return {
    urls,
    rhs,
    get workers() {
      return workers.size;
    },
    close: async () => {
      // In-flight requests finish first (their BBS+ calls included), then the threads stop.
      await Promise.all(apps.map((app) => app.close()));
      await workers.close();
    },
  };
}
