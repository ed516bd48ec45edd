/**
 * `vc serve`: one fastify instance per served role, each a thin adapter over the core operations
 * of the route table (routes.ts, registered by routeRegistration.ts). What every route shares is
 * a fastify plugin of its own under plugins/: the access log, graceful shutdown, HTTP protocol
 * errors, the JSON body parser, CORS, bearer authentication and the JSON error answers.
 */
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.js';
import { announceServedRhs } from '../core/pbq/rhsService.js';
import { announceServedIssuer } from '../core/status/issuerStatusLists.js';
import { InputError, describeError } from '../errors.js';
import { requestIdOf } from './requestId.js';
import { DEFAULT_PORTS, ROLES, type HttpRoute, type Role } from './route.js';
import { ROUTES } from './routes.js';
import { routeRegistration, type ListeningAddress } from './routeRegistration.js';
import { accessLog, requestLogLine, type RequestLogLine } from './plugins/accessLog.js';
import { auth } from './plugins/auth.js';
import { cors } from './plugins/cors.js';
import { errorHandler, frameworkErrorOptions } from './plugins/errorHandler.js';
import { jsonBody } from './plugins/jsonBody.js';
import { protocolErrors, protocolServerOptions } from './plugins/protocolErrors.js';
import { SHUTDOWN_SERVER_OPTIONS, shutdown } from './plugins/shutdown.js';

export type { ErrorBody } from './errorReplies.js';
export type { RequestLogLine } from './plugins/accessLog.js';
export { tokenMatches } from './plugins/auth.js';

export interface StartServerOptions {
  roles: Role[];
  /** Port for a single role (overrides PORT and the role default); 0 picks a free port. */
  port?: number | undefined;
  host?: string | undefined;
  /** Receives one line per request (never bodies, keys or subjects). */
  log?: (line: RequestLogLine) => void;
  /** Receives unexpected (500) errors with their stack. */
  logError?: (message: string) => void;
  /** Receives what goes wrong without failing a request (a BBS+ worker thread replaced); default logError. */
  logWarning?: (message: string) => void;
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
  /**
   * With the issuer role and VC_ISSUER_URL unset: the base URL its new status lists are named
   * under (its own address), and whether others can reach it (not on a wildcard address).
   */
  statusLists?: { url: string; reachable: boolean } | undefined;
  /** The BBS+ worker threads running (VC_WORKERS; 0: BBS+ runs on the main thread, or the server is closed). */
  readonly workers: number;
  /** Stops accepting, waits for in-flight requests, stops the worker threads, then resolves. */
  close(): Promise<void>;
}

/** Listen addresses on every interface: the OpenAPI document then names no absolute server. */
const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '[::]']);

/**
 * What to do when a port of several roles is taken: --port and PORT apply to a single role only,
 * so the way out is to free the port or to serve the roles one by one, each on a port of its own.
 */
export function busyPortAdvice(port: number | undefined): string {
  const defaults = [...ROLES].sort((a, b) => DEFAULT_PORTS[a] - DEFAULT_PORTS[b]).map((role) => `${role} ${DEFAULT_PORTS[role]}`).join(', ');
  return `with several roles each listens on its default port (${defaults}) and PORT is not used: free ${port === undefined ? 'the port' : `port ${port}`}, or serve the roles separately, each with --role R --port N`;
}

/** The fastify instance of one role: the plugins, then its routes. */
async function buildRoleApp(ctx: Context, role: Role, routes: readonly HttpRoute[], options: StartServerOptions, listening: ListeningAddress): Promise<FastifyInstance> {
  const { default: Fastify } = await import('fastify');
  const { server: serverConfig } = ctx.config;
  const app = Fastify({
    bodyLimit: serverConfig.bodyLimit,
    logger: false,
    // The client's X-Request-Id when it is safe to echo and log, else a UUID.
    genReqId: (request) => requestIdOf(request),
    ...SHUTDOWN_SERVER_OPTIONS,
    ...protocolServerOptions(serverConfig.bodyTimeoutSeconds),
    ...frameworkErrorOptions(options.logError, (request, status) => options.log?.(requestLogLine(role, request, status))),
  });
  // The order is the order of their onRequest hooks: the access log's clock first, then the 503
  // while closing, the Host check, CORS (a preflight is answered before any token is asked for)
  // and the bearer token.
  await app.register(accessLog, { role, log: options.log });
  await app.register(shutdown);
  await app.register(protocolErrors);
  await app.register(jsonBody, { bodyLimit: serverConfig.bodyLimit });
  await app.register(cors, { origin: serverConfig.corsOrigin });
  await app.register(auth, { token: serverConfig.apiToken });
  await app.register(errorHandler, { bodyLimit: serverConfig.bodyLimit, logError: options.logError });
  await app.register(routeRegistration, { ctx, role, routes, listening, authRequired: serverConfig.apiToken !== undefined });
  return app;
}

/** Starts the services of the given roles; resolves once every port is listening. */
export async function startServer(ctx: Context, options: StartServerOptions): Promise<RunningServer> {
  // Every role signs, derives or verifies BBS+: its randomness self-test runs before the first
  // request, here and in each worker thread that will run the BBS+ calls of the requests.
  const { prepareSelectiveDisclosure, startSelectiveDisclosureWorkers } = await import('../core/sd/ready.js');
  await prepareSelectiveDisclosure();
  const workers = await startSelectiveDisclosureWorkers(ctx, { log: options.logWarning ?? options.logError });
  // Proofs (witness and Groth16) run in a prover process, started with the first proof, so the
  // event loop keeps answering while they run; VC_WORKERS=0 keeps every call on the main thread.
  if (ctx.config.server.workers !== 0) {
    const { proveInProverProcess } = await import('../core/pbq/proverProcessing.js');
    proveInProverProcess(ctx, { log: options.logWarning ?? options.logError });
  }
  const host = options.host ?? ctx.config.server.host;
  const single = options.roles.length === 1;
  const apps: FastifyInstance[] = [];
  const urls: Partial<Record<Role, string>> = {};
  // The role and port being bound, for the message when that fails.
  let binding: { role: Role; port: number } | undefined;
  try {
    for (const role of options.roles) {
      const routes = (options.routes ?? ROUTES).filter((route) => route.role === role);
      const listening: ListeningAddress = {};
      const app = await buildRoleApp(ctx, role, routes, options, listening);
      apps.push(app);
      const port = single ? (options.port ?? ctx.config.server.port ?? DEFAULT_PORTS[role]) : (options.port !== undefined && options.port === 0 ? 0 : DEFAULT_PORTS[role]);
      binding = { role, port };
      const address = await app.listen({ port, host });
      urls[role] = address.replace('[::1]', 'localhost');
      listening.url = WILDCARD_HOSTS.has(host) ? undefined : urls[role];
    }
  } catch (error) {
    await Promise.all(apps.map((app) => app.close()));
    await workers.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'ERR_SOCKET_BAD_PORT') {
      throw new InputError(`cannot listen on port${binding === undefined ? '' : ` ${binding.port} (${binding.role})`}: ${describeError(error)} (${single ? 'choose another --port or PORT' : busyPortAdvice(binding?.port)})`, { field: 'port', cause: error });
    }
    if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN' || code === 'EINVAL') {
      throw new InputError(`cannot listen on host ${host}: ${describeError(error)} (choose another --host or VC_HOST)`, { field: 'host', cause: error });
    }
    throw error;
  }
  // Credentials name the RHS where this issuer actually listens (RHS_URL, when set, wins).
  const rhs = urls.issuer === undefined ? undefined : announceServedRhs(ctx, urls.issuer, host);
  // Status lists are named under where the issuer listens, unless VC_ISSUER_URL says otherwise.
  const statusLists = urls.issuer === undefined ? undefined : announceServedIssuer(ctx, urls.issuer, host);
  return {
    urls,
    rhs,
    statusLists,
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
