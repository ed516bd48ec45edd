/**
 * Routes every role serves: readiness.
 */
import { z } from 'zod';
import { ROLES, defineRoute, type RouteDefinition } from '../route.js';
import { checkHealth } from '../../core/health.js';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  role: z.string(),
  version: z.string(),
  chain: z.object({ embedded: z.boolean(), chainId: z.number(), reachable: z.boolean(), state: z.string(), problem: z.string().optional() }),
  circuits: z.object({ present: z.boolean(), path: z.string().optional(), problem: z.string().optional() }),
});

/** GET /healthz for each role (no authentication). */
export const systemRoutes: RouteDefinition[] = ROLES.map((role) =>
  defineRoute({
    role,
    method: 'GET',
    path: '/healthz',
    summary: 'readiness of the service',
    response: healthSchema,
    // 503 when not ready, so load balancers and orchestrators can act on the status alone.
    handler: async (ctx) => {
      const report = await checkHealth(ctx, role);
      return { status: report.status === 'ok' ? 200 : 503, body: report };
    },
  }),
);
