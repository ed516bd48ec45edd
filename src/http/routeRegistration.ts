/**
 * The routes of one role on its fastify instance: each route of the table (routes.ts) runs its
 * core operation on the request's input; `GET /` (the service and its routes) and the OpenAPI
 * document; and the answers for paths no route serves (404) or methods a path does not take
 * (405, with Allow).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.js';
import { invokeOperation } from '../core/operation.js';
import { sdEngine } from '../core/sd/sdEngine.js';
import { parseInput } from '../core/validate.js';
import { sendError, setFieldRenderer } from './errorReplies.js';
import { idempotencyTicket, idempotentRequests, REPLAYED_HEADER, type Answer } from './idempotentRequests.js';
import { buildOpenApiDocument } from './openapi.js';
import { rootPlugin } from './plugins/rootPlugin.js';
import { httpFieldName, pathParameters, requestSchema, type HttpRoute, type Role } from './route.js';
import { INDEX_ROUTE, OPENAPI_ROUTE, serviceIndex } from './serviceRoutes.js';

/** Where a role listens, known once it listens (undefined on a wildcard address). */
export interface ListeningAddress {
  url?: string | undefined;
}

export interface RouteRegistrationOptions extends Record<string, unknown> {
  ctx: Context;
  role: Role;
  routes: readonly HttpRoute[];
  /** Filled in once the role listens: the OpenAPI document names it as its server. */
  listening: ListeningAddress;
  /** VC_API_TOKEN is set (the OpenAPI document applies its bearer scheme). */
  authRequired: boolean;
}

/** The input of a route's operation from a request: the body (POST) or the query string (GET, DELETE), and the path parameters. */
function requestInput(route: HttpRoute, request: FastifyRequest): Record<string, unknown> | unknown {
  const params = (request.params ?? {}) as Record<string, string>;
  if (route.method !== 'POST') return { ...((request.query ?? {}) as Record<string, unknown>), ...params };
  if (route.textBody !== undefined) return { ...((request.query ?? {}) as Record<string, unknown>), ...params, [route.textBody]: request.body ?? '' };
  const body: unknown = request.body ?? {};
  if (route.bodyField !== undefined) return { [route.bodyField]: body, ...params };
  if (typeof body !== 'object' || body === null || Array.isArray(body) || pathParameters(route).length === 0) return body;
  return { ...(body as Record<string, unknown>), ...params };
}

/** Matches a concrete path against a fastify pattern with :params. */
function matchesPath(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.split('/');
  return a.length === b.length && a.every((segment, i) => segment.startsWith(':') || segment === b[i]);
}

export const routeRegistration = rootPlugin<RouteRegistrationOptions>('vc-routes', async (app, { ctx, role, routes, listening, authRequired }) => {
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
    return sendError(reply, 404, 'not_found', `no route ${request.method} ${path} on the ${role} service (GET / lists its routes, GET /openapi.json describes them)`);
  });

  const index = serviceIndex(role, routes, authRequired);
  app.get(INDEX_ROUTE.path, async () => index);
  register('GET', INDEX_ROUTE.path);
  // Built on the first request, once the role listens: the document names where.
  let openapi: Record<string, unknown> | undefined;
  app.get(OPENAPI_ROUTE.path, async () => (openapi ??= buildOpenApiDocument(role, routes, { serverUrl: listening.url, authRequired })));
  register('GET', OPENAPI_ROUTE.path);

  for (const route of routes) {
    register(route.method, route.path);
    const schema = requestSchema(route);
    const names = (path: string): string => httpFieldName(route, path).where;
    app.route({
      method: route.method,
      url: route.path,
      // Read by the body parsers (plugins/jsonBody.ts): a text body goes to this route only.
      config: { textBody: route.textBody !== undefined, textAlso: route.textAlternative !== undefined },
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
        setFieldRenderer(request, (field) => (field === undefined ? undefined : httpFieldName(route, field).field));
        // What the request may set is checked first (an omitted field is refused, not overridden).
        const alternative = route.textAlternative !== undefined && typeof request.body === 'string' ? route.textAlternative : undefined;
        const operation = alternative?.operation ?? route.operation;
        const given = alternative === undefined ? requestInput(route, request) : { [alternative.field]: request.body };
        const input = { ...(parseInput(alternative === undefined ? schema : alternative.operation.input, given, names) as Record<string, unknown>), ...route.fixed };
        const ticket = idempotencyTicket(route, request, given);
        const compute = async (): Promise<Answer> => {
          const run = () => invokeOperation(ctx, operation, input, { names, ...(ticket === undefined ? {} : { idempotency: ticket }) });
          // Mutating operations run one at a time (the wallet, the signer's nonces and the prover
          // are shared, across roles too); a coalesced one takes that turn itself, for many calls,
          // and an atomic one (a single store write) needs none.
          const result = operation.mutates === true ? await ctx.exclusive(run) : await run();
          return { status: typeof route.status === 'function' ? route.status(result) : (route.status ?? 200), body: result };
        };
        // With an Idempotency-Key, a retry waits for (or is given) the first answer, outside the exclusive turn.
        const answer = ticket === undefined ? await compute() : await (await idempotentRequests(ctx)).answer(ticket, compute);
        if ('replayed' in answer && answer.replayed) reply.header(REPLAYED_HEADER, 'true');
        return reply.code(answer.status).type('application/json').send(answer.body);
      },
    });
  }
});
