/**
 * Issue 28, "an independent verifier accepts vc's answers", off chain, with one answer (an authV2
 * proof and three V3 proofs) for everything: `vc serve --role verifier` makes a session whose
 * request (`vc verifier auth-request --query FILE` three times) asks for three credentialAtomicQueryV3
 * proofs about a KYCAgeCredential: its birthday disclosed, its documentType $lt 3, its documentType
 * disclosed (the very message @iden3/js-iden3-auth 1.14's createAuthorizationRequest makes for the
 * same verifier, scope, callback and expiry); `vc holder respond` reads it through its request_uri,
 * answers every item from the holder's store with the one credential that satisfies them all (vc
 * issued it with a signature proof, no state transition) and posts the token to the session's
 * callback: the session turns verified, with each proof and both disclosed values.
 * @iden3/js-iden3-auth, used directly (its Verifier on vc's circuit files, its EthStateResolver on
 * the embedded chain's State contract), accepts the same token with fullVerify, the three query
 * proofs included, and refuses it with one byte of its proof or of its payload changed, and refuses
 * a well-made token answering only one of the three (vc's holder answering the request with two
 * items taken out), as vc's verifier and the session's callback do, naming the two left; both
 * refuse a token in a request's thread whose proof was made for another nonce (its requestID, the
 * proofs' challenge) and filed under the asked id (a misbehaving wallet: vc's packer signs the
 * refiled message; a request of one item, one proof); `vc verifier verify --jwz` sees the whole answer as a replay. A two-item request that one item of no
 * held credential satisfies is refused before any proof, naming that item.
 * authV3: a request that accepts only the authV3 circuits (`vc verifier auth-request --accept
 * authV3,authV3-8-32`, one proof request) is answered by `vc holder respond` with a token whose auth
 * proof is authV3-8-32 (vc's circuit, built on demand here, once); `vc verifier verify --jwz`
 * verifies it, and js-iden3-auth's fullVerify (its Verifier on vc's circuit files, authV3-8-32
 * among them) accepts it; the same token with one byte of its auth proof changed, and the authV2
 * token of the first answer, are refused by vc with the reason, and the changed one by js-iden3-auth.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { auth, resolver } from '@iden3/js-iden3-auth';
import { DID } from '@iden3/js-iden3-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { packAuthResponse } from '../../src/core/iden3comm/authRespond.js';
import { runVc, runVcAsync, startVcServe, templateWallet, type VcServer } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader as documentLoader, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const BIRTHDAY = 19960424;
const DOCUMENT_TYPE = 2;
/** The session's three proof requests: the birthday disclosed, the documentType $lt 3, the documentType disclosed. */
const QUERIES = [{ birthday: {} }, { documentType: { $lt: 3 } }, { documentType: {} }];

const { tmp, home, env, file, vc, ok } = templateWallet('vc-iden3comm-holder-');

let holder: string;
let request: ReturnType<typeof auth.createAuthorizationRequest> & { expires_time: number; created_time: number };
let token: string;
let answer: Json & { posted: { status: number; body: Json }; scope: Array<{ id: number; circuitId: string; credential: string }> };
let verifier: auth.Verifier;
let credentialId: string;
let verifierService: VcServer | undefined;
let base: string;
let relay: Server | undefined;
let posts = 0;
let stateResolvers: Record<string, resolver.EthStateResolver>;

beforeAll(async () => {
  holder = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  const chain = ok(await vc(['chain', 'up'])).json<{ rpcUrl: string; chainId: number; contracts: { state: string } }>();
  ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
  ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));
  const network = registerNetworkOf(holder, chain.chainId);
  // js-iden3-auth is loaded as CommonJS, and so is its js-iden3-core: a module instance of its own,
  // whose registry of DID networks must learn the local chain's too.
  const cjsCore = createRequire(import.meta.url)('@iden3/js-iden3-core') as typeof import('@iden3/js-iden3-core');
  cjsCore.registerDidMethodNetwork({ method: network.method, blockchain: network.blockchain, network: network.networkId, networkFlag: cjsCore.Id.fromString(holder.split(':')[4]!).type()[1]!, chainId: chain.chainId });
  const circuits = ok(await vc(['circuits', 'build', '--circuit', 'authV2,credentialAtomicQueryV3-16-16-64'])).json<{ dir: string }>();

  // vc issues to its own holder (kept in the holder's store): a signature proof, no state transition.
  writeFileSync(file('subject.json'), JSON.stringify({ birthday: BIRTHDAY, documentType: DOCUMENT_TYPE }));
  const issued = ok(await vc(['issuer', 'issue', '--holder', holder, '--type', 'KYCAgeCredential', '--context-file', CONTEXT_FILE, '--schema', SCHEMA_FILE, '--subject', file('subject.json'), '--proof', 'sig']));
  credentialId = issued.json<{ credential: { id: string } }>().credential.id;

  // The verifier's session, and vc's holder answering it through its request_uri, posting to its callback.
  verifierService = await startVcServe(home, ['--role', 'verifier'], { env });
  base = verifierService.urls.verifier!;
  // The callback, through a loopback relay to the service that counts the posts.
  relay = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      posts += 1;
      void fetch(`${base}${req.url ?? ''}`, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? 'text/plain' }, body: Buffer.concat(chunks) }).then(async (answered) => {
        res.writeHead(answered.status, { 'content-type': answered.headers.get('content-type') ?? 'application/json' }).end(await answered.text());
      });
    });
  });
  await new Promise<void>((resolve) => relay!.listen(0, '127.0.0.1', resolve));
  const relayBase = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  const queries = QUERIES.map((credentialSubject, index) => {
    writeFileSync(file(`query-${index}.json`), JSON.stringify({ type: 'KYCAgeCredential', context: CONTEXT_URL, credentialSubject }));
    return file(`query-${index}.json`);
  });
  ok(await vc(['verifier', 'auth-request', ...queries.flatMap((query) => ['--query', query]), '--reason', 'age check', '--callback', `${relayBase}/callback`, '-o', file('request.json')]));
  request = JSON.parse(readFileSync(file('request.json'), 'utf8')) as typeof request;
  // Killed after posting and before its output: the re-run gives the posted answer, posting no second one.
  const given = `iden3comm://?request_uri=${base}/auth-requests/${request.id}`;
  const killed = await runVcAsync(['--json', 'holder', 'respond', '--request', given, '--post', '-o', file('answer.json')], { home, env: { ...env, VC_CRASH_AT: 'output:pending' } });
  expect(killed.status).not.toBe(0);
  expect(posts).toBe(1);
  ok(await vc(['holder', 'respond', '--request', given, '--post', '-o', file('answer.json')]));
  expect(posts).toBe(1);
  answer = JSON.parse(readFileSync(file('answer.json'), 'utf8')) as typeof answer;
  token = String(answer.token);

  stateResolvers = { [`${network.blockchain}:${network.networkId}`]: new resolver.EthStateResolver(chain.rpcUrl, chain.contracts.state) };
  verifier = await auth.Verifier.newVerifier({
    stateResolver: stateResolvers,
    circuitsDir: circuits.dir,
    documentLoader: documentLoader as never,
  });
}, LONG);

afterAll(async () => {
  relay?.closeAllConnections();
  await new Promise((resolve) => (relay === undefined ? resolve(undefined) : relay.close(resolve)));
  await verifierService?.stop();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('vc holder respond --post, to a session of vc serve --role verifier', () => {
  it("answers each of the session's proof requests with the held credential, proved with the small V3 circuit; the session is verified, with each proof and both disclosed values", async () => {
    const ids = request.body.scope.map((item) => item.id);
    expect(new Set(ids).size).toBe(3);
    expect(request.body.scope.map((item) => item.query.credentialSubject)).toEqual(QUERIES);
    expect(answer).toMatchObject({ request: request.id, thid: request.thid, from: holder, to: request.from });
    expect(answer.scope).toEqual(ids.map((id) => ({ id, circuitId: 'credentialAtomicQueryV3-16-16-64', credential: credentialId })));
    const disclosed = { birthday: String(BIRTHDAY), documentType: String(DOCUMENT_TYPE) };
    const proofs = [
      { id: ids[0], type: 'KYCAgeCredential', field: 'birthday', operator: '$sd', disclosed: String(BIRTHDAY) },
      { id: ids[1], type: 'KYCAgeCredential', field: 'documentType', operator: '$lt' },
      { id: ids[2], type: 'KYCAgeCredential', field: 'documentType', operator: '$sd', disclosed: String(DOCUMENT_TYPE) },
    ];
    expect(answer.posted).toMatchObject({ status: 200, body: { verified: true, request: request.id, from: holder, disclosed, proofs } });
    expect((answer.posted.body.proofs as Json[])[1]).not.toHaveProperty('disclosed');
    const status = (await (await fetch(`${base}/auth-requests/${request.id}/status`)).json()) as Json;
    expect(status).toMatchObject({ id: request.id, status: 'verified', from: holder, disclosed, proofs });
    // vc verifier verify --jwz: the same token was accepted once already.
    writeFileSync(file('answer.jwz'), token);
    const again = await vc(['verifier', 'verify', '--jwz', file('answer.jwz'), '--request', file('request.json')]);
    expect(again.status, again.stderr).toBe(1);
    expect(again.json<Json>()).toMatchObject({ verified: false, reason: expect.stringMatching(/^replayed: /) });
  }, LONG);
});

describe('vc holder respond: a request js-iden3-auth made, one item of which no held credential satisfies', () => {
  it('is refused before any proof, naming the item and why', async () => {
    const unsatisfiable = auth.createAuthorizationRequest('age check', request.from, '', {
      scope: [
        { id: 76, circuitId: 'credentialAtomicQueryV3' as never, query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: CONTEXT_URL, credentialSubject: { birthday: {} } } },
        { id: 77, circuitId: 'credentialAtomicQueryV3' as never, query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: CONTEXT_URL, credentialSubject: { birthday: { $lt: 19900101 } } } },
      ],
      accept: ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16'],
    });
    const link = `iden3comm://?i_m=${Buffer.from(JSON.stringify(unsatisfiable)).toString('base64')}`;
    const run = await vc(['holder', 'respond', '--request', link]);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr) as Json).toMatchObject({
      error: { message: `scope 77 (KYCAgeCredential birthday $lt): no held credential satisfies it: the credential does not satisfy the query: credentialSubject.birthday = ${BIRTHDAY} is not $lt 19900101` },
    });
  });
});

describe('the same answer, verified by @iden3/js-iden3-auth', () => {
  it("the request is the message js-iden3-auth's createAuthorizationRequest makes for the same verifier, scope, callback and expiry", () => {
    const made = auth.createAuthorizationRequest('age check', request.from, request.body.callbackUrl, {
      scope: request.body.scope,
      accept: ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16'],
      expires_time: new Date(request.expires_time * 1000),
    });
    // Only the fresh uuid and the creation time differ, and the js-sdk 1.45 (vc's) writes an empty
    // message (body.message "") where js-iden3-auth writes none: the same to verifiers (both read "").
    expect(made.body.message).toBeUndefined();
    expect(request.body.message).toBe('');
    expect(request).toEqual(JSON.parse(JSON.stringify({ ...made, body: { ...made.body, message: '' }, id: request.id, thid: request.thid, created_time: request.created_time })));
  });

  it("is accepted by js-iden3-auth's fullVerify: the auth proof, the sender, the three query proofs, the states", async () => {
    const response = await verifier.fullVerify(token, request, { acceptedStateTransitionDelay: 3600_000, acceptedProofGenerationDelay: 3600_000 });
    expect(response).toMatchObject({ type: 'https://iden3-communication.io/authorization/1.0/response', from: holder, to: request.from, thid: request.thid });
    expect(response.body.scope.map((proof) => [proof.id, proof.circuitId])).toEqual(request.body.scope.map((item) => [item.id, 'credentialAtomicQueryV3-16-16-64']));
    // The disclosed values ($sd) are the operatorOutput signal (6th of the V3 signals); a $lt proof's is 0.
    expect(response.body.scope.map((proof) => proof.pub_signals[5])).toEqual([String(BIRTHDAY), '0', String(DOCUMENT_TYPE)]);
  }, LONG);

  it('refuses, as vc verifier verify --jwz and the session do, a token that answers only one of the three proof requests', async () => {
    // vc's holder answering the request with two of its items taken out: a well-made token (its
    // authV2 proof signs it) in the request's thread, to its verifier, with one proof.
    const [kept, ...left] = request.body.scope;
    writeFileSync(file('partial-request.json'), JSON.stringify({ ...request, body: { ...request.body, scope: [kept] } }));
    const partial = ok(await vc(['holder', 'respond', '--request', file('partial-request.json')])).json<{ token: string }>().token;
    const unpacked = JSON.parse(Buffer.from(partial.split('.')[1]!, 'base64url').toString('utf8')) as { thid: string; body: { scope: Array<{ id: number }> } };
    expect(unpacked).toMatchObject({ thid: request.thid, body: { scope: [{ id: kept!.id }] } });
    await expect(verifier.fullVerify(partial, request, { acceptedStateTransitionDelay: 3600_000, acceptedProofGenerationDelay: 3600_000 })).rejects.toThrow(`proof is not given for requestId ${left[0]!.id}`);

    const reason = `the token answers 1 of the 3 proof requests of request ${request.id}: no proof for scope ${left[0]!.id} (KYCAgeCredential documentType $lt), scope ${left[1]!.id} (KYCAgeCredential documentType $sd)`;
    writeFileSync(file('partial.jwz'), partial);
    const refused = await vc(['verifier', 'verify', '--jwz', file('partial.jwz'), '--request', file('request.json')]);
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.json<Json>()).toEqual({ verified: false, request: request.id, from: holder, reason });
    const callback = await fetch(`${base}/callback?sessionId=${request.id}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: partial });
    expect(await callback.json()).toEqual({ verified: false, request: request.id, from: holder, reason });
  }, LONG);

  it("refuses, as js-iden3-auth does, a token in the request's thread whose scope proof was made for another nonce (its requestID, the proofs' challenge) and filed under the asked id", async () => {
    // A wallet that misbehaves: vc's holder proves a request's item for another nonce, and that
    // proof is filed under the asked id in a message its authV2 proof then signs (vc's own packer,
    // as a wallet would). A request of one item (recorded by this wallet's verifier), so one proof.
    ok(await vc(['verifier', 'auth-request', '--query', file('query-0.json'), '-o', file('nonce-asked.json')]));
    const asked = JSON.parse(readFileSync(file('nonce-asked.json'), 'utf8')) as typeof request;
    const [first] = asked.body.scope;
    const nonce = Number(first!.id) + 1;
    writeFileSync(file('nonce-request.json'), JSON.stringify({ ...asked, body: { ...asked.body, scope: [{ ...first, id: nonce }] } }));
    const other = ok(await vc(['holder', 'respond', '--request', file('nonce-request.json')])).json<{ token: string }>().token;
    const message = JSON.parse(Buffer.from(other.split('.')[1]!, 'base64url').toString('utf8')) as Json & { thid: string; body: { scope: Array<Json & { id: number; pub_signals: string[] }> } };
    expect(message.thid).toBe(asked.id);
    expect(message.body.scope.map((item) => item.id)).toEqual([nonce]);
    expect(message.body.scope[0]!.pub_signals).toContain(String(nonce));
    const refiled = { ...message, body: { ...message.body, scope: [{ ...message.body.scope[0]!, id: first!.id }] } };
    const ctx = new Context({ config: parseConfig({}, home) });
    let wrong: string;
    try {
      wrong = await packAuthResponse(ctx, refiled, DID.parse(holder));
    } finally {
      await ctx.close();
    }
    await expect(verifier.fullVerify(wrong, asked, { acceptedStateTransitionDelay: 3600_000, acceptedProofGenerationDelay: 3600_000 })).rejects.toThrow(/challenge/);
    writeFileSync(file('wrong-nonce.jwz'), wrong);
    const refused = await vc(['verifier', 'verify', '--jwz', file('wrong-nonce.jwz'), '--request', file('nonce-asked.json')]);
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.json<Json>()).toMatchObject({ verified: false, request: asked.id, from: holder });
    expect(String(refused.json<Json>().reason)).toMatch(new RegExp(`^a scope proof is refused: challenge is not used for proof creation, expected ${first!.id}, challenge from public signals: ${nonce}\\b`));
  }, LONG);

  it('is refused by js-iden3-auth with one byte of its proof or of its payload changed', async () => {
    const [header, payload, proof] = token.split('.') as [string, string, string];
    const proofText = Buffer.from(proof, 'base64url').toString('utf8');
    const at = proofText.indexOf('"pi_a":["') + 12;
    const changedProof = proofText.slice(0, at) + (proofText[at] === '1' ? '2' : '1') + proofText.slice(at + 1);
    await expect(verifier.fullVerify(`${header}.${payload}.${Buffer.from(changedProof).toString('base64url')}`, request)).rejects.toThrow('bad point: equation left != right');

    const payloadText = Buffer.from(payload, 'base64url').toString('utf8');
    // One digit of the query proof's disclosed birthday, inside the signed payload.
    const changedPayload = payloadText.replace(`"${BIRTHDAY}"`, `"${BIRTHDAY + 1}"`);
    expect(changedPayload).not.toBe(payloadText);
    await expect(verifier.fullVerify(`${header}.${Buffer.from(changedPayload).toString('base64url')}.${proof}`, request)).rejects.toThrow('challenge is not equal to message hash');
  }, LONG);
});

describe('a request accepting only authV3 (vc verifier auth-request --accept authV3,authV3-8-32)', () => {
  let v3Request: typeof request;
  let v3Answer: Json & { scope: Array<{ id: number; circuitId: string; credential: string }> };
  let v3Token: string;

  beforeAll(async () => {
    ok(await vc(['verifier', 'auth-request', '--query', file('query-0.json'), '--accept', 'authV3,authV3-8-32', '--reason', 'age check', '-o', file('request-v3.json')]));
    v3Request = JSON.parse(readFileSync(file('request-v3.json'), 'utf8')) as typeof request;
    // authV3-8-32 is built here on demand (vc's circuit, ~20 s, cached for the runs after).
    ok(await vc(['holder', 'respond', '--request', file('request-v3.json'), '-o', file('answer-v3.json')]));
    v3Answer = JSON.parse(readFileSync(file('answer-v3.json'), 'utf8')) as typeof v3Answer;
    v3Token = String(v3Answer.token);
    writeFileSync(file('answer-v3.jwz'), v3Token);
    // The same token with one byte of its auth proof changed.
    const [head, payload, proof] = v3Token.split('.') as [string, string, string];
    const proofText = Buffer.from(proof, 'base64url').toString('utf8');
    const at = proofText.indexOf('"pi_a":["') + 12;
    writeFileSync(file('changed-v3.jwz'), `${head}.${payload}.${Buffer.from(proofText.slice(0, at) + (proofText[at] === '1' ? '2' : '1') + proofText.slice(at + 1)).toString('base64url')}`);
  }, LONG);

  it("is answered by vc's holder with an authV3-8-32 token, which vc verifies; the token with a changed auth proof, or relabelled authV2, is refused with the reason", async () => {
    expect(v3Request.body.accept).toEqual(['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3,authV3-8-32;alg=groth16']);
    const header = JSON.parse(Buffer.from(v3Token.split('.')[0]!, 'base64url').toString('utf8')) as Json;
    expect(header).toMatchObject({ alg: 'groth16', circuitId: 'authV3-8-32', typ: 'application/iden3-zkp-json' });
    expect(v3Answer).toMatchObject({ request: v3Request.id, from: holder, scope: [{ id: v3Request.body.scope[0]!.id, circuitId: 'credentialAtomicQueryV3-16-16-64', credential: credentialId }] });

    // The token relabelled authV2 (its header, which the proof signs): a circuit this request does not accept.
    const [head, payload, proof] = v3Token.split('.') as [string, string, string];
    const relabelled = { ...(JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as Json), circuitId: 'authV2' };
    writeFileSync(file('authV2-v3.jwz'), `${Buffer.from(JSON.stringify(relabelled)).toString('base64url')}.${payload}.${proof}`);
    const refusedV2 = await vc(['verifier', 'verify', '--jwz', file('authV2-v3.jwz'), '--request', file('request-v3.json')]);
    expect(refusedV2.status, refusedV2.stderr).toBe(1);
    expect(refusedV2.json<Json>()).toEqual({ verified: false, request: v3Request.id, reason: 'the token is proved with groth16:authV2; the request accepts groth16:authV3 or groth16:authV3-8-32 only' });

    const changed = await vc(['verifier', 'verify', '--jwz', file('changed-v3.jwz'), '--request', file('request-v3.json')]);
    expect(changed.status, changed.stderr).toBe(1);
    expect(changed.json<Json>()).toEqual({ verified: false, request: v3Request.id, reason: 'the auth proof (authV3-8-32) does not verify against the token' });

    const verified = await vc(['verifier', 'verify', '--jwz', file('answer-v3.jwz'), '--request', file('request-v3.json')]);
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.json<Json>()).toMatchObject({ verified: true, request: v3Request.id, from: holder, disclosed: { birthday: String(BIRTHDAY) } });
  }, LONG);

  it("is accepted by js-iden3-auth's fullVerify on vc's authV3-8-32 key, and refused with one byte of its auth proof changed", async () => {
    const circuits = ok(await vc(['circuits', 'build', '--circuit', 'authV2,credentialAtomicQueryV3-16-16-64,authV3-8-32'])).json<{ dir: string }>();
    const v3Verifier = await auth.Verifier.newVerifier({ stateResolver: stateResolvers, circuitsDir: circuits.dir, documentLoader: documentLoader as never });
    const options = { acceptedStateTransitionDelay: 3600_000, acceptedProofGenerationDelay: 3600_000 };
    const response = await v3Verifier.fullVerify(v3Token, v3Request, options);
    expect(response).toMatchObject({ from: holder, to: v3Request.from, thid: v3Request.thid });
    expect(response.body.scope.map((item) => [item.id, item.circuitId, item.pub_signals[5]])).toEqual([[v3Request.body.scope[0]!.id, 'credentialAtomicQueryV3-16-16-64', String(BIRTHDAY)]]);
    await expect(v3Verifier.fullVerify(readFileSync(file('changed-v3.jwz'), 'utf8'), v3Request, options)).rejects.toThrow('bad point: equation left != right');
    // The verifier without vc's authV3-8-32 key (the authV2 one only) cannot check it at all.
    await expect(verifier.fullVerify(v3Token, v3Request, options)).rejects.toThrow('message was packed with unsupported circuit');
  }, LONG);
});
