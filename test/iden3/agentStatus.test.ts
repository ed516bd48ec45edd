/**
 * The holder's side of Iden3commRevocationStatusV1.0 against agents that misbehave: every answer
 * that is not a well-formed `revocation/1.0/status` message of the thread vc started is refused
 * with a NetworkError naming the agent and what was wrong, within the time and size limits, and a
 * redirect is never followed. A status that names no agent URL, or no whole revocation nonce, is
 * refused as input. All of these are settled before anything is asked of a chain. (Well-formed
 * answers, true and lying ones, from vc's agent and the js-sdk's: test/e2e/agentStatus.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FIELD_SIZE } from '@iden3/js-merkletree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { NetworkError, UnprocessableError } from '../../src/errors.js';
import { AgentStatusResolver, REVOCATION_STATUS_REQUEST_TYPE, REVOCATION_STATUS_RESPONSE_TYPE } from '../../src/iden3/agentStatus.js';
import { getIden3 } from '../../src/iden3/wallet.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir('vc-agent-resolver-');
const ISSUER = 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YAVgP9yhJXZfd8EVqqmk';
const HOLDER = 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR';
const ROOT = '0'.repeat(64);
/** The BN254 scalar field's modulus (decimal), as the iden3 Merkle tree library has it: no hash reaches it. */
const FIELD_MODULUS = String(FIELD_SIZE);
const FIELD_MAXIMUM = String(FIELD_SIZE - 1n);

let ctx: Context;
let server: Server;
let base: string;
let resolver: AgentStatusResolver;
/** The requests the agent received (method, content type, body). */
const received: Array<{ method: string; type: string | undefined; body: Record<string, unknown> }> = [];

/** What each path of the test agent answers, given the request (its thread id). */
const answers: Record<string, (request: { thid: string }) => { status?: number; headers?: Record<string, string>; body: string; never?: boolean; chunked?: boolean }> = {
  '/wrong-type': (r) => ({ body: JSON.stringify({ id: 'x', type: 'https://iden3-communication.io/credentials/1.0/issuance-response', thid: r.thid, body: {} }) }),
  '/other-thread': () => ({ body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: 'someone-else', body: {} }) }),
  '/not-json': () => ({ body: '<html>agent</html>' }),
  '/no-roots': (r) => ({ body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: r.thid, body: { issuer: { state: 'zz' }, mtp: { existence: false, siblings: [] } } }) }),
  '/bad-proof': (r) => ({
    body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: r.thid, body: { issuer: { state: ROOT, claimsTreeRoot: ROOT, revocationTreeRoot: ROOT, rootOfRoots: ROOT }, mtp: { existence: 'no', siblings: [] } } }),
  }),
  // Siblings and node_aux are decimal hashes: one at the field modulus is no hash (the library said "Cannot convert undefined or null to object").
  '/sibling-above-field': (r) => ({
    body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: r.thid, body: { issuer: { state: ROOT, claimsTreeRoot: ROOT, revocationTreeRoot: ROOT, rootOfRoots: ROOT }, mtp: { existence: false, siblings: ['0', FIELD_MODULUS] } } }),
  }),
  '/sibling-below-field': (r) => ({
    body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: r.thid, body: { issuer: { state: ROOT, claimsTreeRoot: ROOT, revocationTreeRoot: ROOT, rootOfRoots: ROOT }, mtp: { existence: false, siblings: ['0', FIELD_MAXIMUM] } } }),
  }),
  '/aux-above-field': (r) => ({
    body: JSON.stringify({
      id: 'x',
      type: REVOCATION_STATUS_RESPONSE_TYPE,
      thid: r.thid,
      body: { issuer: { state: ROOT, claimsTreeRoot: ROOT, revocationTreeRoot: ROOT, rootOfRoots: ROOT }, mtp: { existence: false, siblings: [], node_aux: { key: '5', value: `1${'0'.repeat(77)}` } } },
    }),
  }),
  '/huge': (r) => ({ headers: { 'content-length': '10100' }, body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: r.thid, body: { padding: 'x'.repeat(10_000) } }).padEnd(10_100) }),
  '/huge-undeclared': (r) => ({ chunked: true, body: JSON.stringify({ id: 'x', type: REVOCATION_STATUS_RESPONSE_TYPE, thid: r.thid, body: { padding: 'x'.repeat(10_000) } }) }),
  '/refused': () => ({ status: 500, body: '{"error":"boom"}' }),
  '/redirect': () => ({ status: 307, headers: { location: '/wrong-type' }, body: '' }),
  '/silent': () => ({ body: '', never: true }),
};

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({}, path.join(tmp.dir, 'home')) });
  const iden3 = await getIden3(ctx);
  resolver = new AgentStatusResolver(iden3.modules, { timeoutMs: 1_000, maxBytes: 4_096 });
  resolver.attach({ ctx, modules: iden3.modules, identityWallet: iden3.identityWallet, dataStorage: iden3.dataStorage });
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      received.push({ method: request.method ?? '', type: request.headers['content-type'], body });
      const answer = answers[request.url ?? '']?.({ thid: String(body.thid) }) ?? { status: 404, body: '{}' };
      if (answer.never === true) return;
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      if (answer.chunked === true) {
        // In pieces, with no length announced: the limit is found while reading.
        for (let at = 0; at < answer.body.length; at += 1_000) response.write(answer.body.slice(at, at + 1_000));
      }
      response.end(answer.chunked === true ? undefined : answer.body);
    });
  });
  base = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}, 120_000);

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await ctx.close();
  tmp.cleanup();
});

async function resolveAt(id: string, revocationNonce: unknown = 42): Promise<unknown> {
  const { core } = (await getIden3(ctx)).modules;
  return resolver.resolve({ id, type: 'Iden3commRevocationStatusV1.0', revocationNonce } as never, { issuerDID: core.DID.parse(ISSUER), userDID: core.DID.parse(HOLDER) }).catch((error: unknown) => error);
}

describe("an agent's answer that is not a revocation status", () => {
  it('sends the plain request-status message of the js-sdk shape: the nonce, from the holder to the issuer, as JSON', async () => {
    await resolveAt(`${base}/wrong-type`);
    const request = received.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.type).toBe('application/json');
    expect(request.body).toMatchObject({ typ: 'application/iden3comm-plain-json', type: REVOCATION_STATUS_REQUEST_TYPE, from: HOLDER, to: ISSUER, body: { revocation_nonce: 42 } });
    // A fresh thread each time: an old answer is not an answer to this request.
    await resolveAt(`${base}/wrong-type`);
    expect(received.at(-1)!.body.thid).not.toBe(request.body.thid);
    expect(request.body.thid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is refused with the agent and the reason, never used', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/wrong-type', /the answer's type is "https:\/\/iden3-communication.io\/credentials\/1.0\/issuance-response", not https:\/\/iden3-communication.io\/revocation\/1.0\/status$/],
      ['/other-thread', /the answer is about thread "someone-else", not [0-9a-f-]{36}$/],
      ['/not-json', /the answer is not JSON/],
      ['/no-roots', /its body.issuer does not hold the four roots/],
      ['/bad-proof', /its body.mtp is not a Merkle proof/],
      ['/sibling-above-field', /its body.mtp.siblings hold a number that is not a field element/],
      ['/aux-above-field', /its body.mtp.node_aux holds a number that is not a field element/],
      ['/huge', /the answer announces 10100 bytes, more than the 4096 bytes accepted$/],
      ['/huge-undeclared', /the answer is more than the 4096 bytes accepted$/],
      ['/refused', /answered HTTP 500 to the revocation status request: \{"error":"boom"\}$/],
      ['/redirect', /fetch failed/],
      ['/silent', /no complete answer within 1000 ms$/],
      ['/missing', /answered HTTP 404/],
    ];
    for (const [where, reason] of cases) {
      const error = await resolveAt(`${base}${where}`);
      expect(error, where).toBeInstanceOf(NetworkError);
      expect((error as Error).message, where).toMatch(new RegExp(`^the issuer's agent ${base}${where}`.replace(/[.]/g, '\\.')));
      expect((error as Error).message, where).toMatch(reason);
    }
    // The largest field element is one: that answer is refused for what it proves, not as a number.
    const belowField = await resolveAt(`${base}/sibling-below-field`);
    expect(belowField).toBeInstanceOf(Error);
    expect((belowField as Error).message).not.toMatch(/not a field element/);
    // The redirect was not followed: the agent saw no request at the place it pointed to after it.
    const redirected = received.filter((request) => request.body.to === ISSUER).length;
    await resolveAt(`${base}/redirect`);
    expect(received.filter((request) => request.body.to === ISSUER).length).toBe(redirected + 1);
  });

  it('a status naming no http(s) agent, or no whole revocation nonce, is refused as input before any request', async () => {
    const before = received.length;
    for (const [id, nonce, reason] of [
      ['file:///etc/passwd', 42, /its id file:\/\/\/etc\/passwd is not an http\(s\) URL/],
      ['not a url', 42, /its id "not a url" is not the URL of the issuer's agent/],
      [`${base}/wrong-type`, '42', /its revocationNonce "42" is not a whole number/],
      [`${base}/wrong-type`, -1, /its revocationNonce -1 is not a whole number/],
      [`${base}/wrong-type`, 2 ** 53, /its revocationNonce 9007199254740992 is not a whole number/],
    ] as const) {
      const error = await resolveAt(id, nonce);
      expect(error, id).toBeInstanceOf(UnprocessableError);
      expect((error as Error).message, id).toMatch(reason);
    }
    expect(received.length).toBe(before);
  });
});
