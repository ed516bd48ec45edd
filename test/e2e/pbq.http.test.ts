/**
 * Proof-by-query routes over HTTP against a real `vc serve --role all` on free ports: holder DID,
 * issuer DID, credential request, issuance, the embedded reverse hash service (GET/POST /node),
 * the on-chain request status, and JSON error bodies for bad requests.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVc, startVcServe, tempDir, templateHome, type ServedUrls, type VcServer } from '../helpers.js';

type Json = Record<string, unknown>;

const LONG = 900_000;
const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const tmp = tempDir('vc-pbq-http-');
const home = templateHome(path.join(tmp.dir, 'home'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
let server: VcServer | undefined;
let urls: ServedUrls;

async function call(method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

beforeAll(async () => {
  server = await startVcServe(home, ['--role', 'all'], { env });
  urls = server.urls as ServedUrls;
}, 1_200_000);

afterAll(async () => {
  await server?.stop();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('proof by query over HTTP (vc serve --role all)', () => {
  it('holder DID, issuer DID, request, issue, the embedded RHS and the request status', async () => {
    const holder = await call('POST', `${urls.holder}/did`, {});
    expect(holder.status).toBe(200);
    expect(holder.body.message).toBe('did successfully created');
    const holderDid = holder.body.did_String as string;
    expect((await call('POST', `${urls.holder}/did`, {})).body.did_String).toBe(holderDid);

    const issuer = await call('POST', `${urls.issuer}/did`, {});
    expect(issuer.status).toBe(200);
    expect((issuer.body.payload as Json).method).toBe('polygonid');

    const request = await call('POST', `${urls.verifier}/credential-requests`, {});
    expect(request.status).toBe(201);
    expect(request.body).toMatchObject({ circuitId: 'credentialAtomicQueryMTPV2OnChain', query: { type: 'PassportCredential' } });
    const requestId = request.body.id as number;

    const issued = await call('POST', `${urls.issuer}/generate-pbq-credentials`, { did: holderDid });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const credential = issued.body.credential as Json;
    expect((credential.credentialSubject as Json).id).toBe(holderDid);
    expect((credential.proof as Json[]).map((p) => p.type)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);

    // The embedded reverse hash service serves the issuer's published state node.
    const state = new URL((credential.credentialStatus as Json).id as string).searchParams.get('state')!;
    const node = await call('GET', `${urls.issuer}/node/${state}`);
    expect(node.status).toBe(200);
    expect((node.body.node as Json).hash).toBe(state);
    expect(((node.body.node as Json).children as string[]).length).toBe(3);

    // No proof yet: the verifier reads false from the contract. (Prove-submit over HTTP, with the
    // {"<id>": true} mapping and the replay refusal, is covered by test/e2e/behaviour/pbq.behaviour.ts.)
    const status = await call('GET', `${urls.verifier}/request-status?request=${requestId}&address=${DEV_ADDRESS}`);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ requestId, address: DEV_ADDRESS, isVerified: false });
    const unknown = await call('GET', `${urls.verifier}/request-status?request=${requestId + 1}&address=${DEV_ADDRESS}`);
    expect(unknown.status).toBe(404);
  }, LONG);

  it('concurrent issuances share one state transition, each answered with its own credential; a bad one fails alone', async () => {
    const holderDid = (await call('POST', `${urls.holder}/did`, {})).body.did_String as string;
    const bodies: Json[] = [{ did: holderDid }, { did: holderDid }, { did: holderDid, subject: { birthDate: 'not a date' } }, { did: holderDid }, { did: holderDid }];
    const answers = await Promise.all(bodies.map((body) => call('POST', `${urls.issuer}/generate-pbq-credentials`, body)));
    expect(answers[2]!.status).toBe(422);
    expect(answers[2]!.body.error).toMatchObject({ code: 'unprocessable', field: 'subject.name', message: 'request body: field subject.name: missing: the schema requires it (string) (the JSON schema of PassportCredential)' });
    const issued = answers.filter((_, index) => index !== 2);
    for (const answer of issued) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const credentials = issued.map((answer) => answer.body.credential as Json);
    expect(new Set(credentials.map((c) => c.id)).size).toBe(4);
    for (const credential of credentials) expect((credential.credentialSubject as Json).id).toBe(holderDid);
    const txIds = credentials.map((c) => ((c.proof as Json[]).find((p) => p.type === 'Iden3SparseMerkleTreeProof')!.issuerData as { state: { txId: string } }).state.txId);
    expect(new Set(txIds).size, 'the four issuances share one state transition').toBe(1);
  }, LONG);

  it('answers bad requests with JSON errors naming the problem', async () => {
    const badDid = await call('POST', `${urls.issuer}/generate-pbq-credentials`, { did: 'not-a-did' });
    expect(badDid.status).toBe(400);
    expect((badDid.body.error as Json).field).toBe('did');
    const badRequest = await call('POST', `${urls.holder}/generate-submit-proof`, { verifiableCredential: {}, credentialRequest: { id: 1 } });
    expect(badRequest.status).toBe(400);
    const forged = await call('POST', `${urls.issuer}/node`, [{ hash: '00'.repeat(32), children: ['01'.repeat(32), '02'.repeat(32)] }]);
    expect(forged.status).toBe(400);
    expect(JSON.stringify(forged.body)).toMatch(/does not match its children/);
    const missing = await call('GET', `${urls.issuer}/node/${'ab'.repeat(32)}`);
    expect(missing.status).toBe(404);
  }, LONG);
});
