/**
 * The shared behavioural suite against a real server (every role on ephemeral loopback ports),
 * then every error status of the HTTP interface, each produced by a real route.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, templateHome } from '../../helpers.js';
import { expectCallError } from './driver.js';
import { createHttpDriver, type HttpDriver } from './httpDriver.js';
import { describeProofByQueryBehaviours } from './pbq.behaviour.js';
import { describeSelectiveDisclosureBehaviours } from './sd.behaviour.js';
import { SUBJECT, behaviourVariables } from './setup.js';

const TOKEN = 'behaviour-token-5f1c0a9e7d3b';
/** A DID this wallet does not hold: configuring it as ISSUER_DID is a server misconfiguration. */
const FOREIGN_ISSUER_DID = 'did:polygonid:polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn';

const tmp = tempDir('vc-behaviour-http-');
let driver: HttpDriver;
/** The same wallet configuration plus a bearer token and an ISSUER_DID it does not hold. */
let guarded: HttpDriver;

beforeAll(async () => {
  driver = await createHttpDriver(behaviourVariables(), templateHome(path.join(tmp.dir, 'home')));
  guarded = await createHttpDriver(behaviourVariables({ VC_API_TOKEN: TOKEN, ISSUER_DID: FOREIGN_ISSUER_DID }), path.join(tmp.dir, 'guarded'));
});
afterAll(async () => {
  await driver?.close();
  await guarded?.close();
  tmp.cleanup();
});

interface Answer {
  status: number;
  headers: Headers;
  error: { code: string; message: string; field?: string };
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: Answer['error'] };
  return { status: response.status, headers: response.headers, error: body.error };
}

const json = { 'content-type': 'application/json' };

describe('behaviours over HTTP', () => {
  describeSelectiveDisclosureBehaviours(() => driver, () => tmp.dir);
  const pbq = describeProofByQueryBehaviours(() => driver);

  describe('every error status, from the real routes', () => {
    it('400 for malformed JSON and for a body that fails its schema', async () => {
      const url = `${driver.urls.holder}/generate-selective-disclosure-vc`;
      const malformed = await send(url, { method: 'POST', headers: json, body: '{"credentialType":' });
      expect(malformed.status).toBe(400);
      expect(malformed.error.code).toBe('invalid_json');
      const invalid = await send(url, { method: 'POST', headers: json, body: JSON.stringify({ credentialType: 'PassportCredential' }) });
      expect(invalid.status).toBe(400);
      expect(invalid.error).toMatchObject({ code: 'invalid_input', field: 'selectiveDisclosureKeys' });
    });

    it('401 without or with a wrong bearer token when VC_API_TOKEN is set; /healthz stays open', async () => {
      const url = `${guarded.urls.verifier}/verify-vc`;
      const none = await send(url, { method: 'POST', headers: json, body: JSON.stringify({ vc: {} }) });
      expect(none.status).toBe(401);
      expect(none.error.code).toBe('unauthorized');
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await send(url, { method: 'POST', headers: { ...json, authorization: `Bearer ${TOKEN}x` }, body: JSON.stringify({ vc: {} }) });
      expect(wrong.status).toBe(401);
      expect((await fetch(`${guarded.urls.verifier}/healthz`)).status).toBe(200);
      // With the token the same route answers (a failed verification is a result, not an error).
      expect((await guarded.verifyVc({ vc: {} })).verified).toBe(false);
    });

    it('404 for an unknown route and for a resource that does not exist', async () => {
      const route = await send(`${driver.urls.verifier}/verify`, { method: 'POST', headers: json, body: '{}' });
      expect(route.status).toBe(404);
      expect(route.error.code).toBe('not_found');
      const node = await send(`${driver.urls.issuer}/node/${'ab'.repeat(32)}`);
      expect(node.status).toBe(404);
      expect(node.error).toMatchObject({ code: 'not_found', field: 'hash' });
    });

    it('405 with Allow for a known path and the wrong method', async () => {
      const answer = await send(`${driver.urls.verifier}/verify-vc`);
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST');
      expect(answer.error.code).toBe('method_not_allowed');
    });

    it('409 for revoking a credential that is already revoked', async () => {
      expect(pbq.revokedNonce, 'the proof-by-query behaviours revoked a credential').toBeDefined();
      const answer = await send(`${driver.urls.issuer}/revoke`, { method: 'POST', headers: json, body: JSON.stringify({ nonce: pbq.revokedNonce }) });
      expect(answer.status).toBe(409);
      expect(answer.error).toMatchObject({ code: 'conflict', field: 'nonce' });
    });

    it('413 for a body over the default limit of 1 MiB', async () => {
      const body = JSON.stringify({ vc: { padding: 'x'.repeat(1024 * 1024) } });
      const answer = await send(`${driver.urls.verifier}/verify-vc`, { method: 'POST', headers: json, body });
      expect(answer.status).toBe(413);
      expect(answer.error.code).toBe('payload_too_large');
      expect(answer.error.message).toMatch(/1048576 bytes/);
    });

    it('415 for a body that is not JSON', async () => {
      const answer = await send(`${driver.urls.verifier}/verify-vc`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'vc=1' });
      expect(answer.status).toBe(415);
      expect(answer.error.code).toBe('unsupported_media_type');
    });

    it('422 for a well-formed request that cannot be processed', async () => {
      const body = JSON.stringify({ credentialSubject: { ...SUBJECT, shoeSize: 44 } });
      const answer = await send(`${driver.urls.issuer}/generate-sd-credentials`, { method: 'POST', headers: json, body });
      expect(answer.status).toBe(422);
      expect(answer.error.code).toBe('unprocessable');
      expect(answer.error.message).toMatch(/shoeSize/);
    });

    it('500 when the server is misconfigured (ISSUER_DID names an identity the wallet lacks)', async () => {
      await expectCallError(guarded.createIssuerDid(), { status: 500, code: 'config_error', field: 'ISSUER_DID', message: /^config error on the server \(see its log\)$/ });
    });
  });
});
