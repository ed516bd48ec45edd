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
/** The holder's DID (POST /did): the subject of the credential the issuer issues it, so its holder keeps it. */
let holderDid: string;

async function post(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Json };
}

beforeAll(async () => {
  server = await startVcServe(path.join(tmp.dir, 'home'));
  urls = server.urls as ServedUrls;
  holderDid = (await post(`${urls.holder}/did`, {})).body.did_String as string;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

describe('selective disclosure over HTTP (vc serve --role all)', () => {
  let issued: Json;

  it('issuer: POST /generate-sd-credentials returns the BBS+ signed credential', async () => {
    const { status, body } = await post(`${urls.issuer}/generate-sd-credentials`, { credentialSubject: { id: holderDid, name: 'Carol', passportNumber: 'C7', nationality: 'BEL', birthDate: 20000229, customerReference: '7d3c1f2a-1b2c-4d5e-8f90-a1b2c3d4e5f6', expiryDate: 20310615, publicAddress: '0x00ff' } });
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
    expect(vc.credentialSubject).toEqual({ id: holderDid, name: 'Carol', nationality: 'BEL' });
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
    expect(vc.credentialSubject).toEqual({ id: holderDid, birthDate: 20000229 });
    expect((await post(`${urls.verifier}/verify-vc`, { vc })).body.verified).toBe(true);
    (vc.credentialSubject as Json).birthDate = 19990101;
    const tampered = await post(`${urls.verifier}/verify-vc`, { vc });
    expect(tampered.status).toBe(200);
    expect(tampered.body.verified).toBe(false);
    expect((tampered.body.checks as Array<{ id: string; valid: boolean }>).find((c) => !c.valid)?.id).toBe('proof');
  });

  it('POST /verify-vc with requireNonce: true refuses a holder-chosen nonce, naming why', async () => {
    const disclosed = await post(`${urls.holder}/generate-selective-disclosure-vc`, {
      credentialType: 'PassportCredential',
      selectiveDisclosureKeys: ['nationality'],
      nonce: Buffer.alloc(32, 5).toString('base64'),
    });
    expect(disclosed.status).toBe(200);
    const vc = disclosed.body.vc as Json;
    const required = await post(`${urls.verifier}/verify-vc`, { vc, requireNonce: true });
    expect(required.status).toBe(200);
    expect(required.body.verified).toBe(false);
    expect(required.body.message).toMatch(/the proof nonce was not issued by this verifier/);
    expect((required.body.checks as Array<{ id: string; valid: boolean }>).filter((c) => !c.valid).map((c) => c.id)).toEqual(['nonce']);
    expect((await post(`${urls.verifier}/verify-vc`, { vc, requireNonce: false })).body.verified).toBe(true);
    const badFlag = await post(`${urls.verifier}/verify-vc`, { vc, requireNonce: 'yes' });
    expect(badFlag.status).toBe(400);
    expect(JSON.stringify(badFlag.body)).toMatch(/requireNonce/);
  });

  it('POST /nonce refuses a validity beyond one day', async () => {
    expect((await post(`${urls.verifier}/nonce`, { ttlSeconds: 86_401 })).status).toBe(400);
    expect((await post(`${urls.verifier}/nonce`, { ttlSeconds: 86_400 })).status).toBe(200);
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

describe('vc serve with VC_REQUIRE_NONCE=true', () => {
  let strict: VcServer | undefined;
  afterAll(async () => {
    await strict?.stop();
  });

  it('refuses a holder-chosen nonce even when the body says requireNonce: false, and accepts its own nonce', async () => {
    strict = await startVcServe(path.join(tmp.dir, 'strict'), ['--role', 'all'], { env: { VC_REQUIRE_NONCE: 'true' } });
    const strictUrls = strict.urls as ServedUrls;
    expect((await post(`${strictUrls.issuer}/generate-sd-credentials`, {})).status).toBe(200);
    const holderChosen = await post(`${strictUrls.holder}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['nationality'] });
    expect(holderChosen.status).toBe(200);
    for (const body of [{ vc: holderChosen.body.vc }, { vc: holderChosen.body.vc, requireNonce: false }]) {
      const refused = await post(`${strictUrls.verifier}/verify-vc`, body);
      expect(refused.status).toBe(200);
      expect(refused.body.verified).toBe(false);
      expect(refused.body.message).toMatch(/the proof nonce was not issued by this verifier/);
    }

    const nonce = await post(`${strictUrls.verifier}/nonce`, {});
    const bound = await post(`${strictUrls.holder}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['nationality'], nonce: nonce.body.nonce });
    const accepted = await post(`${strictUrls.verifier}/verify-vc`, { vc: bound.body.vc, requireNonce: false });
    expect(accepted.body).toMatchObject({ verified: true, message: 'user has been verified successfully' });
  }, 60_000);
});

describe('vc serve survives malformed BBS+ input (the library traps on some of it)', () => {
  it('answers every malformed proofValue with verified: false and a reason, then still verifies and serves /healthz', async () => {
    const issuedCredential = await post(`${urls.issuer}/generate-sd-credentials`, {});
    expect(issuedCredential.status).toBe(200);
    const disclosed = await post(`${urls.holder}/generate-selective-disclosure-vc`, { credentialType: 'PassportCredential', selectiveDisclosureKeys: ['name'] });
    expect(disclosed.status).toBe(200);
    const vc = disclosed.body.vc as Json;
    const bytes = Buffer.from((vc.proof as Json).proofValue as string, 'base64');
    const variants: unknown[] = [
      '',
      bytes.subarray(0, 1).toString('base64'),
      bytes.subarray(0, 149).toString('base64'),
      bytes.subarray(0, 153).toString('base64'),
      bytes.subarray(0, 200).toString('base64'),
      Buffer.concat([bytes, Buffer.alloc(7)]).toString('base64'),
      Buffer.alloc(bytes.length, 0xff).toString('base64'),
      'garbage!!',
      42,
      null,
    ];
    for (const proofValue of variants) {
      const response = await post(`${urls.verifier}/verify-vc`, { vc: { ...vc, proof: { ...(vc.proof as Json), proofValue } } });
      expect(response.status, String(proofValue)).toBe(200);
      expect(response.body.verified).toBe(false);
      expect(String(response.body.message)).toMatch(/^verification failed: (the proof value is malformed: |proof\.proofValue: null is not a value)/);
    }
    // A signature (issuer proof) truncated where the library would trap, given to import.
    const signed = issuedCredential.body;
    const truncated = { ...signed, proof: { ...(signed.proof as Json), proofValue: Buffer.from((signed.proof as Json).proofValue as string, 'base64').subarray(0, 50).toString('base64') } };
    const refused = await post(`${urls.holder}/sd-credentials`, { credential: truncated });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toMatch(/proof value is malformed: proofValue is 50 bytes/);

    const again = await post(`${urls.verifier}/verify-vc`, { vc });
    expect(again.body.verified).toBe(true);
    const health = await fetch(`${urls.verifier}/healthz`);
    expect([200, 503]).toContain(health.status);
  });
});
