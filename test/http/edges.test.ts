/**
 * `vc serve` at the edges of HTTP: requests that fail below the routes (the HTTP parser, URL
 * decoding, Node's request timeout) get the same JSON error body as every route, and a client
 * trickling its body cannot hold a connection past VC_BODY_TIMEOUT. Malformed requests are sent
 * on raw sockets, since fetch refuses to send them.
 *
 * No assertion here depends on the machine's speed: events are ordered by what the server says
 * (its 100 Continue, a handler that waits to be released, a dropped idle connection), and the
 * durations (the 408's latency, closing 50 slow bodies, /healthz meanwhile) are measured by
 * bench/serverEdges.ts.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { defineOperation } from '../../src/core/operation.js';
import { route, type HttpRoute } from '../../src/http/route.js';
import { startServer, type RequestLogLine, type RunningServer } from '../../src/http/server.js';
import { startVcServe, tempDir, type VcServer } from '../helpers.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (within the bound). */
  closed: boolean;
}

type ParsedResponse = Omit<RawResponse, 'closed'>;

/**
 * The complete HTTP responses in `text`, in order (status, lower-cased headers, Content-Length
 * body), without interim ones (100 Continue); an incomplete last one is left out.
 */
function parseResponses(text: string): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return responses;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine.split(' ')[1] ?? 0);
    const afterHead = rest.slice(end + 4);
    if (status >= 100 && status < 200) {
      rest = afterHead;
      continue;
    }
    const length = headers['content-length'] === undefined ? afterHead.length : Number(headers['content-length']);
    if (afterHead.length < length) return responses;
    responses.push({ status, headers, body: afterHead.slice(0, length) });
    rest = afterHead.slice(length);
  }
}

/** The first final HTTP response in `text`, or status 0 with the text as its body. */
function parseResponse(text: string): ParsedResponse {
  return parseResponses(text)[0] ?? { status: 0, headers: {}, body: text };
}

/**
 * Sends `request` (then each of `trickle` every `everyMs` while the connection is open) on a raw
 * socket and collects what comes back until the server closes it, or `boundMs` passes.
 */
function rawRequest(port: number, request: string, options: { trickle?: string; everyMs?: number; boundMs?: number } = {}): Promise<RawResponse> {
  const boundMs = options.boundMs ?? 5000;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let ticker: NodeJS.Timeout | undefined;
    const finish = (closed: boolean): void => {
      clearTimeout(bound);
      clearInterval(ticker);
      socket.destroy();
      resolve({ ...parseResponse(received), closed });
    };
    const bound = setTimeout(() => finish(false), boundMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      // The answer is there: stop sending (writing on would only earn a reset).
      clearInterval(ticker);
    });
    // A reset after the answer is a close too; what was read is kept.
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.write(request);
    if (options.trickle !== undefined) {
      ticker = setInterval(() => {
        if (!socket.destroyed && received === '') socket.write(options.trickle!);
      }, options.everyMs ?? 200);
    }
  });
}

/** Asserts the documented JSON error body: `{"error": {"code", "message"}}`. */
function expectJsonError(response: RawResponse, status: number | number[], code?: string | string[]): { code: string; message: string } {
  expect([status].flat(), `status of ${JSON.stringify(response)}`).toContain(response.status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as { error: { code: unknown; message: unknown } };
  expect(typeof body.error.code).toBe('string');
  expect(typeof body.error.message).toBe('string');
  expect((body.error.message as string).length).toBeGreaterThan(0);
  if (code !== undefined) expect([code].flat()).toContain(body.error.code);
  return body.error as { code: string; message: string };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A raw connection: what it received so far, a wait for what it receives next, and its close. */
function connection(port: number): { socket: net.Socket; received: () => string; when: (test: (received: string) => boolean) => Promise<void>; closed: Promise<void> } {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  const waiters: Array<{ test: (received: string) => boolean; resolve: () => void }> = [];
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    for (const waiter of [...waiters]) {
      if (!waiter.test(received)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    socket,
    received: () => received,
    when: (test) => (test(received) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve }))),
    closed,
  };
}

/**
 * A POST whose declared 100 KB body arrives a few bytes every 200 ms once the server asked for it
 * (`Expect: 100-continue`): `reading` resolves when the server answered 100 Continue (it holds
 * the request and reads its body), `answered` when its final answer arrived, `response` when the
 * server closed the connection (or, `closed: false`, when the hang guard of `boundMs` ran out).
 */
function slowBody(port: number, boundMs = 30_000): { reading: Promise<void>; answered: Promise<void>; response: Promise<RawResponse> } {
  const raw = connection(port);
  let ticker: NodeJS.Timeout | undefined;
  const reading = raw.when((received) => received.startsWith('HTTP/1.1 100 Continue\r\n\r\n'));
  const answered = raw.when((received) => parseResponses(received).length > 0);
  void reading.then(() => {
    raw.socket.write('{"a":"');
    ticker = setInterval(() => {
      if (!raw.socket.destroyed) raw.socket.write('aaaa');
    }, 200);
  });
  // The answer is there: stop sending (writing on would only earn a reset).
  void answered.then(() => clearInterval(ticker));
  let guarded = false;
  const bound = setTimeout(() => {
    guarded = true;
    raw.socket.destroy();
  }, boundMs);
  const response = raw.closed.then(() => {
    clearTimeout(bound);
    clearInterval(ticker);
    return { ...parseResponse(raw.received()), closed: !guarded };
  });
  raw.socket.write(SLOW_BODY_CONTINUE_HEAD);
  return { reading, answered, response };
}

/** A POST of a declared 100 KB body, asking to be told when to send it. */
const SLOW_BODY_CONTINUE_HEAD = 'POST /node HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n';

describe('vc serve: errors below the routes and slow bodies (real vc serve, VC_BODY_TIMEOUT=2)', () => {
  const tmp = tempDir('vc-edges-');
  let server: VcServer;
  let base: string;
  let port: number;

  beforeAll(async () => {
    // No BBS+ call here: VC_WORKERS=0 starts no worker threads (each loads and self-tests the BBS+ libraries).
    server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'issuer'], { env: { VC_BODY_TIMEOUT: '2', VC_WORKERS: '0' } });
    base = server.urls.issuer!;
    port = Number(new URL(base).port);
  });
  afterAll(async () => {
    await server?.stop();
    tmp.cleanup();
  });

  const malformed: { name: string; request: () => string; status: number | number[]; code: string | string[] }[] = [
    { name: 'a header over the size limit', request: () => `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, status: 431, code: 'header_too_large' },
    // Node counts the request line in its header limit (llhttp has no URI-too-long error): 431.
    { name: 'a request line over the size limit', request: () => `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, status: [414, 431], code: ['uri_too_long', 'header_too_large'] },
    { name: 'a path parameter over fastify maxParamLength', request: () => `GET /node/${'a'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, status: 414, code: 'uri_too_long' },
    { name: 'a bad percent-encoding (%zz)', request: () => 'GET /node/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', status: 400, code: 'invalid_url' },
    { name: 'a truncated UTF-8 percent-encoding', request: () => 'GET /%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', status: 400, code: 'invalid_url' },
    { name: 'a garbage request line', request: () => 'GARBAGE\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'an unknown HTTP version', request: () => 'GET / HTTP/9.9\r\nHost: x\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'an invalid Content-Length', request: () => 'POST /node HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'Content-Length with Transfer-Encoding', request: () => 'POST /node HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'a bad chunk size', request: () => 'POST /node HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'a control character in a header name', request: () => 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A\u0001: b\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'an HTTP/1.1 request without Host', request: () => 'GET /healthz HTTP/1.1\r\n\r\n', status: 400, code: 'bad_request' },
    { name: 'an unsupported Expect', request: () => 'POST /node HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', status: 417, code: 'expectation_failed' },
    { name: 'CONNECT', request: () => 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', status: 405, code: 'method_not_allowed' },
  ];

  for (const testCase of malformed) {
    it(`answers ${testCase.name} with the JSON error body and closes`, async () => {
      const response = await rawRequest(port, testCase.request());
      expectJsonError(response, testCase.status, testCase.code);
      expect(response.closed).toBe(true);
    });
  }

  // One wait of VC_BODY_TIMEOUT for both: the first slow body's answer is checked in full, then all 50.
  it('answers a slow body 408 once VC_BODY_TIMEOUT ran out, and closes it; closes 50 slow bodies with 408 while /healthz keeps answering', async () => {
    const slow = Array.from({ length: 50 }, () => slowBody(port));
    // All 50 are held by the server, each reading its body.
    await Promise.all(slow.map((request) => request.reading));
    let firstAnswered = false;
    let allClosed = false;
    void Promise.race(slow.map((request) => request.answered)).then(() => (firstAnswered = true));
    const responses = Promise.all(slow.map((request) => request.response));
    void responses.then(() => (allClosed = true));
    // /healthz, one request after the other until every slow body is closed; each answer is
    // marked by whether it came while all 50 were still held (before any of their answers).
    const health: { status: number; whileAllHeld: boolean }[] = [];
    while (!allClosed) {
      const response = await fetch(`${base}/healthz`);
      await response.json();
      health.push({ status: response.status, whileAllHeld: !firstAnswered });
      // Paces the probes (no assertion depends on it).
      if (!allClosed) await sleep(50);
    }
    // The server held the request and asked for its body (awaited above): the 408 is the body's timeout, not the headers'.
    const first = await slow[0]!.response;
    const error = expectJsonError(first, 408, 'request_timeout');
    expect(error.message).toMatch(/within 2 s/);
    expect(first.closed).toBe(true);
    expect(first.headers.connection).toBe('close');
    for (const response of await responses) {
      expectJsonError(response, 408, 'request_timeout');
      expect(response.closed).toBe(true);
    }
    for (const probe of health) expect([200, 503]).toContain(probe.status);
    expect(health.filter((probe) => probe.whileAllHeld).length).toBeGreaterThanOrEqual(1);
  });

  it('still serves normal requests afterwards', async () => {
    const health = await fetch(`${base}/healthz`);
    expect([200, 503]).toContain(health.status);
    expect(((await health.json()) as { role: string }).role).toBe('issuer');
    const openapi = await fetch(`${base}/openapi.json`);
    expect(openapi.status).toBe(200);
    const missing = await fetch(`${base}/node/${'0'.repeat(64)}`);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await missing.json()) as { error?: { code: string } }).error?.code).toBeTypeOf('string');
    // Bodies cut by the timeout or a parse error are not logged as lost upstream connections.
    expect(server.stderr()).not.toMatch(/lost the connection/);
  });
});

describe('VC_BODY_TIMEOUT', () => {
  it('defaults to 30 s and accepts 1..3600 seconds', () => {
    expect(parseConfig({}, '/tmp/h').server.bodyTimeoutSeconds).toBe(30);
    expect(parseConfig({ VC_BODY_TIMEOUT: '3600' }, '/tmp/h').server.bodyTimeoutSeconds).toBe(3600);
    for (const bad of ['0', '3601', '1.5', 'abc', '-1']) {
      expect(() => parseConfig({ VC_BODY_TIMEOUT: bad }, '/tmp/h'), bad).toThrow(/VC_BODY_TIMEOUT=.*expected an integer from 1 to 3600/);
    }
  });
});

describe('vc serve: the body timeout and shutdown (in-process, VC_BODY_TIMEOUT=1)', () => {
  const tmp = tempDir('vc-edges-inproc-');
  const logs: RequestLogLine[] = [];
  let ctx: Context;
  let server: RunningServer;
  let port: number;
  const slow = defineOperation({
    name: 'test.slow',
    summary: 'an operation slower than the body timeout',
    input: z.object({ ms: z.number().int().min(0).max(5000) }),
    mutates: false,
    run: async (_ctx, input) => {
      await sleep(input.ms);
      return { slept: input.ms };
    },
  });
  const ping = defineOperation({ name: 'test.ping', summary: 'ping', input: z.object({}), mutates: false, run: async () => ({ pong: true }) });
  /** Called when a /hold handler starts; the handler then waits until `release()`. */
  let entered: () => void = () => undefined;
  let release: () => void = () => undefined;
  const hold = defineOperation({
    name: 'test.hold',
    summary: 'an operation that runs until the test releases it',
    input: z.object({}),
    mutates: false,
    run: async () => {
      const released = new Promise<void>((resolve) => (release = resolve));
      entered();
      await released;
      return { held: true };
    },
  });
  const routes: HttpRoute[] = [route('verifier', 'POST', '/slow', slow), route('verifier', 'GET', '/ping', ping), route('verifier', 'POST', '/hold', hold)];

  beforeAll(async () => {
    const config = parseConfig({ VC_BODY_TIMEOUT: '1', CIRCUITS_PATH: tmp.dir, VC_WORKERS: '0' }, path.join(tmp.dir, 'home'));
    ctx = new Context({ config });
    server = await startServer(ctx, { roles: ['verifier'], port: 0, routes, log: (line) => logs.push(line) });
    port = Number(new URL(server.urls.verifier!).port);
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
    tmp.cleanup();
  });

  // These two wait on the clock (1.5 s and the 1 s timeout) on connections of their own: side by side.
  it.concurrent('does not cut a handler that runs longer than the body timeout (it bounds receipt only)', async () => {
    // Half a timeout longer than the 1 s body timeout: a cut would come at 1 s, the answer at 1.5 s.
    const response = await fetch(`${server.urls.verifier!}/slow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 1500 }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ slept: 1500 });
  });

  it.concurrent('answers slow headers 408 too', async () => {
    const response = await rawRequest(port, 'GET /ping HTTP/1.1\r\n', { trickle: 'X-A: b\r\n', everyMs: 200, boundMs: 8000 });
    expectJsonError(response, 408, 'request_timeout');
    expect(response.closed).toBe(true);
  });

  // Last: closes the server.
  it('answers a request that completes after close began 503 in the JSON shape, and finishes the one in flight', async () => {
    // In flight for certain: its handler has started, and runs until released.
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const inFlight = rawRequest(port, 'POST /hold HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', { boundMs: 60_000 });
    await inHandler;
    // An idle keep-alive connection: the server drops it once its close has begun (after the
    // preClose hook from which new requests get 503).
    const idle = connection(port);
    idle.socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    await idle.when((received) => parseResponses(received).length === 1);
    // A request half sent: one write carries a whole request and the start of the next, so the
    // server has begun parsing the second by the time it answers the first. A connection with a
    // request half sent is not idle: closing keeps it open for that request.
    const late = connection(port);
    late.socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /ping HTTP/1.1\r\nHost: x\r\n');
    await late.when((received) => parseResponses(received).length === 1);
    expect(parseResponses(late.received())[0]).toMatchObject({ status: 200, body: '{"pong":true}' });

    const closed = server.close();
    await idle.closed;
    late.socket.write('\r\n');
    await late.closed;
    const [, lateResponse] = parseResponses(late.received());
    expect(lateResponse).toBeDefined();
    expectJsonError({ ...lateResponse!, closed: true }, 503, 'service_unavailable');
    expect(lateResponse!.headers.connection).toBe('close');
    // The request in flight all along is answered in full once its handler ends.
    release();
    const first = await inFlight;
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ held: true });
    expect(first.headers.connection).toBe('close');
    await closed;
    expect(logs.some((line) => line.status === 503 && line.route === '/ping')).toBe(true);
  });
});
