/**
 * The iden3comm session routes of `vc serve --role verifier` (issue 28) and their bad input, with
 * no chain and no proof: a request made, read back as a wallet's request_uri reads it, its status
 * pending; a callback for an unknown session, of the wrong media type, without a session, with a
 * body that is no JWZ, a huge token or a body over the limit: each a 4xx with the JSON error body,
 * never a 500 or a hang. (A wallet's real answer: test/e2e/iden3commVerifier.test.ts.) The bad
 * input of POST /contract-requests (on chain), refused before the chain is reached. A request of
 * 16 queries of 64 values each leaves /healthz answering meanwhile.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVcServe, tempDir, type VcServer } from '../helpers.js';

const tmp = tempDir('vc-auth-sessions-');
let server: VcServer;
let base: string;

/** The server's circuits cache, empty: no circuit is built here (as in CI's unit run), whatever this machine's cache holds. */
const cache = path.join(tmp.dir, 'empty-circuits-cache');

beforeAll(async () => {
  mkdirSync(cache, { recursive: true });
  // No BBS+ call here: VC_WORKERS=0 starts no worker threads (each loads and self-tests the BBS+ libraries).
  server = await startVcServe(path.join(tmp.dir, 'home'), ['--role', 'verifier'], { env: { VC_BODY_LIMIT: String(512 * 1024), VC_CIRCUITS_CACHE: cache, VC_WORKERS: '0' } });
  base = server.urls.verifier!;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

type Json = Record<string, unknown>;
const post = async (url: string, body: string, contentType: string): Promise<{ status: number; body: Json }> => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as Json };
};
const get = async (url: string): Promise<{ status: number; body: Json }> => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Json };
};
const errorOf = (answer: { body: Json }): { code: string; message: string } => answer.body.error as { code: string; message: string };
const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const ZKP_HEADER = { alg: 'groth16', circuitId: 'authV2', crit: ['circuitId'], typ: 'application/iden3-zkp-json' };

describe('iden3comm sessions', () => {
  let id: string;

  it('makes a request, gives it back by its id, and says pending until a token verifies', async () => {
    const made = await post(`${base}/auth-requests`, JSON.stringify({ op: '$sd', reason: 'age check', callback: `${base}/callback`, expires: 600 }), 'application/json');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ type: 'https://iden3-communication.io/authorization/1.0/request', body: { reason: 'age check', scope: [{ circuitId: 'credentialAtomicQueryV3' }] } });
    id = String(made.body.id);
    expect(made.body.thid).toBe(id);
    // The callback names the session: the request's id.
    expect((made.body.body as Json).callbackUrl).toBe(`${base}/callback?sessionId=${id}`);
    expect(await get(`${base}/auth-requests/${id}`)).toEqual({ status: 200, body: made.body });
    expect(await get(`${base}/auth-requests/${id}/status`)).toEqual({ status: 200, body: { id, status: 'pending' } });
    // The CLI's display flags are not the route's.
    expect((await post(`${base}/auth-requests`, JSON.stringify({ qr: true }), 'application/json')).status).toBe(400);
  });

  it('makes a request of several proof requests from a queries list, and refuses a query that does not fit, naming it', async () => {
    const context = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';
    const queries = [
      { type: 'PassportCredential', credentialSubject: { birthDate: {} } },
      { type: 'PassportCredential', context, allowedIssuers: ['*'], credentialSubject: { expiryDate: { $gt: 20300101 } }, proofType: 'Iden3SparseMerkleTreeProof' },
    ];
    const made = await post(`${base}/auth-requests`, JSON.stringify({ queries, callback: `${base}/callback` }), 'application/json');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const scope = (made.body.body as { scope: Array<{ id: number; circuitId: string; query: Json }> }).scope;
    expect(scope.map((item) => item.query)).toEqual([{ allowedIssuers: ['*'], type: 'PassportCredential', context, credentialSubject: { birthDate: {} } }, queries[1]]);
    expect(scope[0]!.id).not.toBe(scope[1]!.id);
    expect(await get(`${base}/auth-requests/${String(made.body.id)}`)).toEqual({ status: 200, body: made.body });

    const refused = async (body: Json): Promise<{ status: number; code: string; message: string }> => {
      const answer = await post(`${base}/auth-requests`, JSON.stringify(body), 'application/json');
      return { status: answer.status, ...errorOf(answer) };
    };
    expect(await refused({ queries: [queries[0], { type: 'PassportCredential', credentialSubject: { shoeSize: { $lt: 42 } } }] })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^request body: field queries\[1\]\.credentialSubject: PassportCredential has no field shoeSize; /),
    });
    expect(await refused({ queries: [{ type: 'PassportCredential', credentialSubject: { birthDate: { $lt: 'soon' } } }] })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^request body: field queries\[0\]\.credentialSubject\.birthDate\.\$lt: "soon" is not an integer/),
    });
    expect(await refused({ queries: [{ type: 'NoSuchCredential', context, credentialSubject: { birthDate: {} } }] })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^request body: field queries\[0\]\.type: the context \S+ does not define the type NoSuchCredential/),
    });
    expect(await refused({ queries: [] })).toMatchObject({ status: 400, message: expect.stringMatching(/queries/) });
    // A condition under a "__proto__" key (which a schema's record would drop, leaving {}: a
    // disclosure where a comparison was asked) is refused, naming where it is.
    const proto = await post(`${base}/auth-requests`, '{"queries": [{"type": "PassportCredential", "credentialSubject": {"birthDate": {"__proto__": {"$lt": 20010101}}}}]}', 'application/json');
    expect(proto.status).toBe(400);
    expect(errorOf(proto)).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/^request body: the key "__proto__" at queries\[0\]\.credentialSubject\.birthDate is not accepted/) });
    expect(await refused({ queries, op: '$sd' })).toMatchObject({ status: 400, message: 'request body: field op and request body: field queries both describe the query: give the query flags for one query, or every query as JSON (request body: field queries)' });
    expect(await refused({ queries: Array.from({ length: 17 }, () => queries[0]) })).toMatchObject({ status: 400, message: expect.stringMatching(/at most 16 queries/) });
    // A request over what a wallet reads (64 KiB) is refused (413).
    const issuers = Array.from({ length: 1100 }, () => 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR');
    expect(await refused({ op: '$sd', allowedIssuers: issuers })).toMatchObject({
      status: 413,
      message: expect.stringMatching(/^request body: field allowedIssuers: the request would be \d+ bytes; a wallet \(vc holder respond\) reads at most 64 KiB: /),
    });
  });

  it('answers /healthz while it makes a request of many $in values (its event loop turns between the values)', async () => {
    // (stop 36: 16 queries of 64 values, each a Poseidon hash of ~2 ms, held the event loop ~2 s, /healthz waiting.)
    // The verifier identity and the context are made and loaded first.
    expect((await post(`${base}/auth-requests`, JSON.stringify({ queries: [{ type: 'PassportCredential', credentialSubject: { birthDate: {} } }] }), 'application/json')).status).toBe(201);
    const queries = Array.from({ length: 4 }, (_, k) => ({ type: 'PassportCredential', credentialSubject: { nationality: { $in: Array.from({ length: 64 }, (_, i) => `N${k}-${i}`) } } }));
    // Told by the order of the answers, not by a clock: /healthz asked one after another, the answers
    // that arrive after the request was sent and before its own answer were served between its values.
    const phase: { now: 'before' | 'during' | 'after' } = { now: 'before' };
    let answeredDuring = 0;
    const sampling = (async () => {
      while (phase.now !== 'after') {
        // Answered: 200, or 503 "degraded" where no circuit files are built yet (the unit project's CI run).
        const answered = await fetch(`${base}/healthz`);
        expect([200, 503]).toContain(answered.status);
        expect(await answered.json()).toMatchObject({ role: expect.any(String), status: expect.stringMatching(/^(ok|degraded)$/) });
        if (phase.now === 'during') answeredDuring += 1;
      }
    })();
    const making = post(`${base}/auth-requests`, JSON.stringify({ queries }), 'application/json');
    phase.now = 'during';
    const made = await making;
    phase.now = 'after';
    await sampling;
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const scope = (made.body.body as { scope: Array<{ query: { credentialSubject: Json } }> }).scope;
    expect(scope.map((item) => item.query.credentialSubject)).toEqual(queries.map((query) => query.credentialSubject));
    expect(answeredDuring).toBeGreaterThan(3);
  }, 60_000);

  it('answers bad input with a 4xx and the JSON error body', async () => {
    const token = `${b64(ZKP_HEADER)}.${b64({ id: '1' })}.${b64({ proof: {}, pub_signals: [] })}`;
    const unknownSession = await post(`${base}/callback?sessionId=nope`, token, 'text/plain');
    expect(unknownSession.status).toBe(404);
    expect(errorOf(unknownSession)).toMatchObject({ code: 'not_found', message: 'query string: field sessionId: no session nope (POST /auth-requests makes one; its id is the session id)' });
    expect((await get(`${base}/auth-requests/nope`)).status).toBe(404);
    expect((await get(`${base}/auth-requests/nope/status`)).status).toBe(404);

    const noSession = await post(`${base}/callback`, token, 'text/plain');
    expect(noSession.status).toBe(400);
    expect(errorOf(noSession).message).toMatch(/sessionId/);

    // A JSON body, or a form, is not a token: 415; and a token is not accepted where JSON is.
    expect((await post(`${base}/callback?sessionId=${id}`, JSON.stringify({ token }), 'application/json')).status).toBe(415);
    expect((await post(`${base}/callback?sessionId=${id}`, `token=${token}`, 'application/x-www-form-urlencoded')).status).toBe(415);
    const tokenElsewhere = await post(`${base}/auth-requests`, token, 'text/plain');
    expect(tokenElsewhere.status).toBe(415);
    expect(errorOf(tokenElsewhere).code).toBe('unsupported_media_type');

    const notJwz = await post(`${base}/callback?sessionId=${id}`, 'hello', 'text/plain');
    expect(notJwz.status).toBe(400);
    expect(errorOf(notJwz).message).toBe('request body: not a JWZ token: expected three base64url parts header.payload.proof, found 1 part');
    const wrongTyp = await post(`${base}/callback?sessionId=${id}`, `${b64({ alg: 'ES256K', typ: 'application/iden3comm-signed-json' })}.${b64({})}.${b64('x')}`, 'application/iden3-zkp-json');
    expect(wrongTyp.status).toBe(400);
    expect(errorOf(wrongTyp).message).toMatch(/header typ is "application\/iden3comm-signed-json", expected application\/iden3-zkp-json/);
    const empty = await post(`${base}/callback?sessionId=${id}`, '', 'text/plain');
    expect(empty.status).toBe(400);

    const huge = await post(`${base}/callback?sessionId=${id}`, `${b64(ZKP_HEADER)}.${'A'.repeat(300 * 1024)}.${b64({})}`, 'text/plain');
    expect(huge.status).toBe(413);
    expect(errorOf(huge)).toMatchObject({ code: 'payload_too_large', message: 'request body: the token is larger than 256 KiB' });
    const overLimit = await post(`${base}/callback?sessionId=${id}`, 'A'.repeat(600 * 1024), 'text/plain');
    expect(overLimit.status).toBe(413);

    // Nothing of it changed the session.
    expect(await get(`${base}/auth-requests/${id}/status`)).toEqual({ status: 200, body: { id, status: 'pending' } });
    expect(server.stderr()).not.toMatch(/\s500\s/);
  });
});

describe('iden3comm sessions: an anonymous post backed by no auth proof', () => {
  // attack-s35: POST /callback is open (no VC_API_TOKEN). A token that parses as a JWZ but that no
  // identity's auth proof backs says nothing about the session's holder: it must not turn the
  // session the verifier's page polls from pending to refused (anyone who saw the QR code could
  // otherwise make every pending session read "refused" before the real wallet answers).
  // (A token whose authV2 proof does not verify, which needs the circuits: test/e2e/iden3commVerifier.test.ts.)
  it('leaves a pending session pending after a token with another auth circuit', async () => {
    const made = await post(`${base}/auth-requests`, JSON.stringify({ op: '$sd', callback: `${base}/callback`, expires: 600 }), 'application/json');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = String(made.body.id);
    const payload = b64({ id: 'x', thid: id, type: 'https://iden3-communication.io/authorization/1.0/response', from: 'did:polygonid:polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn', to: made.body.from, body: { scope: [] } });
    const otherCircuit = `${b64({ ...ZKP_HEADER, circuitId: 'authV3' })}.${payload}.${b64({ proof: { pi_a: [], pi_b: [], pi_c: [], protocol: 'groth16' }, pub_signals: [] })}`;
    const answered = await post(`${base}/callback?sessionId=${id}`, otherCircuit, 'text/plain');
    expect(answered.status).toBeGreaterThanOrEqual(400);
    expect(answered.body).toEqual({ verified: false, request: id, reason: 'the token is proved with groth16:authV3; the request accepts groth16:authV2 only' });
    expect(await get(`${base}/auth-requests/${id}/status`)).toEqual({ status: 200, body: { id, status: 'pending' } });
  });

  it('makes a request accepting the authV3 circuits (accept), refusing an authV2 token for it and an auth circuit vc does not know', async () => {
    const made = await post(`${base}/auth-requests`, JSON.stringify({ op: '$sd', callback: `${base}/callback`, accept: ['authV3-8-32', 'authV3'] }), 'application/json');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = String(made.body.id);
    expect((made.body.body as Json).accept).toEqual(['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3-8-32,authV3;alg=groth16']);
    const payload = b64({ id: 'x', thid: id, type: 'https://iden3-communication.io/authorization/1.0/response', from: 'did:polygonid:polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn', to: made.body.from, body: { scope: [] } });
    const authV2 = `${b64(ZKP_HEADER)}.${payload}.${b64({ proof: { pi_a: [], pi_b: [], pi_c: [], protocol: 'groth16' }, pub_signals: [] })}`;
    const answered = await post(`${base}/callback?sessionId=${id}`, authV2, 'text/plain');
    expect(answered.status).toBe(422);
    expect(answered.body).toEqual({ verified: false, request: id, reason: 'the token is proved with groth16:authV2; the request accepts groth16:authV3 or groth16:authV3-8-32 only' });
    expect(await get(`${base}/auth-requests/${id}/status`)).toEqual({ status: 200, body: { id, status: 'pending' } });

    const unknown = await post(`${base}/auth-requests`, JSON.stringify({ op: '$sd', accept: ['authV4'] }), 'application/json');
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).message).toMatch(/^request body: field accept\[0\]: expected auth circuits of authV2, authV3, authV3-8-32/);
  });
});

describe('iden3comm sessions: the open callback never starts a circuit build', () => {
  // attack-s36b: a junk token labelled with an auth circuit the request accepts (authV3, a full-size
  // build) made the open route build it before its proof was checked. The server's circuits cache is
  // empty: the token is refused at once, naming the command that builds it, and nothing was built.
  it('refuses a token of an accepted auth circuit not built yet, and builds nothing', async () => {
    const made = await post(`${base}/auth-requests`, JSON.stringify({ op: '$sd', callback: `${base}/callback`, accept: ['authV3'] }), 'application/json');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = String(made.body.id);
    const payload = b64({ id: 'x', thid: id, type: 'https://iden3-communication.io/authorization/1.0/response', from: 'did:polygonid:polygon:local:2qKc3ns1pKmZyrT4HY8ZumXpWabNbHNXwnXBXzsvRn', to: made.body.from, body: { scope: [] } });
    const junk = `${b64({ ...ZKP_HEADER, circuitId: 'authV3' })}.${payload}.${b64({ proof: { pi_a: [], pi_b: [], pi_c: [], protocol: 'groth16' }, pub_signals: [] })}`;
    const answered = await post(`${base}/callback?sessionId=${id}`, junk, 'text/plain');
    expect(answered.status).toBe(422);
    expect(answered.body).toEqual({
      verified: false,
      request: id,
      reason: 'the token is proved with groth16:authV3, whose circuit files this verifier has not built; the callback never starts a build (the verifier builds them with `vc circuits build --circuit authV3`)',
    });
    expect(await get(`${base}/auth-requests/${id}/status`)).toEqual({ status: 200, body: { id, status: 'pending' } });
    expect(readdirSync(cache, { recursive: true }).map(String)).toEqual([]);
  });
});

describe('POST /contract-requests (on chain; its answer: test/e2e/pbqV3 and jsSdkV3Prover)', () => {
  it('answers bad input with a 400 naming the body field, before any chain is reached', async () => {
    const empty = await post(`${base}/contract-requests`, JSON.stringify({ id: [] }), 'application/json');
    expect(empty.status).toBe(400);
    expect(errorOf(empty).message).toMatch(/^request body: field id: give at least one request id/);
    const notAnId = await post(`${base}/contract-requests`, JSON.stringify({ id: ['12x'] }), 'application/json');
    expect(notAnId.status).toBe(400);
    expect(errorOf(notAnId).message).toBe('request body: field id: "12x" is not a request id (a positive integer, as vc verifier request gives it)');
    const twice = await post(`${base}/contract-requests`, JSON.stringify({ id: ['7', '7'] }), 'application/json');
    expect(errorOf(twice).message).toBe('request body: field id: request 7 is given twice');
    const many = await post(`${base}/contract-requests`, JSON.stringify({ id: Array.from({ length: 17 }, (_, i) => String(i + 1)) }), 'application/json');
    expect(errorOf(many).message).toMatch(/at most 16 requests/);
    const expires = await post(`${base}/contract-requests`, JSON.stringify({ id: ['7'], expires: 0 }), 'application/json');
    expect(errorOf(expires).message).toMatch(/^request body: field expires: expected seconds from 1 to 2592000/);
    const to = await post(`${base}/contract-requests`, JSON.stringify({ id: ['7'], to: 'not-a-did' }), 'application/json');
    expect(errorOf(to).message).toBe('request body: field to: "not-a-did" is not a DID (the holder\'s iden3 DID)');
    // The CLI's display flags are not the route's.
    expect((await post(`${base}/contract-requests`, JSON.stringify({ id: ['7'], link: true }), 'application/json')).status).toBe(400);
    for (const answer of [twice, many, expires, to]) expect(answer.status).toBe(400);
  });
});
