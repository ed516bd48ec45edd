/**
 * The routes of the common suites and of presentations over a real server (its BBS+ worker
 * threads sign and verify): POST /credentials/issue with options.cryptosuite, GET /did-key and
 * POST /presentations on the holder, POST /presentations/verify on the verifier, with their
 * status codes; and bad input on every new route is a 4xx with a JSON error body naming what was
 * wrong, never a 500.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { tempDir } from '../helpers.js';
import { digitalBazaarVerifyCredential, digitalBazaarVerifyPresentation } from '../sd/suites/rdfc/digitalBazaarSide.js';

type Json = Record<string, unknown>;
const tmp = tempDir('vc-vp-http-');
let ctx: Context;
let server: RunningServer;
let issuer: string;
let verifier: string;
let holderUrl: string;
let holder: string;

async function call(url: string, body?: unknown, raw = false): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ? (body as string) : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Json };
}

beforeAll(async () => {
  ctx = new Context({ config: parseConfig({ CIRCUITS_PATH: tmp.dir, VC_WORKERS: '1' }, path.join(tmp.dir, 'home')) });
  server = await startServer(ctx, { roles: ['issuer', 'holder', 'verifier'], port: 0, host: '127.0.0.1' });
  issuer = server.urls.issuer!;
  verifier = server.urls.verifier!;
  holderUrl = server.urls.holder!;
  holder = ((await call(`${holderUrl}/did-key`)).body as { did: string }).did;
}, 120_000);
afterAll(async () => {
  await server.close();
  await ctx.close();
  tmp.cleanup();
});

function unsigned(subject: string): Json {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://w3id.org/vdl/v1'],
    type: ['VerifiableCredential', 'Iso18013DriversLicenseCredential'],
    validFrom: '2024-01-01T00:00:00Z',
    credentialSubject: { id: subject, type: 'LicensedDriver', driversLicense: { type: 'Iso18013DriversLicense', document_number: '542426814' } },
  };
}

describe('issue, present, verify over HTTP', () => {
  it('eddsa and ecdsa credentials (201), a presentation of both (201), verified (200) once, the replay refused (422)', async () => {
    const keys = (await call(`${issuer}/bbs-key`)).body as { eddsaRdfc2022: { did: string }; ecdsaRdfc2019: Record<string, { did: string }> };
    const eddsa = await call(`${issuer}/credentials/issue`, { credential: unsigned(holder), options: { cryptosuite: 'eddsa-rdfc-2022' } });
    expect(eddsa.status, JSON.stringify(eddsa.body)).toBe(201);
    const first = eddsa.body.verifiableCredential as Json;
    expect(first.issuer).toBe(keys.eddsaRdfc2022.did);
    const ecdsa = await call(`${issuer}/credentials/issue`, { credential: unsigned(holder), options: { cryptosuite: 'ecdsa-rdfc-2019' } });
    expect(ecdsa.status).toBe(201);
    const second = ecdsa.body.verifiableCredential as Json;
    expect(second.issuer).toBe(keys.ecdsaRdfc2019['P-256']!.did);
    expect((await digitalBazaarVerifyCredential(second)).verified).toBe(true);
    expect((await call(`${verifier}/credentials/verify`, { verifiableCredential: first })).status).toBe(200);

    const challenge = ((await call(`${verifier}/nonce`, {})).body as { nonce: string }).nonce;
    const presented = await call(`${holderUrl}/presentations`, {
      presentation: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], verifiableCredential: [first, second] },
      options: { challenge, domain: 'verifier.example' },
    });
    expect(presented.status, JSON.stringify(presented.body)).toBe(201);
    const vp = presented.body.verifiablePresentation as Json;
    expect(vp.holder).toBe(holder);
    expect((await digitalBazaarVerifyPresentation(vp, challenge, 'verifier.example')).verified).toBe(true);

    const verified = await call(`${verifier}/presentations/verify`, { verifiablePresentation: vp, options: { challenge, domain: 'verifier.example' } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ verified: true, errors: [], credentialResults: [{ index: 0, verified: true }, { index: 1, verified: true }] });
    const replay = await call(`${verifier}/presentations/verify`, { verifiablePresentation: vp, options: { challenge, domain: 'verifier.example' } });
    expect(replay.status).toBe(422);
    expect((replay.body.errors as Array<{ message: string }>)[0]?.message).toMatch(/nonce already used .*\(replayed proof\)/);
    const otherChallenge = await call(`${verifier}/presentations/verify`, { verifiablePresentation: vp, options: { challenge: 'another' } });
    expect(otherChallenge.status).toBe(422);
    expect((otherChallenge.body.errors as Array<{ message: string }>)[0]?.message).toMatch(/signed for the challenge/);
  });
});

describe('bad input on every new route: 4xx with a JSON error, never 500', () => {
  const cases: Array<[string, () => string, unknown, number, RegExp]> = [
    ['issue: unknown cryptosuite', () => `${issuer}/credentials/issue`, { credential: unsigned('did:example:a'), options: { cryptosuite: 'ed25519-2020' } }, 400, /options\.cryptosuite/],
    ['issue: curve without ecdsa', () => `${issuer}/credentials/issue`, { credential: unsigned('did:example:a'), options: { cryptosuite: 'eddsa-rdfc-2022', curve: 'P-384' } }, 400, /options\.curve: applies to ecdsa-rdfc-2019 only/],
    ['issue: mandatoryPointers with eddsa', () => `${issuer}/credentials/issue`, { credential: unsigned('did:example:a'), options: { cryptosuite: 'eddsa-rdfc-2022', mandatoryPointers: ['/issuer'] } }, 400, /applies to bbs-2023 only/],
    ['issue: another issuer', () => `${issuer}/credentials/issue`, { credential: { ...unsigned('did:example:a'), issuer: 'did:example:x' }, options: { cryptosuite: 'ecdsa-rdfc-2019' } }, 422, /credential\.issuer: expected this issuer's ecdsa-rdfc-2019 P-256 DID/],
    ['issue: an undefined term', () => `${issuer}/credentials/issue`, { credential: { ...unsigned('did:example:a'), credentialSubject: { id: 'did:example:a', nickname: 'x' } }, options: { cryptosuite: 'eddsa-rdfc-2022' } }, 422, /nickname/],
    ['did-key: bogus key type', () => `${holderUrl}/did-key?keyType=RSA`, undefined, 400, /keyType/],
    ['present: no body', () => `${holderUrl}/presentations`, {}, 400, /presentation/],
    ['present: no challenge', () => `${holderUrl}/presentations`, { presentation: { type: ['VerifiablePresentation'] }, options: {} }, 400, /options\.challenge/],
    ['present: unknown option', () => `${holderUrl}/presentations`, { presentation: {}, options: { challenge: 'c', created: '2020-01-01T00:00:00Z' } }, 400, /created/],
    ['present: proofPurpose other than authentication', () => `${holderUrl}/presentations`, { presentation: {}, options: { challenge: 'c', proofPurpose: 'assertionMethod' } }, 400, /authentication/],
    ['present: no credentials', () => `${holderUrl}/presentations`, { presentation: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'] }, options: { challenge: 'c' } }, 422, /carries no credential/],
    ['present: a credential that is a string', () => `${holderUrl}/presentations`, { presentation: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], verifiableCredential: ['x'] }, options: { challenge: 'c' } }, 422, /expected a credential object/],
    ['present: already signed', () => `${holderUrl}/presentations`, { presentation: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], proof: {} }, options: { challenge: 'c' } }, 422, /already has a proof/],
    ['present: an unknown context', () => `${holderUrl}/presentations`, { presentation: { '@context': ['https://www.w3.org/ns/credentials/v2', 'https://evil.example/ctx'], type: ['VerifiablePresentation'] }, options: { challenge: 'c' } }, 422, /not a known context/],
    ['present: eleven credentials', () => `${holderUrl}/presentations`, { presentation: { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], verifiableCredential: new Array(11).fill({ type: ['VerifiableCredential'], proof: {} }) }, options: { challenge: 'c' } }, 422, /more than 10 credentials/],
    ['present: a challenge too long', () => `${holderUrl}/presentations`, { presentation: {}, options: { challenge: 'c'.repeat(2000) } }, 400, /options\.challenge/],
    ['verify: no options', () => `${verifier}/presentations/verify`, { verifiablePresentation: {} }, 400, /options/],
    ['verify: no challenge', () => `${verifier}/presentations/verify`, { verifiablePresentation: {}, options: { domain: 'd' } }, 400, /options\.challenge/],
    ['verify: the presentation as a string', () => `${verifier}/presentations/verify`, { verifiablePresentation: 'vp', options: { challenge: 'c' } }, 400, /verifiablePresentation/],
    ['verify: not JSON', () => `${verifier}/presentations/verify`, '{"verifiablePresentation": ', 400, /JSON|body/i],
    ['verify: an array body', () => `${verifier}/presentations/verify`, [1, 2], 400, /object|expected/],
  ];
  for (const [name, url, body, status, message] of cases) {
    it(name, async () => {
      const answer = await call(url(), body, typeof body === 'string');
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect((answer.body.error as { message: string }).message).toMatch(message);
    });
  }

  it('verify: malformed presentations are a 422 with the reason (a result, not a crash)', async () => {
    const broken: Array<[unknown, RegExp]> = [
      [{}, /first context of a presentation must be/],
      [{ '@context': ['https://www.w3.org/ns/credentials/v2'], type: 'VerifiablePresentation', verifiableCredential: { type: 'VerifiableCredential', proof: {} }, proof: 'x' }, /there is no proof object/],
      [{ '@context': ['https://www.w3.org/ns/credentials/v2'], type: 'VerifiablePresentation', verifiableCredential: { type: 'VerifiableCredential', proof: {} }, proof: [{}, {}] }, /a set of several proofs/],
      [{ '@context': ['https://www.w3.org/ns/credentials/v2'], type: 'VerifiablePresentation', verifiableCredential: { type: 'VerifiableCredential', proof: {} }, proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'authentication', verificationMethod: 'did:key:z6Mk1111#x', proofValue: 'z1' } }, /not a did:key of an Ed25519/],
      [{ '@context': ['https://www.w3.org/ns/credentials/v2'], type: 'VerifiablePresentation', verifiableCredential: { type: 'VerifiableCredential', proof: {} }, proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'authentication', verificationMethod: `${holder}#${holder.slice(8)}`, proofValue: 'zzz', challenge: 'c' } }, /proof value is malformed/],
      [{ '@context': ['https://www.w3.org/ns/credentials/v2'], type: 'VerifiablePresentation', holder: 12, verifiableCredential: { type: 'VerifiableCredential', proof: {} } }, /holder: expected a URL/],
      [{ '@context': ['https://www.w3.org/ns/credentials/v2', { '@vocab': 'https://evil.example/' }], type: 'VerifiablePresentation', verifiableCredential: { type: 'VerifiableCredential', proof: {} } }, /inline @context|@context/],
    ];
    for (const [verifiablePresentation, reason] of broken) {
      const answer = await call(`${verifier}/presentations/verify`, { verifiablePresentation, options: { challenge: 'c' } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect((answer.body.errors as Array<{ message: string }>)[0]?.message, JSON.stringify(verifiablePresentation)).toMatch(reason);
    }
  });
});
