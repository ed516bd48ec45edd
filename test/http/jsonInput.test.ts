/**
 * Request bodies of a real `vc serve --role verifier` go through the strict JSON parser: a
 * duplicate key, too deep nesting or an unsafe integer is a 400 JSON error naming the field, and
 * the server keeps serving.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir, type VcServer } from '../helpers.js';

const tmp = tempDir('vc-http-json-');
let server: VcServer | undefined;
let base: string;

beforeAll(async () => {
  // Every body here is refused by the JSON parser or the request schema, before any BBS+ call: VC_WORKERS=0 starts
  // no worker threads (each loads and self-tests the BBS+ libraries).
  server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'verifier'], { env: { VC_WORKERS: '0' } });
  base = server.urls.verifier!;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

interface ErrorAnswer {
  status: number;
  error: { code: string; message: string; field?: string };
}

async function post(route: string, body: string, contentType: string | null = 'application/json'): Promise<Response> {
  // Without a content type, an empty body is sent as no body at all (fetch would label a string text/plain).
  if (contentType === null) return fetch(`${base}${route}`, { method: 'POST', ...(body === '' ? {} : { body }) });
  return fetch(`${base}${route}`, { method: 'POST', body, headers: { 'content-type': contentType } });
}

async function postError(route: string, body: string, contentType: string | null = 'application/json'): Promise<ErrorAnswer> {
  const response = await post(route, body, contentType);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, error: ((await response.json()) as { error: ErrorAnswer['error'] }).error };
}

describe('vc serve: strict JSON request bodies', () => {
  it('POST /verify-vc with a duplicate key: 400 naming the field', async () => {
    const body = '{"vc": {"@context": ["https://www.w3.org/2018/credentials/v1"], "credentialSubject": {"id": "did:example:1", "name": "Ada", "name": "Bob"}}}';
    const answer = await postError('/verify-vc', body);
    expect(answer.status).toBe(400);
    expect(answer.error).toEqual({
      code: 'invalid_json',
      message: 'request body: duplicate key "name" at vc.credentialSubject (JSON objects must not repeat a key)',
      field: 'vc.credentialSubject.name',
    });
    // The same with a charset parameter, and with an escaped spelling of the key.
    const escaped = await postError('/verify-vc', '{"vc": {"type": [], "typ\\u0065": []}}', 'application/json; charset=utf-8');
    expect(escaped.status).toBe(400);
    expect(escaped.error).toMatchObject({ code: 'invalid_json', field: 'vc.type' });
  });

  it('a body nested 2,000 levels deep: 400, and the server still answers /healthz', async () => {
    const body = `{"vc": ${'['.repeat(2000)}${']'.repeat(2000)}}`;
    const answer = await postError('/verify-vc', body);
    expect(answer.status).toBe(400);
    expect(answer.error.code).toBe('invalid_json');
    expect(answer.error.message).toMatch(/^request body: nested deeper than 64 levels at vc\[0\]\[0\]/);
    expect(answer.error.message.length).toBeLessThan(200);
    const health = await fetch(`${base}/healthz`);
    expect([200, 503]).toContain(health.status);
    expect(await health.json()).toMatchObject({ role: 'verifier' });
  });

  it('an integer beyond 2^53: 400 naming the field', async () => {
    const answer = await postError('/nonce', '{"ttlSeconds": 9007199254740993}');
    expect(answer.status).toBe(400);
    expect(answer.error).toEqual({
      code: 'invalid_json',
      message: 'request body: ttlSeconds: the integer 9007199254740993 is beyond 2^53 and would silently change (write it as a string)',
      field: 'ttlSeconds',
    });
  });

  it('malformed and empty bodies behave as before', async () => {
    const malformed = await postError('/verify-vc', '{"vc": ');
    expect(malformed.status).toBe(400);
    expect(malformed.error.code).toBe('invalid_json');
    expect(malformed.error.message).toMatch(/^request body is not valid JSON \(/);
    // An empty body with a JSON content type is refused; without a content type it means {}.
    const empty = await postError('/nonce', '');
    expect(empty.status).toBe(400);
    expect(empty.error.code).toBe('invalid_json');
    const bare = await post('/nonce', '', null);
    expect(bare.status).toBe(200);
    expect(await bare.json()).toHaveProperty('nonce');
  });

  it('still serves valid bodies, with or without a charset, and refuses a __proto__ key', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const response = await post('/nonce', '{"ttlSeconds": 60}', contentType);
      expect(response.status, contentType).toBe(200);
      expect(await response.json()).toHaveProperty('nonce');
    }
    // A __proto__ key is refused where the body is parsed, with its path (no 500, never dropped by a schema).
    const proto = await postError('/nonce', '{"__proto__": {"ttlSeconds": 1}, "ttlSeconds": 60}');
    expect(proto.status).toBe(400);
    expect(proto.error).toMatchObject({ code: 'invalid_json' });
    expect(proto.error.message).toMatch(/^request body: the key "__proto__" at the top level is not accepted/);
    const health = await fetch(`${base}/healthz`);
    expect([200, 503]).toContain(health.status);
  });
});
