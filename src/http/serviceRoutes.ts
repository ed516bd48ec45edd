/**
 * The routes every role serves about itself, beside those of its operations: `GET /`, what the
 * service is and which routes it has, and `GET /openapi.json`, its OpenAPI document.
 */
import { z } from 'zod';
import { VERSION } from '../version.js';
import { pathParameters, type HttpRoute, type Role } from './route.js';

export interface ServiceRoute {
  method: 'GET';
  path: string;
  operationId: string;
  summary: string;
}

export const INDEX_ROUTE: ServiceRoute = {
  method: 'GET',
  path: '/',
  operationId: 'service.index',
  summary: 'this service: its role, version, routes and where its OpenAPI document is',
};

export const OPENAPI_ROUTE: ServiceRoute = {
  method: 'GET',
  path: '/openapi.json',
  operationId: 'service.openapi',
  summary: 'the OpenAPI document of the role, from the same schemas',
};

export const SERVICE_ROUTES: readonly ServiceRoute[] = [INDEX_ROUTE, OPENAPI_ROUTE];

/** The answer of `GET /`. */
export const serviceIndexSchema = z.object({
  service: z.string(),
  role: z.string(),
  version: z.string(),
  openapi: z.string().describe('the path of the OpenAPI document'),
  authentication: z.enum(['none', 'bearer']).describe('bearer: every route but /healthz, GET /status-lists/{id}, GET /node/{hash} and POST /agent needs Authorization: Bearer <VC_API_TOKEN>'),
  routes: z.array(
    z.object({
      method: z.string(),
      path: z.string().describe('OpenAPI path template: {name} is a path parameter'),
      operationId: z.string(),
      summary: z.string(),
    }),
  ),
});
export type ServiceIndex = z.output<typeof serviceIndexSchema>;

/** A route's path as OpenAPI writes it (`/node/:hash` -> `/node/{hash}`). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** A route's operationId: the operation's name, `ById` for the GET of one item by a path parameter. */
export function operationIdOf(route: HttpRoute): string {
  return `${route.operation.name}${route.method === 'GET' && pathParameters(route).length > 0 ? 'ById' : ''}`;
}

/** The answer of `GET /` for the routes of a role. */
export function serviceIndex(role: Role, routes: readonly HttpRoute[], authRequired: boolean): ServiceIndex {
  return {
    service: `vc ${role} service`,
    role,
    version: VERSION,
    openapi: OPENAPI_ROUTE.path,
    authentication: authRequired ? 'bearer' : 'none',
    routes: [
      ...SERVICE_ROUTES.map(({ method, path, operationId, summary }) => ({ method, path, operationId, summary })),
      ...routes.map((route) => ({ method: route.method, path: openApiPath(route.path), operationId: operationIdOf(route), summary: route.operation.summary })),
    ],
  };
}
