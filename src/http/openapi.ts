/**
 * The OpenAPI document of a role, generated from the same zod schemas that validate bodies.
 */
import { z } from 'zod';
import { VERSION } from '../version.js';
import type { Role, RouteDefinition } from './route.js';

const errorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

function jsonSchema(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' });
}

/** Builds the OpenAPI 3.1 document for the routes of one role. */
export function buildOpenApiDocument(role: Role, routes: RouteDefinition[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation: Record<string, unknown> = {
      summary: route.summary,
      responses: {
        '200': {
          description: 'success',
          content: { 'application/json': { schema: route.response ? jsonSchema(route.response) : {} } },
        },
        default: { description: 'error', content: { 'application/json': { schema: errorSchema } } },
      },
    };
    const params = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (params.length > 0) operation.parameters = params;
    if (route.body !== undefined) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } };
    }
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: `vc ${role} service`, version: VERSION },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
