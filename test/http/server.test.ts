import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { ConflictError, UnprocessableError } from '../../src/errors.js';
import { defineOperation } from '../../src/core/operation.js';
import { route, type HttpRoute } from '../../src/http/route.js';
import { ROUTES } from '../../src/http/routes.js';
import { busyPortAdvice, startServer, tokenMatches, type RequestLogLine, type RunningServer } from '../../src/http/server.js';
import { tempDir } from '../helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const tmp = tempDir('vc-http-');
const logs: RequestLogLine[] = [];
let server: RunningServer;
let ctx: Context;
let base: string;
let inFlight = 0;
let maxInFlight = 0;

const echoSchema = z.object({ name: z.string().min(1), count: z.number().int().optional() });
const echo = defineOperation({
  name: 'test.echo',
  summary: 'echo',
  input: echoSchema,
  mutates: false,
  run: async (_ctx, input) => {
    if (input.name === 'conflict') throw new ConflictError('already exists', { field: 'name' });
    if (input.name === 'unprocessable') throw new UnprocessableError('cannot process that name', { field: 'name' });
    if (input.name === 'bug') throw new TypeError('secret internal detail');
    return { hello: input.name };
  },
});
const slow = defineOperation({
  name: 'test.slow',
  summary: 'a mutating slow operation',
  input: z.object({}),
  mutates: true,
  run: async () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 100));
    inFlight--;
    return { done: true };
  },
});
const testRoutes: HttpRoute[] = [
  ...ROUTES.filter((candidate) => candidate.path === '/healthz'),
  route('verifier', 'POST', '/echo', echo),
  ...(['verifier', 'holder'] as const).map((role) => route(role, 'POST', '/slow', slow)),
];

beforeAll(async () => {
  // An empty CIRCUITS_PATH makes readiness deterministic: the circuits are missing. The test routes make no
  // BBS+ call: VC_WORKERS=0 starts no worker threads (each loads and self-tests the BBS+ libraries).
  const config = parseConfig({ VC_API_TOKEN: TOKEN, VC_BODY_LIMIT: '2048', CIRCUITS_PATH: tmp.dir, VC_WORKERS: '0' }, path.join(tmp.dir, 'home'));
  ctx = new Context({ config });
  server = await startServer(ctx, { roles: ['verifier', 'holder'], port: 0, routes: testRoutes, log: (line) => logs.push(line) });
  base = server.urls.verifier!;
});
afterAll(async () => {
  await server.close();
  await ctx.close();
  tmp.cleanup();
});

const auth = { authorization: `Bearer ${TOKEN}` };
async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...auth, ...headers } });
}
async function errorOf(response: Response): Promise<{ code: string; message: string; field?: string }> {
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  return ((await response.json()) as { error: { code: string; message: string; field?: string } }).error;
}

describe('vc serve: cross-cutting HTTP behaviour', () => {
  it('serves a valid request as JSON', async () => {
    const response = await post('/echo', JSON.stringify({ name: 'ada' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hello: 'ada' });
  });

  it('answers /healthz without a token, 503 with the reason when circuits are missing, naming no path of the server', async () => {
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { circuits: Record<string, unknown> };
    expect(body).toMatchObject({
      status: 'degraded',
      role: 'verifier',
      chain: { embedded: true, chainId: 152, reachable: true, state: 'stopped' },
      circuits: { present: false, problem: expect.any(String) },
    });
    expect(body.circuits.path).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain(tmp.dir);
  });

  it('401 without or with a wrong bearer token', async () => {
    const none = await fetch(`${base}/echo`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(none.status).toBe(401);
    expect((await errorOf(none)).code).toBe('unauthorized');
    const wrong = await post('/echo', '{"name":"x"}', { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(`${TOKEN}x`, TOKEN)).toBe(false);
  });

  it('takes the scheme name in any case (RFC 7235), never the token', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      expect((await post('/echo', '{"name":"x"}', { authorization: `${scheme} ${TOKEN}` })).status, scheme).toBe(200);
    }
    expect((await post('/echo', '{"name":"x"}', { authorization: `bearer ${TOKEN.toUpperCase()}` })).status).toBe(401);
    expect((await post('/echo', '{"name":"x"}', { authorization: `Basic ${TOKEN}` })).status).toBe(401);
  });

  it('400 for a body that fails its schema, naming the field', async () => {
    const response = await post('/echo', JSON.stringify({ name: 42 }));
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'invalid_input', field: 'name' });
    expect(error.message).toMatch(/request body: field name: /);
  });

  it('400 for malformed JSON', async () => {
    const response = await post('/echo', '{"name": ');
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('invalid_json');
  });

  it('404 for an unknown route, 405 for a known path with the wrong method', async () => {
    const missing = await fetch(`${base}/nothing-here`, { headers: auth });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe('not_found');
    const wrongMethod = await fetch(`${base}/echo`, { headers: auth });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await errorOf(wrongMethod)).code).toBe('method_not_allowed');
  });

  it('409 and 422 from the operation', async () => {
    const conflict = await post('/echo', JSON.stringify({ name: 'conflict' }));
    expect(conflict.status).toBe(409);
    expect(await errorOf(conflict)).toMatchObject({ code: 'conflict', field: 'name' });
    const unprocessable = await post('/echo', JSON.stringify({ name: 'unprocessable' }));
    expect(unprocessable.status).toBe(422);
  });

  it('413 for a body over the limit', async () => {
    const response = await post('/echo', JSON.stringify({ name: 'x'.repeat(5000) }));
    expect(response.status).toBe(413);
    expect((await errorOf(response)).message).toMatch(/exceeds the limit of 2048 bytes/);
  });

  it('415 for a body that is not JSON', async () => {
    const response = await post('/echo', 'name=ada', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(415);
    expect((await errorOf(response)).code).toBe('unsupported_media_type');
  });

  it('500 for a bug, without leaking its details', async () => {
    const response = await post('/echo', JSON.stringify({ name: 'bug' }));
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error).toEqual({ code: 'internal_error', message: 'internal error' });
  });

  it('runs mutating operations one at a time across every served role', async () => {
    const holder = server.urls.holder!;
    const toHolder = () => fetch(`${holder}/slow`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', ...auth } });
    const responses = await Promise.all([post('/slow', '{}'), toHolder(), post('/slow', '{}'), toHolder()]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(maxInFlight).toBe(1);
  });

  it('logs one line per request with id, route, status and duration, never the body', async () => {
    const before = logs.length;
    await post('/echo', JSON.stringify({ name: 'private-subject-name' }));
    const line = logs.slice(before).find((l) => l.route === '/echo')!;
    expect(line).toMatchObject({ level: 'info', role: 'verifier', method: 'POST', route: '/echo', status: 200 });
    expect(line.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof line.durationMs).toBe('number');
    expect(JSON.stringify(logs)).not.toContain('private-subject-name');
  });

  it('serves an OpenAPI document generated from the schemas, naming its server and applying the bearer scheme', async () => {
    const response = await fetch(`${base}/openapi.json`, { headers: auth });
    const doc = (await response.json()) as { openapi: string; servers: Array<{ url: string }>; security: unknown; paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown }>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(JSON.stringify(doc.paths['/echo']?.post?.requestBody)).toContain('"name"');
    expect(doc.servers).toEqual([{ url: base, description: 'the verifier service' }]);
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
  });

  it('GET / names the service and lists its routes, linking the OpenAPI document (behind the token)', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401);
    const response = await fetch(`${base}/`, { headers: auth });
    expect(response.status).toBe(200);
    const index = (await response.json()) as { service: string; role: string; openapi: string; authentication: string; routes: Array<{ method: string; path: string }> };
    expect(index).toMatchObject({ service: 'vc verifier service', role: 'verifier', openapi: '/openapi.json', authentication: 'bearer' });
    expect(index.routes.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /', 'GET /openapi.json', 'GET /healthz', 'POST /echo', 'POST /slow']);
    // The holder lists its own.
    const holder = (await (await fetch(`${server.urls.holder!}/`, { headers: auth })).json()) as { role: string; routes: Array<{ path: string }> };
    expect(holder.role).toBe('holder');
    expect(holder.routes.map((r) => r.path)).not.toContain('/echo');
    // A path no route serves points to both.
    const missing = await errorOf(await fetch(`${base}/nothing-here`, { headers: auth }));
    expect(missing.message).toMatch(/GET \/ lists its routes, GET \/openapi\.json describes them/);
  });
});

describe('vc serve: request ids', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const lineOf = (id: string): RequestLogLine | undefined => logs.find((line) => line.id === id);
  /** The access log line is written when the answer is sent: it may come a moment after the client has it. */
  async function loggedLine(id: string): Promise<RequestLogLine> {
    for (let i = 0; i < 50 && lineOf(id) === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    return lineOf(id)!;
  }

  it('gives every answer an X-Request-Id, the id of its access log line', async () => {
    const answers = [
      await post('/echo', JSON.stringify({ name: 'ada' })),
      await post('/echo', JSON.stringify({ name: 42 })),
      await fetch(`${base}/echo`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }),
      await fetch(`${base}/healthz`),
      await fetch(`${base}/nothing-here`, { headers: auth }),
      await fetch(`${base}/echo`, { headers: auth }),
      await fetch(`${base}/node/%zz`, { headers: auth }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 401, 503, 404, 405, 400]);
    const ids = answers.map((r) => r.headers.get('x-request-id')!);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [i, id] of ids.entries()) expect((await loggedLine(id))?.status, `answer ${i}`).toBe(answers[i]!.status);
  });

  it('keeps a valid X-Request-Id the client gives, in the answer and the log', async () => {
    for (const given of ['req-42', '01HZX3J7Q0M6V8Y2T5N4R1K9BC', 'trace:4bf92f3577b34da6/00f067aa0ba902b7=', 'a'.repeat(128)]) {
      const response = await post('/echo', JSON.stringify({ name: 'ada' }), { 'x-request-id': given });
      expect(response.headers.get('x-request-id')).toBe(given);
      expect(await loggedLine(given)).toMatchObject({ route: '/echo', status: 200 });
    }
  });

  it('replaces a given X-Request-Id that is too long or has unsafe characters (log injection), never echoing it', async () => {
    for (const given of ['a'.repeat(129), 'two words', '"quoted"', 'x\tab', '{"level":"error"}', 'é', '<script>']) {
      const response = await post('/echo', JSON.stringify({ name: 'ada' }), { 'x-request-id': given });
      expect(response.status).toBe(200);
      const id = response.headers.get('x-request-id')!;
      expect(id, given).toMatch(UUID);
      expect((await loggedLine(id))?.route).toBe('/echo');
      expect(JSON.stringify(logs)).not.toContain(given.length > 100 ? given : JSON.stringify(given).slice(1, -1));
    }
  });
});

describe('vc serve: the advice when a port of --role all is taken', () => {
  it('says that PORT is not used, and to free the port or serve the roles separately', () => {
    const advice = busyPortAdvice(3000);
    expect(advice).toMatch(/issuer 3000, verifier 4000, holder 5000/);
    expect(advice).toMatch(/PORT is not used/);
    expect(advice).toMatch(/free port 3000, or serve the roles separately, each with --role R --port N/);
    expect(advice).not.toMatch(/choose another --port/);
  });
});
