/**
 * Idempotency-Key on `vc serve`'s routes that issue or send a transaction, against a server with
 * test routes: a retry with the same key gets the first answer (waiting for it while it runs,
 * kept in the wallet store afterwards), never a second run; the same key with another body is a
 * 422; an error is not kept; keys expire. The real issuance route is covered over a chain by
 * test/e2e/servedRhs.test.ts.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { NetworkError } from '../../src/errors.js';
import { defineOperation } from '../../src/core/operation.js';
import { IDEMPOTENCY_NS, IDEMPOTENCY_RETENTION_MS } from '../../src/core/idempotency.js';
import { route, type HttpRoute } from '../../src/http/route.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-idempotency-');
let clock = Date.now();
let server: RunningServer;
let ctx: Context;
let base: string;
let port: number;
/** How many times each name was run. */
const runs = new Map<string, number>();
/** Names whose next run fails (once). */
const failOnce = new Set<string>();

const issue = defineOperation({
  name: 'test.issue',
  summary: 'a slow mutating operation that counts its runs',
  input: z.object({ name: z.string().min(1), ms: z.number().int().optional() }),
  mutates: true,
  run: async (_ctx, input) => {
    runs.set(input.name, (runs.get(input.name) ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, input.ms ?? 0));
    if (failOnce.delete(input.name)) throw new NetworkError('the chain is away');
    return { name: input.name, run: runs.get(input.name) };
  },
});
const routes: HttpRoute[] = [
  route('issuer', 'POST', '/issue', issue, { status: 201, idempotent: true }),
  route('issuer', 'POST', '/other', issue, { idempotent: true }),
  route('issuer', 'POST', '/plain', issue),
];

beforeAll(async () => {
  // The test routes make no BBS+ call: VC_WORKERS=0 starts no worker threads (each loads and self-tests the BBS+ libraries).
  ctx = new Context({ config: parseConfig({ CIRCUITS_PATH: tmp.dir, VC_WORKERS: '0' }, path.join(tmp.dir, 'home')), now: () => new Date(clock) });
  server = await startServer(ctx, { roles: ['issuer'], port: 0, routes });
  base = server.urls.issuer!;
  port = Number(new URL(base).port);
});
afterAll(async () => {
  await server.close();
  await ctx.close();
  tmp.cleanup();
});

async function post(route: string, body: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown>; replayed: string | null }> {
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, replayed: response.headers.get('idempotent-replayed') };
}

/** Sends a request and drops the connection as soon as it is sent, without reading any answer. */
function sendAndDrop(route: string, body: unknown, key: string): Promise<void> {
  const json = JSON.stringify(body);
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST ${route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', () => resolve());
  });
}

describe('Idempotency-Key', () => {
  it('a retry after a dropped connection waits for the first run and gets its answer: one run', async () => {
    await sendAndDrop('/issue', { name: 'dropped', ms: 400 }, 'key-dropped');
    // The retry arrives while the first still runs.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const retry = await post('/issue', { ms: 400, name: 'dropped' }, 'key-dropped');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual({ name: 'dropped', run: 1 });
    expect(retry.replayed).toBe('true');
    // And later, from the wallet store, with its status.
    const later = await post('/issue', { name: 'dropped', ms: 400 }, '"key-dropped"');
    expect(later).toEqual({ status: 201, body: { name: 'dropped', run: 1 }, replayed: 'true' });
    expect(runs.get('dropped')).toBe(1);
    expect(ctx.store.count(IDEMPOTENCY_NS)).toBeGreaterThan(0);
  });

  it('the first answer of a key is its own, not replayed; without a key every request runs', async () => {
    const first = await post('/issue', { name: 'fresh' }, 'key-fresh');
    expect(first).toEqual({ status: 201, body: { name: 'fresh', run: 1 }, replayed: null });
    expect((await post('/issue', { name: 'fresh' })).body).toEqual({ name: 'fresh', run: 2 });
    expect((await post('/plain', { name: 'fresh' }, 'key-fresh')).body).toEqual({ name: 'fresh', run: 3 });
    expect((await post('/issue', { name: 'fresh' }, 'key-fresh')).body).toEqual({ name: 'fresh', run: 1 });
  });

  it('is scoped to the route: the same key on another route is another request', async () => {
    expect((await post('/issue', { name: 'scoped' }, 'key-scoped')).body).toEqual({ name: 'scoped', run: 1 });
    expect((await post('/other', { name: 'scoped' }, 'key-scoped'))).toMatchObject({ status: 200, body: { name: 'scoped', run: 2 }, replayed: null });
  });

  it('the same key with another body is a 422, while the first runs and after', async () => {
    const first = post('/issue', { name: 'bound', ms: 300 }, 'key-bound');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await post('/issue', { name: 'other', ms: 300 }, 'key-bound');
    expect(during.status).toBe(422);
    expect((during.body.error as { code: string }).code).toBe('idempotency_key_reused');
    expect((await first).status).toBe(201);
    const after = await post('/issue', { name: 'bound' }, 'key-bound');
    expect(after.status).toBe(422);
    expect(runs.get('other')).toBeUndefined();
  });

  it('an error is not kept: the retry runs again', async () => {
    failOnce.add('flaky');
    const first = await post('/issue', { name: 'flaky' }, 'key-flaky');
    expect(first.status).toBe(502);
    const retry = await post('/issue', { name: 'flaky' }, 'key-flaky');
    expect(retry).toEqual({ status: 201, body: { name: 'flaky', run: 2 }, replayed: null });
  });

  it('refuses a malformed key', async () => {
    for (const key of ['""', 'x'.repeat(256), 'two words']) {
      const response = await post('/issue', { name: 'malformed' }, key);
      expect(response.status, key).toBe(400);
      expect((response.body.error as { code: string }).code).toBe('invalid_idempotency_key');
    }
    expect(runs.get('malformed')).toBeUndefined();
  });

  it('keeps an answer for its retention only', async () => {
    expect((await post('/issue', { name: 'aging' }, 'key-aging')).body).toEqual({ name: 'aging', run: 1 });
    clock += IDEMPOTENCY_RETENTION_MS - 1000;
    expect((await post('/issue', { name: 'aging' }, 'key-aging')).body).toEqual({ name: 'aging', run: 1 });
    clock += 2000;
    expect((await post('/issue', { name: 'aging' }, 'key-aging'))).toMatchObject({ body: { name: 'aging', run: 2 }, replayed: null });
    // Expired records are dropped from the store as new ones are written.
    expect(ctx.store.list(IDEMPOTENCY_NS).length).toBe(1);
  });

  it('is in the OpenAPI document of the idempotent routes', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, { post: { parameters?: Array<{ name: string; in: string }> } }> };
    expect(doc.paths['/issue']!.post.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(doc.paths['/plain']!.post.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: 'Idempotency-Key' }));
  });
});
