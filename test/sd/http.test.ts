/**
 * The selective-disclosure round trip over HTTP against a real `vc serve --role all` on free ports:
 * issuer -> holder -> verifier, the nonce flow with replay, and the error bodies of bad requests.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir, type ServedUrls, type VcServer } from '../helpers.js';

type Json = Record<string, unknown>;

const tmp = tempDir('vc-sd-http-');
let server: VcServer | undefined;
let urls: ServedUrls;

async function post(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

beforeAll(async () => {
  server = await startVcServe(path.join(tmp.dir, 'home'));
  urls = server.urls as ServedUrls;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

describe('selective disclosure over HTTP (vc serve --role all)', () => {
  let issued: Json;

  it('issuer: POST /generate-sd-credentials returns the BBS+ signed credential', async () => {
    const { status, body } = await post(`${urls.issuer}/generate-sd-credentials`, { credentialSubject: { id: 'did:example:carol', name: 'Carol', passportNumber: 'C7', nationality: 'BEL', birthDate: 20000229, customerReference: '7d3c1f2a-1b2c-4d5e-8f90-a1b2c3d4e5f6', expiryDate: 20310615, publicAddress: '0x00ff' } });
    expect(status).toBe(200);
    expect(body.type).toEqual(['VerifiableCredential', 'PassportCredential']);
    expect((body.proof as Json).type).toBe('BbsBlsSignature2020');
    issued = body;
  });

  it('holder + verifier: disclose with a verifier nonce, verify once, reject the replay', async () => {
    const nonce = await post(`${urls.verifier}/nonce`, {});
    expect(nonce.status).toBe(200);
    const disclosed = await post(`${urls.holder}/generate-selective-disclosure-vc`, {
      credentialType: 'PassportCredential',
      selectiveDisclosureKeys: ['id', 'name', 'nationality'],
      nonce: nonce.body.nonce,
    });
    expect(disclosed.status).toBe(200);
    expect(disclosed.body.message).toBe('proof successfully generated and submitted');
    const vc = disclosed.body.vc as Json;
    expect(vc.credentialSubject).toEqual({ id: 'did:example:carol', name: 'Carol', nationality: 'BEL' });
    expect(vc.issuer).toBe(issued.issuer);
    expect((vc.proof as Json).nonce).toBe(nonce.body.nonce);

    const first = await post(`${urls.verifier}/verify-vc`, { vc });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ verified: true, message: 'user has been verified successfully' });
    const replay = await post(`${urls.verifier}/verify-vc`, { vc });
    expect(replay.body.verified).toBe(false);
    expect(replay.body.message).toMatch(/already used/);
  });

  it('the spec request without a nonce works, and a tampered value is reported, not thrown', async () => {
    const disclosed = await post(`${urls.holder}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['birthDate'] });
    expect(disclosed.status).toBe(200);
    const vc = disclosed.body.vc as Json;
    expect(vc.credentialSubject).toEqual({ id: 'did:example:carol', birthDate: 20000229 });
    expect((await post(`${urls.verifier}/verify-vc`, { vc })).body.verified).toBe(true);
    (vc.credentialSubject as Json).birthDate = 19990101;
    const tampered = await post(`${urls.verifier}/verify-vc`, { vc });
    expect(tampered.status).toBe(200);
    expect(tampered.body.verified).toBe(false);
    expect((tampered.body.checks as Array<{ id: string; valid: boolean }>).find((c) => !c.valid)?.id).toBe('proof');
  });

  it('answers bad requests with JSON errors naming the problem', async () => {
    const missing = await post(`${urls.holder}/generate-selective-disclosure-vc`, { credentialType: 'DriverLicence', selectiveDisclosureKeys: ['name'] });
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toMatch(/no DriverLicence credential/);
    const noKeys = await post(`${urls.holder}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: [] });
    expect(noKeys.status).toBe(400);
    const undefinedTerm = await post(`${urls.issuer}/generate-sd-credentials`, { type: 'PassportCredential', credentialSubject: { ...(issued.credentialSubject as Json), shoeSize: 44 } });
    expect(undefinedTerm.status).toBe(422);
    expect(JSON.stringify(undefinedTerm.body)).toMatch(/shoeSize/);
  });
});
