/**
 * The OpenAPI document of a role, generated from the route table and the operations' schemas
 * (the same schemas that validate every request).
 */
import { z } from 'zod';
import { VERSION } from '../version.js';
import { MAX_KEY_LENGTH } from './idempotentRequests.js';
import { pathParameters, requestSchema, type HttpRoute, type Role } from './route.js';

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

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as Record<string, unknown>;
}

/** The query and path parameters of a GET route, from its input schema. */
function parameters(route: HttpRoute): Array<Record<string, unknown>> {
  const schema = jsonSchema(requestSchema(route)) as { properties?: Record<string, unknown>; required?: string[] };
  const inPath = pathParameters(route);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: inPath.includes(name) ? 'path' : 'query',
    required: inPath.includes(name) || (schema.required ?? []).includes(name),
    schema: property,
  }));
}

/** Builds the OpenAPI 3.1 document for the routes of one role. */
export function buildOpenApiDocument(role: Role, routes: readonly HttpRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const status = typeof route.status === 'number' ? String(route.status) : '200';
    const operation: Record<string, unknown> = {
      operationId: `${route.operation.name}${route.method === 'GET' && pathParameters(route).length > 0 ? 'ById' : ''}`,
      summary: route.operation.summary,
      responses: {
        [status]: {
          description: 'success',
          content: { 'application/json': { schema: route.operation.result ? jsonSchema(route.operation.result) : {} } },
        },
        default: { description: 'error', content: { 'application/json': { schema: errorSchema } } },
      },
    };
    if (route.method === 'GET') {
      const params = parameters(route);
      if (params.length > 0) operation.parameters = params;
    } else {
      const input = jsonSchema(requestSchema(route)) as { properties?: Record<string, unknown>; required?: string[] };
      const body = route.bodyField === undefined ? input : (input.properties?.[route.bodyField] ?? {});
      // A body whose fields are all optional may be left out (the server reads no body as {}).
      const required = route.bodyField !== undefined || (input.required ?? []).length > 0;
      operation.requestBody = { required, content: { 'application/json': { schema: body } } };
    }
    if (route.idempotent === true) {
      const header = {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'any unique string (a UUID): a retry with the same key and the same body gets the first answer (kept 24 h, with Idempotent-Replayed: true; a retry while the first runs waits for it) instead of a second credential or transaction; the same key with another body is a 422 idempotency_key_reused',
        schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
      };
      operation.parameters = [...((operation.parameters as unknown[] | undefined) ?? []), header];
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
