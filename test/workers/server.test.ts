/**
 * The worker pool inside `vc serve` (startServer): with VC_WORKERS=1 a burst of POST /verify-vc
 * larger than the pool's queue gets 503 with Retry-After and our JSON error body for what does
 * not fit, every accepted request is verified, and GET /healthz keeps answering while the pool is
 * busy (the BBS+ work runs off the event loop). The server stops its worker threads when it
 * closes: a process that started and closed a server exits by itself. VC_WORKERS=0 keeps the old
 * in-process behaviour.
 *
 * No assertion depends on the machine's speed: "while the pool is busy" is established by events
 * (the queue refused a request, and accepted ones are still unanswered); the latency of /healthz
 * meanwhile is measured by bench/serverEdges.ts.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { deriveSelectiveDisclosure, issueSelectiveDisclosureCredential } from '../../src/core/sd/index.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { QUEUE_PER_WORKER } from '../../src/workers/pool.js';
import { childEnv, ROOT, tempDir } from '../helpers.js';
import { FIXED_PHRASE, type Json } from '../sd/worker/support.js';
import { holdDirectly } from '../core/holder/support.js';

const tmp = tempDir('vc-workers-server-');
afterAll(() => tmp.cleanup());

/** A context with the holder's credential and a derived credential to verify (holder nonce: reusable). */
async function prepare(name: string, vars: Record<string, string> = {}): Promise<{ ctx: Context; vc: Json }> {
  const ctx = new Context({ config: parseConfig({ IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE, CIRCUITS_PATH: tmp.dir, ...vars }, path.join(tmp.dir, name)) });
  holdDirectly(ctx, await issueSelectiveDisclosureCredential(ctx, { holder: 'did:example:alice' }));
  const { vc } = await deriveSelectiveDisclosure(ctx, { type: 'PassportCredential', keys: ['id', 'name'], nonce: Buffer.alloc(32, 4).toString('base64') });
  return { ctx, vc };
}

function verify(base: string, vc: Json): Promise<Response> {
  return fetch(`${base}/verify-vc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ vc }) });
}

describe('vc serve with one BBS+ worker under a burst', () => {
  let ctx: Context;
  let vc: Json;
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    ({ ctx, vc } = await prepare('burst', { VC_WORKERS: '1' }));
    server = await startServer(ctx, { roles: ['verifier', 'holder'], port: 0 });
    base = server.urls.verifier!;
  });
  afterAll(async () => {
    await server?.close();
    await ctx?.close();
  });

  it('serves with one worker thread', () => {
    expect(server.workers).toBe(1);
  });

  it('what does not fit in the queue gets 503 with Retry-After and a JSON body; the rest is verified; /healthz answers throughout', async () => {
    // Each verification makes two pool calls (the terms and the proof, at once): 3 x (1 + queue)
    // requests at once cannot all hold a place.
    const burst = 3 * (1 + QUEUE_PER_WORKER);
    expect([200, 503]).toContain((await fetch(`${base}/healthz`)).status);
    // Each /healthz answer is marked by whether it came while the pool was saturated: after the
    // queue refused a request of the burst, and before the last verification was answered.
    const health: Array<{ whileSaturated: boolean }> = [];
    let refusedOne = false;
    let answered = 0;
    let busy = true;
    const sampler = (async () => {
      while (busy) {
        const response = await fetch(`${base}/healthz`);
        const body = (await response.json()) as { status?: string };
        health.push({ whileSaturated: refusedOne && answered < burst });
        // 503 here is readiness (no chain, no circuits in this test), with the health body.
        expect(['ok', 'degraded']).toContain(body.status);
        // Paces the probes (no assertion depends on it).
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    let responses: Response[];
    try {
      responses = await Promise.all(
        Array.from({ length: burst }, async () => {
          const response = await verify(base, vc);
          if (response.status === 503) refusedOne = true;
          answered += 1;
          return response;
        }),
      );
    } finally {
      busy = false;
      await sampler;
    }
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const refused = responses.filter((response) => response.status === 503);
    const accepted = responses.filter((response) => response.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(0);
    for (const response of refused) {
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('overloaded');
      expect(error.message).toMatch(/^the server is busy: \d+ BBS\+ calls are already waiting for its 1 worker thread; retry in \d+ s$/);
    }
    for (const response of accepted) expect(((await response.json()) as { verified: boolean }).verified).toBe(true);
    // The event loop stayed free: /healthz answered several times while the pool was saturated.
    expect(health.filter((probe) => probe.whileSaturated).length).toBeGreaterThanOrEqual(3);
    // And the server serves normally once the burst is over.
    expect((await verify(base, vc)).status).toBe(200);
  });

  it('a disclosure that does not fit gets 503 too (a busy pool is not a refused credential)', async () => {
    const disclose = () =>
      fetch(`${server.urls.holder}/generate-selective-disclosure-vc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name'] }),
      });
    const responses = await Promise.all(Array.from({ length: 2 * (1 + QUEUE_PER_WORKER) }, disclose));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    for (const response of responses.filter((r) => r.status === 503)) {
      expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('overloaded');
    }
  });

  it('while the queue is full, a request is refused before its body is read (no parsing cost for a refusal)', async () => {
    // Clients keep the single worker's queue full; a request then announces a body it never
    // sends. Refused before the body is read, it gets its 503 at once; read first, it would wait
    // for a body that never comes (the client gives up after 3 s and tries again). Each attempt
    // follows a refusal of a client's request: the queue was full just then.
    let busy = true;
    let clientRefused: () => void = () => undefined;
    const clients = Array.from({ length: 3 * (1 + QUEUE_PER_WORKER) }, async () => {
      while (busy) {
        const response = await verify(base, vc);
        await response.arrayBuffer();
        if (response.status === 503) clientRefused();
      }
    });
    const url = new URL(`${base}/verify-vc`);
    const bodiless = () =>
      new Promise<{ status: number; retryAfter: string | undefined; body: string } | undefined>((resolve) => {
        const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100000' } }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'], body }));
        });
        request.on('error', () => resolve(undefined));
        request.setTimeout(3000, () => {
          request.destroy();
          resolve(undefined);
        });
        request.flushHeaders();
      });
    let refused: Awaited<ReturnType<typeof bodiless>>;
    try {
      for (let attempt = 0; attempt < 10 && refused === undefined; attempt++) {
        await new Promise<void>((resolve) => (clientRefused = resolve));
        refused = await bodiless();
      }
    } finally {
      busy = false;
      await Promise.all(clients);
    }
    expect(refused).toBeDefined();
    expect(refused!.status).toBe(503);
    expect(refused!.retryAfter).toMatch(/^[1-9]\d*$/);
    expect((JSON.parse(refused!.body) as { error: { code: string } }).error.code).toBe('overloaded');
    expect((await verify(base, vc)).status).toBe(200);
  });

  it('stops its worker threads when it closes', async () => {
    await server.close();
    expect(server.workers).toBe(0);
  });
});

describe('VC_WORKERS=0', () => {
  it('runs the BBS+ calls on the main thread, as before', async () => {
    const { ctx, vc } = await prepare('inprocess', { VC_WORKERS: '0' });
    const server = await startServer(ctx, { roles: ['verifier'], port: 0 });
    try {
      expect(server.workers).toBe(0);
      const response = await verify(server.urls.verifier!, vc);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { verified: boolean }).verified).toBe(true);
    } finally {
      await server.close();
      await ctx.close();
    }
  });

  it('VC_WORKERS must be a whole number from 0 to 64', () => {
    expect(parseConfig({}, '/tmp/h').server.workers).toBeUndefined();
    expect(parseConfig({ VC_WORKERS: '3' }, '/tmp/h').server.workers).toBe(3);
    for (const bad of ['-1', 'two', '65', '1.5']) expect(() => parseConfig({ VC_WORKERS: bad }, '/tmp/h')).toThrow(/VC_WORKERS=.*: expected an integer from 0 to 64/);
  });
});

describe('no leaked threads', () => {
  const dist = (...parts: string[]): string => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'src', ...parts)).href);
  const prelude = `import { parseConfig } from ${dist('config', 'parse.js')};
import { Context } from ${dist('context.js')};
const ctx = new Context({ config: parseConfig({ VC_WORKERS: '2', CIRCUITS_PATH: ${JSON.stringify(tmp.dir)} }, ${JSON.stringify(path.join(tmp.dir, 'child'))}) });
`;
  /** Starts a server with two workers, closes it, and otherwise just ends. */
  const SERVE_AND_CLOSE = `${prelude}
import { startServer } from ${dist('http', 'server.js')};
const server = await startServer(ctx, { roles: ['verifier'], port: 0 });
process.stdout.write('workers ' + server.workers + '\\n');
await server.close();
process.stdout.write('closed, workers ' + server.workers + '\\n');
`;
  /**
   * The control: the same two workers, started as the server starts them, never stopped. An
   * unreferenced timer cannot keep a process alive: it fires, says so and ends the process only
   * when something else (the workers) still holds it, so no fixed wait is needed to see that.
   */
  const WORKERS_LEFT_RUNNING = `${prelude}
import { startSelectiveDisclosureWorkers } from ${dist('core', 'sd', 'ready.js')};
const workers = await startSelectiveDisclosureWorkers(ctx);
process.stdout.write('workers ' + workers.size + '\\n');
setTimeout(() => {
  process.stdout.write('still running, workers ' + workers.size + '\\n');
  process.exit(0);
}, 500).unref();
`;

  function run(name: string, source: string, waitMs: number): Promise<{ exited: boolean; code: number | null; stdout: string; stderr: string }> {
    const file = path.join(tmp.dir, name);
    writeFileSync(file, source);
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [file], { cwd: tmp.dir, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), waitMs);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ exited: signal === null, code, stdout, stderr });
      });
    });
  }

  it('a process that started and closed a server exits by itself; running workers would hold it (the control)', async () => {
    const closed = await run('serve-and-close.mjs', SERVE_AND_CLOSE, 30_000);
    expect(closed, closed.stderr).toMatchObject({ exited: true, code: 0 });
    expect(closed.stdout).toBe('workers 2\nclosed, workers 0\n');
    // Held by its workers: the unreferenced timer fired (without them the process would end first).
    const control = await run('workers-left-running.mjs', WORKERS_LEFT_RUNNING, 30_000);
    expect(control.stdout, control.stderr).toBe('workers 2\nstill running, workers 2\n');
    expect(control).toMatchObject({ exited: true, code: 0 });
  });
});
