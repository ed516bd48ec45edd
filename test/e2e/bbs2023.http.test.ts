/**
 * bbs-2023 over HTTP against a real `vc serve --role all`: the spec's routes (issue with the
 * format's route, disclose, verify with a nonce and its replay) and the W3C VC-API routes
 * (POST /credentials/issue, /credentials/derive, /credentials/verify) with their status codes,
 * including the refusals the W3C suite sends (400 for a credential sent as a string, 422 for a
 * proof that does not hold).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir, type ServedUrls, type VcServer } from '../helpers.js';

type Json = Record<string, unknown>;
const tmp = tempDir('vc-bbs2023-http-');
let server: VcServer | undefined;
let urls: ServedUrls;
let issuerDid: string;

async function call(url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

beforeAll(async () => {
  server = await startVcServe(path.join(tmp.dir, 'home'));
  urls = server.urls as ServedUrls;
  const key = await call(`${urls.issuer}/bbs-key`);
  issuerDid = (key.body.bbs2023 as { did: string }).did;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

describe('bbs-2023 on the spec routes', () => {
  it('issue, disclose with a verifier nonce, verify once (trusted with *), refuse the replay', async () => {
    // For the holder's own DID: the holder of the same wallet keeps it (one for another DID it would not).
    const holderDid = (await call(`${urls.holder}/did`, {})).body.did_String as string;
    const issued = await call(`${urls.issuer}/generate-sd-credentials/bbs-2023`, { holder: holderDid });
    expect(issued.status).toBe(200);
    expect(issued.body.issuer).toBe(issuerDid);
    expect(issued.body.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'bbs-2023' });
    const nonce = await call(`${urls.verifier}/nonce`, {});
    const disclosed = await call(`${urls.holder}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['id', 'nationality'], nonce: nonce.body.nonce });
    expect(disclosed.status).toBe(200);
    const vc = disclosed.body.vc as Json;
    expect(vc.credentialSubject).toEqual({ id: holderDid, nationality: 'NLD' });
    const first = await call(`${urls.verifier}/verify-vc`, { vc, requireNonce: true });
    expect(first.body).toMatchObject({ verified: true });
    const replay = await call(`${urls.verifier}/verify-vc`, { vc, requireNonce: true });
    expect(replay.body.verified).toBe(false);
    expect(replay.body.message).toMatch(/replayed proof/);
  });
});

describe('the W3C VC-API routes', () => {
  it('issue 201, derive 201, verify 200; a changed value 422, a credential sent as a string 400', async () => {
    const credential = {
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
      id: 'urn:uuid:5f1d2c3b-1111-4222-8333-944445555666',
      type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
      issuer: issuerDid,
      credentialSubject: { id: 'did:example:bob', type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '542426814', family_name: 'TURNER' } },
    };
    const issued = await call(`${urls.issuer}/credentials/issue`, { credential, options: { mandatoryPointers: ['/issuer'] } });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const signed = issued.body.verifiableCredential as Json;
    expect((signed.proof as Json).proofValue).toMatch(/^u2V0C/);
    const derived = await call(`${urls.holder}/credentials/derive`, { verifiableCredential: signed, options: { selectivePointers: ['/credentialSubject/driversLicense/document_number'] } });
    expect(derived.status, JSON.stringify(derived.body)).toBe(201);
    const disclosed = derived.body.verifiableCredential as Json;
    expect(JSON.stringify(disclosed)).not.toContain('TURNER');
    const verified = await call(`${urls.verifier}/credentials/verify`, { verifiableCredential: disclosed, options: { checks: ['proof'] } });
    expect(verified).toEqual({ status: 200, body: { verified: true, checks: ['data-model', 'proof'], warnings: [], errors: [] } });

    const tampered = structuredClone(disclosed);
    ((tampered.credentialSubject as Json).driversLicense as Json).document_number = '000000000';
    const refused = await call(`${urls.verifier}/credentials/verify`, { verifiableCredential: tampered });
    expect(refused.status).toBe(422);
    expect(refused.body.verified).toBe(false);
    expect((refused.body.errors as Array<{ message: string }>)[0]?.message).toMatch(/does not match the disclosed statements/);

    const asString = await call(`${urls.verifier}/credentials/verify`, { verifiableCredential: JSON.stringify(disclosed) });
    expect(asString.status).toBe(400);
    expect(asString.body.error).toMatchObject({ code: 'invalid_input', field: 'verifiableCredential' });
    const missing = await call(`${urls.verifier}/credentials/verify`, { options: { checks: ['proof'] } });
    expect(missing.status).toBe(400);
    const undefinedType = await call(`${urls.issuer}/credentials/issue`, { credential: { ...credential, type: ['VerifiableCredential', 'InvalidType'], '@context': ['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/vdl/v1'], issuanceDate: '2024-01-01T00:00:00Z' } });
    expect(undefinedType.status).toBe(422);
    expect(JSON.stringify(undefinedType.body)).toMatch(/InvalidType/);
  });
});
