/**
 * POST /auth-responses of `vc serve --role holder` (issue 28: `vc holder respond` over HTTP) and
 * its bad input, with no chain and no proof: a request given as a file path (the server reads no
 * file), of another message type, expired, huge, naming another host, or with allowRemote (the CLI's
 * flag alone); each a 4xx with the JSON error body naming the field, never a 500. (A real answer:
 * test/e2e/iden3commHolder.test.ts.)
 */
import { createServer } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVcInProcess, startVcServe, tempDir, type VcServer } from '../helpers.js';

const tmp = tempDir('vc-auth-responses-');
const home = path.join(tmp.dir, 'home');
let server: VcServer;
let base: string;
let verifierDid: string;

type Json = Record<string, unknown>;
const respond = async (body: unknown): Promise<{ status: number; error: { code: string; message: string } }> => {
  const response = await fetch(`${base}/auth-responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, error: ((await response.json()) as Json).error as { code: string; message: string } };
};
const request = (change: (message: Json & { body: Json }) => void = () => undefined): Json => {
  const message = {
    id: 'r1',
    type: 'https://iden3-communication.io/authorization/1.0/request',
    from: verifierDid,
    body: { callbackUrl: '', reason: 'age check', scope: [{ id: 7, circuitId: 'credentialAtomicQueryV3', query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: 'https://example.org/kyc.jsonld', credentialSubject: { birthday: {} } } }] },
  };
  change(message);
  return message;
};

beforeAll(async () => {
  const made = await runVcInProcess(['--json', 'verifier', 'auth-request'], { home });
  expect(made.status, made.stderr).toBe(0);
  verifierDid = made.json<{ from: string }>().from;
  // No BBS+ call here: VC_WORKERS=0 starts no worker threads (each loads and self-tests the BBS+ libraries).
  server = await startVcServe(home, ['--role', 'holder'], { env: { VC_WORKERS: '0' } });
  base = server.urls.holder!;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

describe("POST /auth-responses: the server's exclusive turn", () => {
  it('is not held while the holder waits on the network (a slow request_uri here, the verifier\'s answer to a post alike): another call is answered meanwhile (attack)', async () => {
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const slow = createServer((_req, res) => {
      arrived();
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request((message) => (message.expires_time = 1_700_000_000)))), 4_000);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const waiting = respond({ request: `iden3comm://?request_uri=http://127.0.0.1:${(slow.address() as { port: number }).port}/request` });
      await reached;
      const started = Date.now();
      const other = await respond({ request: request((message) => (message.expires_time = 1_700_000_000)) });
      expect(other.status).toBe(400);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((await waiting).status).toBe(400);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe('POST /auth-responses: bad input', () => {
  it('reads no file: a path is no request', async () => {
    const answer = await respond({ request: '/etc/passwd' });
    expect(answer.status).toBe(400);
    expect(answer.error.message).toMatch(/^request body: field request: expected an authorization request \(JSON\), an iden3comm:\/\/ link, a universal link/);
  });

  it('refuses another message type, an expired request, a huge one, another host, and the CLI-only allowRemote', async () => {
    const offer = await respond({ request: request((message) => (message.type = 'https://iden3-communication.io/credentials/1.0/offer')) });
    expect(offer.status).toBe(400);
    expect(offer.error.message).toMatch(/: is a https:\/\/iden3-communication\.io\/credentials\/1\.0\/offer message, not an authorization request/);
    const expired = await respond({ request: request((message) => (message.expires_time = 1_700_000_000)) });
    expect(expired.status).toBe(400);
    expect(expired.error.message).toMatch(/: the request expired at 2023-11-14T22:13:20\.000Z$/);
    const huge = await respond({ request: JSON.stringify(request((message) => (message.body.reason = 'x'.repeat(100 * 1024)))) });
    expect(huge.status).toBe(413);
    expect(huge.error.message).toMatch(/: larger than 64 KiB; an authorization request is a few KB$/);
    const remote = await respond({ request: 'iden3comm://?request_uri=https://verifier.example/requests/1' });
    expect(remote.status).toBe(400);
    expect(remote.error.message).toMatch(/verifier\.example is not this machine/);
    expect((await respond({ request: request(), allowRemote: true })).status).toBe(400);
  });

  it('refuses an expires_time out of the date range with a 400, not a 500 (attack)', async () => {
    const answer = await respond({ request: request((message) => (message.expires_time = -9e12)) });
    // A safe integer (the body parser refuses -1e20), whose date is before the earliest JavaScript can name.
    expect(answer.status).toBe(400);
    expect(answer.error.message).toMatch(/expires_time|expired/);
  });

  it('refuses post without a callback, and a scope no held credential satisfies, naming them', async () => {
    const post = await respond({ request: request(), post: true });
    expect(post.status).toBe(400);
    expect(post.error.message).toMatch(/post: the request names no callbackUrl to post to/);
    const unsatisfied = await respond({ request: request() });
    expect(unsatisfied.status).toBe(404);
    expect(unsatisfied.error.message).toMatch(/^scope 7 \(KYCAgeCredential birthday \$sd\): no held credential satisfies it: /);
  });
});
