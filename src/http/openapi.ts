/**
 * The OpenAPI document of a role, generated from the route table and the operations' schemas
 * (the same schemas that validate every request), with the examples of examples.ts: where the
 * service listens, the bearer scheme when VC_API_TOKEN is set, every error answer a route can
 * give with the JSON error body, and an example of every body.
 */
import { z } from 'zod';
import { VERSION } from '../version.js';
import { OPERATION_EXAMPLES } from './examples.js';
import { REQUEST_ID_PATTERN } from './requestId.js';
import { MAX_KEY_LENGTH } from './idempotentRequests.js';
import { isOpenPath, pathParameters, requestSchema, type HttpRoute, type Role } from './route.js';
import { INDEX_ROUTE, OPENAPI_ROUTE, openApiPath, operationIdOf, serviceIndex, serviceIndexSchema, type ServiceRoute } from './serviceRoutes.js';

export interface OpenApiOptions {
  /** Where the role listens (its base URL); undefined on a wildcard address: the document then names its own origin ('/'). */
  serverUrl?: string | undefined;
  /** VC_API_TOKEN is set: every route but the open ones (route.ts OPEN_PATH_PATTERNS) needs the bearer token. */
  authRequired: boolean;
}

type Json = Record<string, unknown>;


const errorSchema: Json = {
  type: 'object',
  description: 'every refusal and failure of vc serve',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'stable, machine-readable: invalid_input, unauthorized, not_found, payload_too_large, data_model_violation, overloaded...' },
        message: { type: 'string', description: 'for people: what was wrong and what was expected' },
        field: { type: 'string', description: 'the input field it is about, as the route names it (a body path, a query or path parameter)' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

const requestIdHeader: Json = {
  description: 'the id of the request: the X-Request-Id it gave, when valid, else one the server made; the access log line of the request names it',
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
  example: '9b2e4c1a-7f3d-4e8b-a1c5-2d6f8e0b3a47',
};

const requestIdParameter: Json = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description: `an id for this request, echoed in the answer and the log: 1 to 128 of letters, digits and -_.:+/=@~ (another one is replaced by a new id)`,
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source, maxLength: 128 },
  example: '9b2e4c1a-7f3d-4e8b-a1c5-2d6f8e0b3a47',
};

const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

/** An error answer: its description, the error body and an example of it (and extra headers). */
function errorResponse(description: string, code: string, message: string, headers: Json = {}): Json {
  return {
    description,
    headers: { 'X-Request-Id': ref('headers', 'RequestId'), ...headers },
    content: { 'application/json': { schema: ref('schemas', 'Error'), example: { error: { code, message } } } },
  };
}

/** The error answers routes share, by component name. */
const ERROR_RESPONSES: Readonly<Record<string, Json>> = {
  BadRequest: errorResponse('the request is malformed: a missing Host header, a bad percent-encoding', 'bad_request', 'missing Host header'),
  Unauthorized: errorResponse('no or a wrong bearer token (Authorization: Bearer <VC_API_TOKEN>)', 'unauthorized', 'missing or invalid bearer token', {
    'WWW-Authenticate': { description: 'the scheme to authenticate with', schema: { type: 'string', const: 'Bearer' } },
  }),
  NotFound: errorResponse('no such resource', 'not_found', 'no node 1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff001 in the reverse hash service'),
  PayloadTooLarge: errorResponse('the body exceeds VC_BODY_LIMIT', 'payload_too_large', 'request body exceeds the limit of 1048576 bytes'),
  UnsupportedMediaType: errorResponse('the body is not application/json', 'unsupported_media_type', 'Unsupported Media Type: application/x-www-form-urlencoded'),
  Overloaded: errorResponse('the BBS+ workers are busy: nothing was done, retry after Retry-After seconds', 'overloaded', 'the BBS+ workers are busy: retry in 1 s', {
    'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
  }),
  InternalError: errorResponse('a bug or a server misconfiguration: the details are in the server log only', 'internal_error', 'internal error'),
  Error: errorResponse(
    'any other error: 404 no such resource, 409 conflict, 422 well-formed but not processable (data_model_violation: a credential breaks a rule of the VC data model, the message naming its check data-model:<rule>), 502 the chain is unreachable, 503 shutting down...',
    'conflict',
    'credential with revocation nonce 1234567 is already revoked',
  ),
};

/** A zod schema as JSON Schema (2020-12, the dialect of OpenAPI 3.1), without its $schema. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any', io }) as Json;
  return rest;
}

/** The part of an operation's example input a route takes: its own fields, or its body field. */
export function routeInputExample(route: HttpRoute): Json | undefined {
  const input = OPERATION_EXAMPLES[route.operation.name]?.input;
  if (input === undefined) return undefined;
  const hidden = new Set([...(route.omit ?? []), ...Object.keys(route.fixed ?? {})]);
  return Object.fromEntries(Object.entries(input).filter(([key]) => !hidden.has(key)));
}

/** The example body of a POST route (its body field alone when the body is not an object). */
export function requestBodyExample(route: HttpRoute): unknown {
  const input = routeInputExample(route);
  if (input === undefined || route.bodyField === undefined) return input;
  return input[route.bodyField];
}

/** The query and path parameters of a GET route, from its input schema (with the example's values). */
function parameters(route: HttpRoute): Json[] {
  const schema = jsonSchema(requestSchema(route), 'input') as { properties?: Record<string, Json>; required?: string[] };
  const inPath = pathParameters(route);
  const example = routeInputExample(route) ?? {};
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => (route.method !== 'POST' || inPath.includes(name) || route.textBody !== undefined) && name !== route.textBody)
    .map(([name, property]) => {
      const { description, ...rest } = property;
      return {
        name,
        in: inPath.includes(name) ? 'path' : 'query',
        required: inPath.includes(name) || (schema.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
        ...(example[name] !== undefined ? { example: example[name] } : {}),
      };
    });
}

/** A success answer: its body's schema and example. */
function successResponse(description: string, schema: Json, example: unknown): Json {
  return {
    description,
    headers: { 'X-Request-Id': ref('headers', 'RequestId') },
    content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
  };
}

/** Builds the OpenAPI 3.1 document for the routes of one role. */
export function buildOpenApiDocument(role: Role, routes: readonly HttpRoute[], options: OpenApiOptions = { authRequired: false }): Json {
  const used = new Set<string>();
  const use = (name: string): Json => {
    used.add(name);
    return ref('responses', name);
  };
  /** The answers every route may give besides its own: 401 behind the token, 500, and the rest. */
  const commonErrors = (path: string): Json => ({
    ...(options.authRequired && !isOpenPath(path) ? { 401: use('Unauthorized') } : {}),
    500: use('InternalError'),
    default: use('Error'),
  });
  const security = (path: string): Json => (options.authRequired && isOpenPath(path) ? { security: [] } : {});

  const paths: Record<string, Json> = {};
  const addOperation = (path: string, method: string, operation: Json): void => {
    paths[path] = { ...(paths[path] ?? {}), [method.toLowerCase()]: operation };
  };

  const serviceOperation = (service: ServiceRoute, schema: Json, example: unknown): void => {
    addOperation(service.path, service.method, {
      operationId: service.operationId,
      summary: service.summary,
      parameters: [ref('parameters', 'RequestId')],
      responses: { 200: successResponse('success', schema, example), 400: use('BadRequest'), ...commonErrors(service.path) },
    });
  };
  serviceOperation(INDEX_ROUTE, jsonSchema(serviceIndexSchema, 'output'), serviceIndex(role, routes, options.authRequired));
  serviceOperation(OPENAPI_ROUTE, { type: 'object', description: 'an OpenAPI 3.1 document' }, { openapi: '3.1.0', info: { title: `vc ${role} service`, version: VERSION }, paths: {} });

  for (const route of routes) {
    const path = openApiPath(route.path);
    const status = typeof route.status === 'number' ? route.status : 200;
    const examples = OPERATION_EXAMPLES[route.operation.name];
    const resultSchema = route.operation.result === undefined ? { description: 'a JSON value' } : jsonSchema(route.operation.result, 'output');
    const responses: Json = { [status]: successResponse('success', resultSchema, examples?.result) };
    if (route.negativeStatus !== undefined) responses[route.negativeStatus] = successResponse('a negative result, with the same body (not ready, not verified)', resultSchema, examples?.result);
    // Every input is checked: a body failing its schema, malformed JSON, a bad query or path parameter.
    const firstField = route.bodyField === undefined ? Object.keys(routeInputExample(route) ?? {})[0] : undefined;
    responses[400] = errorResponse(
      'the input fails its schema (the field is named), or the body is not JSON',
      'invalid_input',
      `${route.method === 'POST' ? 'request body' : 'query string'}${firstField === undefined ? '' : `: field ${firstField}`}: invalid value`,
    );
    if (options.authRequired && !isOpenPath(route.path)) responses[401] = use('Unauthorized');
    if (pathParameters(route).length > 0) responses[404] = use('NotFound');
    if (route.method === 'POST') {
      responses[413] = use('PayloadTooLarge');
      responses[415] = use('UnsupportedMediaType');
    }
    if (route.pooled === true) responses[503] = use('Overloaded');
    Object.assign(responses, { 500: use('InternalError'), default: use('Error') });

    const operation: Json = {
      operationId: operationIdOf(route),
      summary: route.operation.summary,
      ...security(route.path),
      parameters: [...parameters(route), ref('parameters', 'RequestId')],
      responses,
    };
    if (route.textBody !== undefined) {
      const input = jsonSchema(requestSchema(route), 'input') as { properties?: Record<string, Json> };
      const example = (routeInputExample(route) ?? {})[route.textBody];
      const text = { schema: input.properties?.[route.textBody] ?? { type: 'string' }, ...(example === undefined ? {} : { example }) };
      operation.requestBody = { required: true, content: { 'text/plain': text, 'application/iden3-zkp-json': text } };
    } else if (route.method === 'POST') {
      const input = jsonSchema(requestSchema(route), 'input') as { properties?: Record<string, Json>; required?: string[] };
      const body = route.bodyField === undefined ? input : (input.properties?.[route.bodyField] ?? {});
      // A body whose fields are all optional may be left out (the server reads no body as {}).
      const required = route.bodyField !== undefined || (input.required ?? []).length > 0;
      const example = requestBodyExample(route);
      operation.requestBody = { required, content: { 'application/json': { schema: body, ...(example === undefined ? {} : { example }) } } };
      if (route.textAlternative !== undefined) {
        // Also a text body (a JWZ token), the input of another operation: its summary says what it does.
        const { field, operation: other } = route.textAlternative;
        const input = jsonSchema(other.input, 'input') as { properties?: Record<string, Json> };
        const textExample = (OPERATION_EXAMPLES[other.name]?.input as Json | undefined)?.[field];
        const text = { schema: { ...(input.properties?.[field] ?? { type: 'string' }), description: `${other.summary}` }, ...(textExample === undefined ? {} : { example: textExample }) };
        (operation.requestBody as { content: Record<string, Json> }).content['application/iden3-zkp-json'] = text;
        (operation.requestBody as { content: Record<string, Json> }).content['text/plain'] = text;
      }
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
    addOperation(path, route.method, operation);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: `vc ${role} service`,
      version: VERSION,
      description: `The ${role} routes of \`vc serve\`. Every answer is JSON and carries X-Request-Id; every error has the body {"error": {"code", "message", "field"?}}. GET / lists the routes.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [options.serverUrl === undefined ? { url: '/', description: 'the origin this document was fetched from (the service listens on every interface)' } : { url: options.serverUrl, description: `the ${role} service` }],
    ...(options.authRequired ? { security: [{ bearer: [] }] } : { security: [] }),
    paths,
    components: {
      schemas: { Error: errorSchema },
      headers: { RequestId: requestIdHeader },
      parameters: { RequestId: requestIdParameter },
      responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).filter(([name]) => used.has(name))),
      ...(options.authRequired ? { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'VC_API_TOKEN' } } } : {}),
    },
  };
}
