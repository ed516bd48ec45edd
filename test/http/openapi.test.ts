/**
 * The OpenAPI documents of the three roles, with and without a token: the rules of a linter's
 * recommended set that a generated document can break (servers, security, a 2xx and a 4xx answer
 * per operation, unique operationIds, resolvable and used components, licence, an example for every
 * body, no mixed number ranges), and every example checked against the operation's own zod schema,
 * so the examples cannot drift. (openapi.lint.test.ts runs Redocly's recommended rules themselves.)
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, requestBodyExample, routeInputExample, type OpenApiOptions } from '../../src/http/openapi.js';
import { OPERATION_EXAMPLES } from '../../src/http/examples.js';
import { pathParameters, requestSchema, ROLES, type Role } from '../../src/http/route.js';
import { ROUTES } from '../../src/http/routes.js';
import { serviceIndexSchema } from '../../src/http/serviceRoutes.js';

type Json = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];
const OPTIONS: OpenApiOptions[] = [
  { authRequired: false, serverUrl: 'http://127.0.0.1:3000' },
  { authRequired: true, serverUrl: undefined },
];

function documentOf(role: Role, options: OpenApiOptions): Json {
  return buildOpenApiDocument(role, ROUTES.filter((route) => route.role === role), options) as Json;
}

/** Every value of `node` with the JSON path to it. */
function* walk(node: unknown, path: string[] = []): Generator<[string[], unknown]> {
  yield [path, node];
  if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) yield* walk(value, [...path, key]);
  }
}

function resolve(doc: Json, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** `node`, or what its $ref points to. */
function deref(doc: Json, node: Json): Json {
  return typeof node.$ref === 'string' ? (resolve(doc, node.$ref) as Json) : node;
}

function operationsOf(doc: Json): Array<{ path: string; method: string; operation: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );
}

describe.each(ROLES.flatMap((role) => OPTIONS.map((options) => ({ role, options }))))('the OpenAPI document of the $role service (token: $options.authRequired)', ({ role, options }) => {
  const doc = documentOf(role, options);
  const operations = operationsOf(doc);

  it('names its server, licence and version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers.length).toBeGreaterThan(0);
    for (const server of doc.servers as Json[]) {
      expect(server.url === '/' || !server.url.endsWith('/'), server.url).toBe(true);
      expect(server.url).not.toMatch(/example\.com/);
    }
    expect(doc.servers[0].url).toBe(options.serverUrl ?? '/');
    expect(doc.info.license.identifier ?? doc.info.license.url).toBeTruthy();
  });

  it('lists GET / and GET /openapi.json beside the routes of the role', () => {
    expect(doc.paths['/']?.get?.operationId).toBe('service.index');
    expect(doc.paths['/openapi.json']?.get?.operationId).toBe('service.openapi');
    for (const route of ROUTES.filter((candidate) => candidate.role === role)) {
      expect(doc.paths[route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it('applies the bearer scheme exactly when a token is required, /healthz and the status routes open', () => {
    // Open: readiness, what holders and verifiers read of a status (lists, RHS nodes, the iden3comm
    // agent), and what a wallet reads and posts to answer an authorization request.
    const openRoutes: Array<[string, 'get' | 'post']> = [['/healthz', 'get'], ['/status-lists/{id}', 'get'], ['/node/{hash}', 'get'], ['/agent', 'post'], ['/auth-requests/{id}', 'get'], ['/callback', 'post']];
    const open = openRoutes.map(([path]) => path);
    if (options.authRequired) {
      expect(doc.security).toEqual([{ bearer: [] }]);
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      for (const [path, method] of openRoutes.filter(([candidate]) => doc.paths[candidate] !== undefined)) {
        expect(doc.paths[path][method].security, path).toEqual([]);
        expect(doc.paths[path][method].responses['401'], path).toBeUndefined();
      }
      if (role === 'issuer') {
        for (const path of ['/status-lists/{id}', '/node/{hash}', '/agent']) expect(doc.paths[path], path).toBeDefined();
        // Storing nodes is not a read: POST /node still needs the token.
        expect(doc.paths['/node'].post.security).toBeUndefined();
      }
      for (const { path, operation } of operations.filter((entry) => !open.includes(entry.path))) {
        expect(operation.security, path).toBeUndefined();
        expect(deref(doc, operation.responses['401']).content['application/json'].example.error.code, path).toBe('unauthorized');
      }
    } else {
      expect(doc.security).toEqual([]);
      expect(doc.components.securitySchemes).toBeUndefined();
      for (const { operation } of operations) expect(operation.responses['401']).toBeUndefined();
    }
    // Every security requirement names a defined scheme.
    for (const [, node] of walk(doc)) {
      if (node === null || typeof node !== 'object') continue;
      for (const requirement of ((node as Json).security ?? []) as Json[]) {
        for (const name of Object.keys(requirement)) expect(doc.components.securitySchemes?.[name], name).toBeDefined();
      }
    }
  });

  it('gives every operation a unique, URL-safe operationId, a summary, a 2xx and a 4xx answer, and its path parameters', () => {
    const ids = operations.map(({ operation }) => operation.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation } of operations) {
      const where = `${method} ${path}`;
      expect(operation.operationId, where).toMatch(/^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]+$/);
      expect(operation.summary, where).toBeTruthy();
      const codes = Object.keys(operation.responses);
      expect(codes.some((code) => /^2/.test(code)), where).toBe(true);
      expect(codes.some((code) => /^4/.test(code)), where).toBe(true);
      const declared = ((operation.parameters ?? []) as Json[]).map((parameter) => deref(doc, parameter)).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      expect(declared.sort(), where).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort());
    }
  });

  it('documents its errors with the JSON error body', () => {
    for (const { path, method, operation } of operations) {
      for (const [code, response] of Object.entries(operation.responses as Json)) {
        if (!/^[45]|^default$/.test(code)) continue;
        // A negative result (not ready 503, not verified 422) has the body of a success.
        if ((response as Json).description?.startsWith('a negative result') === true) continue;
        const content = deref(doc, response as Json).content['application/json'];
        expect(content.schema, `${method} ${path} ${code}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
      expect(operation.responses['400'], `${method} ${path}`).toBeDefined();
      expect(operation.responses['500'], `${method} ${path}`).toBeDefined();
    }
    expect(doc.components.schemas.Error.required).toEqual(['error']);
  });

  it('has an example for every body, request and answer', () => {
    for (const [path, node] of walk(doc)) {
      if (path.at(-2) !== 'content' || path.at(-1) !== 'application/json') continue;
      expect((node as Json).example, path.join('.')).toBeDefined();
    }
  });

  it('resolves every $ref and uses every component', () => {
    const refs = new Set<string>();
    for (const [path, node] of walk(doc)) {
      if (path.at(-1) !== '$ref') continue;
      expect(resolve(doc, node as string), node as string).toBeDefined();
      refs.add(node as string);
    }
    for (const [kind, components] of Object.entries(doc.components as Json)) {
      if (kind === 'securitySchemes') continue;
      for (const name of Object.keys(components as Json)) expect(refs.has(`#/components/${kind}/${name}`), `${kind}/${name}`).toBe(true);
    }
  });

  it('never mixes minimum with exclusiveMinimum (or maximum with exclusiveMaximum)', () => {
    for (const [path, node] of walk(doc)) {
      if (node === null || typeof node !== 'object') continue;
      const schema = node as Json;
      expect(typeof schema.minimum === 'number' && typeof schema.exclusiveMinimum === 'number', path.join('.')).toBe(false);
      expect(typeof schema.maximum === 'number' && typeof schema.exclusiveMaximum === 'number', path.join('.')).toBe(false);
    }
  });
});

describe('the examples of the OpenAPI documents', () => {
  it('has an example input and result for every operation a route serves', () => {
    for (const route of ROUTES) expect(OPERATION_EXAMPLES[route.operation.name], route.operation.name).toMatchObject({ input: expect.any(Object), result: expect.anything() });
  });

  it('gives each route an input its own schema accepts, as it is (no field dropped)', () => {
    for (const route of ROUTES) {
      const where = `${route.role} ${route.method} ${route.path}`;
      const input = routeInputExample(route)!;
      const parsed = requestSchema(route).safeParse(input);
      expect(parsed.success, `${where}: ${parsed.error?.message}`).toBe(true);
      expect(parsed.data, where).toEqual(input);
      if (route.method === 'POST') expect(requestBodyExample(route), where).toEqual(route.bodyField === undefined ? input : input[route.bodyField]);
      for (const name of pathParameters(route)) expect(typeof input[name], where).toBe('string');
    }
  });

  it('gives each operation a result its result schema accepts, as it is (no field dropped)', () => {
    for (const route of ROUTES) {
      const { result } = OPERATION_EXAMPLES[route.operation.name]!;
      if (route.operation.result === undefined) continue;
      const parsed = route.operation.result.safeParse(result);
      expect(parsed.success, `${route.operation.name}: ${parsed.error?.message}`).toBe(true);
      expect(parsed.data, route.operation.name).toEqual(result);
    }
  });

  it('gives GET / an example its schema accepts', () => {
    for (const role of ROLES) {
      const example = documentOf(role, OPTIONS[0]!).paths['/'].get.responses['200'].content['application/json'].example;
      expect(serviceIndexSchema.parse(example)).toEqual(example);
    }
  });
});
