/**
 * One line per request (never bodies, keys or subjects): its id, role, method, route, status and
 * duration. Registered first, so its clock starts before any other hook runs.
 */
import type { FastifyRequest } from 'fastify';
import type { Role } from '../route.js';
import { rootPlugin } from './rootPlugin.js';

export interface RequestLogLine {
  time: string;
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

export const accessLog = rootPlugin<AccessLogOptions>('vc-access-log', async (app, { role, log }) => {
  app.addHook('onRequest', async (request) => {
    (request as TimedRequest).startedAt = process.hrtime.bigint();
  });
  app.addHook('onResponse', async (request, reply) => {
    const started = (request as TimedRequest).startedAt ?? process.hrtime.bigint();
    // The CORS plugin answers every OPTIONS through its catch-all route '*': the path says more.
    const matched = request.routeOptions.url;
    log?.({
      time: new Date().toISOString(),
      id: String(request.id),
      role,
      method: request.method,
      route: matched !== undefined && matched !== '*' ? matched : (request.url.split('?')[0] ?? ''),
      status: reply.statusCode,
      durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
    });
  });
});
