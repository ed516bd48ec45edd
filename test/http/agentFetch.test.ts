/**
 * POST /agent of `vc serve --role issuer` given a JWZ body (a credentials/1.0/fetch-request, issue
 * 28), bad input with no chain and no proof: a body that is no JWZ, an empty one, a token over the
 * size limit, a token proved with another circuit, a form: each a 4xx with the JSON error body,
 * never a 500 or a hang; a plain JSON message still goes to the plain-message agent. (A wallet's
 * real fetch: test/e2e/iden3commIssuer.test.ts.)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir, type VcServer } from '../helpers.js';

const tmp = tempDir('vc-agent-fetch-');
let server: VcServer;
let agent: string;

beforeAll(async () => {
  // An empty circuit cache: no authV3 circuit is built on this agent's machine (and none gets built).
  // No BBS+ call here: VC_WORKERS=0 starts no worker threads (each loads and self-tests the BBS+ libraries).
  server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'issuer'], { env: { VC_BODY_LIMIT: String(512 * 1024), VC_CIRCUITS_CACHE: path.join(tmp.dir, 'circuits'), VC_WORKERS: '0' } });
  agent = `${server.urls.issuer!}/agent`;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

type Json = Record<string, unknown>;
const post = async (body: string, contentType: string): Promise<{ status: number; error: { code: string; message: string } }> => {
  const response = await fetch(agent, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, error: ((await response.json()) as Json).error as { code: string; message: string } };
};
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const ZKP_HEADER = { alg: 'groth16', circuitId: 'authV2', crit: ['circuitId'], typ: 'application/iden3-zkp-json' };

describe('POST /agent with a JWZ body: bad input', () => {
  it('refuses a body that is no JWZ, an empty one, JSON sent as a token, and a form, with a 4xx and the reason', async () => {
    for (const type of ['application/iden3-zkp-json', 'text/plain']) {
      const notJwz = await post('hello', type);
      expect(notJwz.status).toBe(400);
      expect(notJwz.error.message).toBe('request body: not a JWZ token: expected three base64url parts header.payload.proof, found 1 part');
    }
    const empty = await post('', 'application/iden3-zkp-json');
    expect(empty.status).toBe(400);
    expect(empty.error.message).toMatch(/^request body: empty; expected a JWZ token/);
    const json = await post('{"id": "x"}', 'application/iden3-zkp-json');
    expect(json.status).toBe(400);
    expect(json.error.message).toMatch(/^request body: is JSON, not a JWZ token/);
    expect((await post('token=abc', 'application/x-www-form-urlencoded')).status).toBe(415);
  });

  it('refuses a token over 256 KiB (413), and one proved with another circuit (422), before reading any circuit file', async () => {
    const huge = await post(`${b64(ZKP_HEADER)}.${'A'.repeat(300 * 1024)}.${b64({})}`, 'application/iden3-zkp-json');
    expect(huge.status).toBe(413);
    const payload = b64({ id: '1', type: 'https://iden3-communication.io/credentials/1.0/fetch-request', body: { id: 'urn:uuid:1' } });
    const proof = b64({ proof: { pi_a: ['1', '2', '1'], pi_b: [['1', '2'], ['3', '4'], ['1', '0']], pi_c: ['1', '2', '1'], protocol: 'groth16' }, pub_signals: ['1'] });
    // authV3 is accepted once built on the agent's machine: not built there, a token of it is refused without building it.
    const authV3 = await post(`${b64({ ...ZKP_HEADER, circuitId: 'authV3' })}.${payload}.${proof}`, 'application/iden3-zkp-json');
    expect(authV3.status).toBe(422);
    expect(authV3.error.message).toBe(
      "request body: refused: the token is proved with groth16:authV3; vc's agent accepts groth16:authV2, and groth16:authV3 or groth16:authV3-8-32 once built on its machine (vc circuits build --circuit ID)",
    );
    expect(existsSync(path.join(tmp.dir, 'circuits'))).toBe(false);
  });

  it('still reads a JSON body as a plain message (its own checks)', async () => {
    const plain = await post(JSON.stringify({ id: '1', type: 'https://iden3-communication.io/credentials/1.0/fetch-request', to: 'did:x', body: { id: 'urn:uuid:1' } }), 'application/json');
    expect(plain.status, plain.error.message).toBe(422);
    expect(plain.error.message).toMatch(/^type "https:\/\/iden3-communication.io\/credentials\/1.0\/fetch-request": vc's agent answers .* only in a plain message \(a credentials\/1.0\/fetch-request comes as a JWZ, application\/iden3-zkp-json\)$/);
  });
});
