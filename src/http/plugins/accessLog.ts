/**
 * One line per request (never bodies, keys or subjects): its id, role, method, route, status and
 * duration; and the request id on every answer (`X-Request-Id`, the `id` of the line). Registered
 * first, so its clock starts before any other hook runs and every answer, a refusal of a later
 * hook included, carries the id.
 */
import type { FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from '../requestId.js';
import type { Role } from '../route.js';
import { rootPlugin } from './rootPlugin.js';

export interface RequestLogLine {
  time: string;
  level: 'info';
  /** The request id: the client's valid X-Request-Id, else a UUID of the server. */
  id: string;
  role: Role;
  method: string;
  route: string;
  status: number;
  durationMs: number;
}

export interface AccessLogOptions extends Record<string, unknown> {
  role: Role;
  /** Receives the lines; without it, nothing is logged. */
  log?: ((line: RequestLogLine) => void) | undefined;
}

type TimedRequest = FastifyRequest & { startedAt?: bigint };

/** The access log line of a request answered with `status`. */
export function requestLogLine(role: Role, request: FastifyRequest, status: number): RequestLogLine {
  const started = (request as TimedRequest).startedAt;
  // The CORS plugin answers every OPTIONS through its catch-all route '*': the path says more.
  const matched = request.routeOptions.url;
  return {
    time: new Date().toISOString(),
    level: 'info',
    id: String(request.id),
    role,
    method: request.method,
    route: matched !== undefined && matched !== '*' ? matched : (request.url.split('?')[0] ?? ''),
    status,
    // A request fastify refused before any hook (a malformed URL) has no start time: 0.
    durationMs: started === undefined ? 0 : Number((process.hrtime.bigint() - started) / 1000n) / 1000,
  };
}

export const accessLog = rootPlugin<AccessLogOptions>('vc-access-log', async (app, { role, log }) => {
  app.addHook('onRequest', async (request, reply) => {
    (request as TimedRequest).startedAt = process.hrtime.bigint();
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    log?.(requestLogLine(role, request, reply.statusCode));
  });
});
