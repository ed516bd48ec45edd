/**
 * Routes every role serves: readiness.
 */
import { z } from 'zod';
import { ROLES, defineRoute, type RouteDefinition } from '../route.js';
import { VERSION } from '../../version.js';

const healthSchema = z.object({ status: z.enum(['ok', 'degraded']), role: z.string(), version: z.string() });

/** GET /healthz for each role (no authentication). */
export const systemRoutes: RouteDefinition[] = ROLES.map((role) =>
  defineRoute({
    role,
    method: 'GET',
    path: '/healthz',
    summary: 'readiness of the service',
    response: healthSchema,
    handler: async () => ({ body: { status: 'ok', role, version: VERSION } }),
  }),
);
