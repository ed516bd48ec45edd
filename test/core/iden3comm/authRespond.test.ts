/**
 * Bad input of `vc holder respond` (issue 28): no chain, no proof. Each is refused before any proof
 * or network exchange with one line naming the flag (and file) and what was expected, exit 2, and
 * nothing on stdout; the answers themselves are tested in test/e2e/iden3commHolder.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_MAX_ANSWER_BYTES, postToken } from '../../../src/core/iden3comm/authRespond.js';
import { acceptedAuth, chooseContractAuth } from '../../../src/core/iden3comm/contractRespond.js';
import { iden3commRespond } from '../../../src/core/operations/iden3commOperations.js';
import { plainFieldNames } from '../../../src/core/validate.js';
import { jsonError, runVcInProcess, tempDir, type VcRun } from '../../helpers.js';

const tmp = tempDir('vc-iden3comm-respond-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home });
const REQUEST_TYPE = 'https://iden3-communication.io/authorization/1.0/request';

let verifierDid: string;
/** A well-formed request (from a DID of this wallet's network), which each case spoils in one way. */
const request = (change: (message: Record<string, unknown> & { body: Record<string, unknown> }) => void = () => undefined): Record<string, unknown> => {
  const message = {
    id: '6d1b1f4e-8a55-4d39-9a39-3f4b7f1f6a01',
    thid: '6d1b1f4e-8a55-4d39-9a39-3f4b7f1f6a01',
    typ: 'application/iden3comm-plain-json',
    type: REQUEST_TYPE,
    from: verifierDid,
    body: {
      callbackUrl: '',
      reason: 'age check',
      accept: ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16'],
      scope: [{ id: 7, circuitId: 'credentialAtomicQueryV3', query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: 'https://example.org/kyc.jsonld', credentialSubject: { birthday: { $lt: 20000101 } } } }],
    },
  };
  change(message);
  return message;
};

/** `vc holder respond` with these arguments: exit 2, nothing on stdout, one JSON error line; its message and field. */
async function refused(args: string[]): Promise<{ message: string; field?: string }> {
  const run = await vc(['holder', 'respond', ...args]);
  expect(run.status, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return jsonError(run.stderr) as { message: string; field?: string };
}

/** A request file with this content. */
function requestFile(content: unknown): string {
  const name = file(`request-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(name, typeof content === 'string' ? content : JSON.stringify(content));
  return name;
}

let server: Server;
let hits = 0;
let base: string;

beforeAll(async () => {
  const made = await vc(['verifier', 'auth-request']);
  expect(made.status, made.stderr).toBe(0);
  verifierDid = made.json<{ from: string }>().from;
  // A loopback verifier: it serves an expired request and a redirect, and counts the posts to its callback (none should come).
  server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/expired') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request((message) => (message.expires_time = 1_700_000_000))));
    if (req.method === 'GET' && req.url === '/moved') return void res.writeHead(302, { location: '/expired' }).end();
    if (req.method === 'POST' && req.url === '/big') return void req.resume().on('end', () => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(100 * 1024)}</html>`));
    hits += 1;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  tmp.cleanup();
});

describe('vc holder respond: a request it cannot read', () => {
  it('refuses a request whose condition is under a "__proto__" key (a schema would drop it: a disclosure the verifier did not show), as a file or a link', async () => {
    const spoiled = JSON.stringify(request()).replace('{"$lt":20000101}', '{"__proto__":{"$lt":20000101}}');
    expect(spoiled).toContain('"__proto__"');
    const fromFile = await refused(['--request', requestFile(spoiled)]);
    expect(fromFile.field).toBe('--request');
    expect(fromFile.message).toMatch(/^--request \S+request-\w+\.json: the key "__proto__" at body\.scope\[0\]\.query\.credentialSubject\.birthday is not accepted/);
    const fromLink = await refused(['--request', `iden3comm://?i_m=${Buffer.from(spoiled).toString('base64')}`]);
    expect(fromLink.message).toMatch(/the key "__proto__" at body\.scope\[0\]\.query\.credentialSubject\.birthday is not accepted/);
    // A field named "__proto__" too (it was refused as no field name once the message was read).
    const field = await refused(['--request', requestFile(JSON.stringify(request()).replace('"credentialSubject":{"birthday"', '"credentialSubject":{"__proto__"'))]);
    expect(field.message).toMatch(/the key "__proto__" at body\.scope\[0\]\.query\.credentialSubject is not accepted/);
    expect(hits).toBe(0);
  });

  it('refuses malformed JSON, a message of another type, a JSON array, and a huge file, naming --request and the file', async () => {
    const malformed = requestFile('{"id": "x",');
    const bad = await refused(['--request', malformed]);
    expect(bad.message).toMatch(new RegExp(`^--request ${malformed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON \\(expected a quoted key, found end of input at line 1 column 12\\)$`));
    expect(bad.field).toBe('--request');

    const offer = requestFile(request((message) => (message.type = 'https://iden3-communication.io/credentials/1.0/offer')));
    expect((await refused(['--request', offer])).message).toMatch(
      /: is a https:\/\/iden3-communication\.io\/credentials\/1\.0\/offer message, not an authorization request \(https:\/\/iden3-communication\.io\/authorization\/1\.0\/request\) nor a contract-invoke-request \(https:\/\/iden3-communication\.io\/proofs\/1\.0\/contract-invoke-request\)$/,
    );
    expect((await refused(['--request', requestFile([request()])])).message).toMatch(/: expected a JSON object \(an iden3comm message\)$/);
    const huge = requestFile(request((message) => (message.body.reason = 'x'.repeat(100 * 1024))));
    expect((await refused(['--request', huge])).message).toMatch(/: larger than 64 KiB; an authorization request is a few KB$/);
    expect((await refused(['--request', requestFile(request((message) => (message.body.scope = [{ id: -1, circuitId: 'credentialAtomicQueryV3', query: {} }])))])).message).toMatch(
      /: field body\.scope\[0\]\.id: expected a positive safe integer \(the proof's challenge\)$/,
    );
    expect((await refused(['--request', file('missing.json')])).message).toBe(`--request: cannot read ${file('missing.json')}: no such file`);
  });

  it('refuses a link that is not iden3comm, an iden3comm link without a message, an i_m that is not base64, and one carrying another message', async () => {
    expect((await refused(['--request', 'ftp://verifier.example/request'])).message).toMatch(
      /^--request: expected an authorization request \(JSON\), an iden3comm:\/\/ link, a universal link \(with #i_m= or #request_uri=\) or the http\(s\) URL serving it$/,
    );
    expect((await refused(['--request', 'iden3comm://?foo=bar'])).message).toBe('--request: the iden3comm link carries neither i_m (the message) nor request_uri (where it is)');
    expect((await refused(['--request', 'iden3comm://?i_m=not*base64'])).message).toBe('--request: its i_m parameter is not base64');
    const other = Buffer.from(JSON.stringify({ ...request(), type: 'https://iden3-communication.io/proofs/1.0/contract-invoke-response' })).toString('base64');
    expect((await refused(['--request', `https://wallet.privado.id/#i_m=${other}`])).message).toMatch(/: is a https:\/\/iden3-communication\.io\/proofs\/1\.0\/contract-invoke-response message, not an authorization request/);
  });

  it('reaches no other host without --allow-remote, and none over plain http with it', async () => {
    expect((await refused(['--request', 'iden3comm://?request_uri=https://verifier.example/requests/1'])).message).toBe(
      // The URL shows its origin only (vc's rule for URLs in messages: a path may carry a secret).
      '--request (request_uri https://verifier.example/…): verifier.example is not this machine; vc reaches no other host unless you say so (--allow-remote, https only)',
    );
    expect((await refused(['--request', 'http://verifier.example/requests/1', '--allow-remote'])).message).toBe(
      '--request (request_uri http://verifier.example/…): verifier.example is not this machine, and vc reaches other hosts over https only',
    );
  });
});

describe('vc holder respond: a request it will not answer', () => {
  it('refuses an expired request, naming when it expired, from a file or a request_uri on this machine; follows no redirect', async () => {
    const expired = requestFile(request((message) => (message.expires_time = 1_700_000_000)));
    expect((await refused(['--request', expired])).message).toMatch(/: the request expired at 2023-11-14T22:13:20\.000Z$/);
    expect((await refused(['--request', `iden3comm://?request_uri=${base}/expired`])).message).toBe('--request: the request expired at 2023-11-14T22:13:20.000Z');
    const moved = await vc(['holder', 'respond', '--request', `${base}/moved`]);
    expect(moved.status, moved.stderr).toBe(4);
    expect(moved.stderr.trim().split('\n')).toHaveLength(1);
    expect(jsonError(moved.stderr).message).toMatch(/^--request: fetching http:\/\/127\.0\.0\.1:\d+\/…: fetch failed \(unexpected redirect\)$/);
    expect(moved.stdout).toBe('');
  });

  it('refuses an expires_time out of the date range as expired or malformed, in one line (attack: was exit 70 with a RangeError stack)', async () => {
    // -1e20 seconds (and -9e12) is before the earliest date JavaScript can name: new Date(...).toISOString() throws.
    for (const seconds of [-1e20, -9e12]) {
      const message = (await refused(['--request', requestFile(request((change) => (change.expires_time = seconds)))])).message;
      expect(message).toMatch(/expires_time|expired/);
    }
  });

  it('refuses a malformed query before any proof, in one line naming --request, the scope and what is wrong (attack: exit 70, or a [] condition proved as $sd)', async () => {
    const spoilt: Array<[Record<string, unknown>, RegExp]> = [
      [{ credentialSubject: { birthday: { $lt: 1e40 } } }, /birthday\.\$lt: 1e\+40 is beyond the integers/],
      [{ credentialSubject: { birthday: { $lt: 20000101, $gt: 1 } } }, /one operator per field, not 2 \(\$lt, \$gt\)/],
      [{ credentialSubject: { birthday: { $lt: 20000101 }, documentType: {} } }, /asks 2 fields \(birthday, documentType\)/],
      [{ expirationDate: 'x' }, /expirationDate: expected a date/],
      [{ credentialSubject: { constructor: { $exists: true } } }, /"constructor" is not a field name/],
      [{ credentialSubject: { toString: {} } }, /"toString" is not a field name/],
      [{ credentialSubject: { birthday: [] } }, /birthday: expected \{\} \(disclose the value\) or one operator/],
      [{ credentialSubject: { birthday: null } }, /birthday: expected \{\}.*got null/],
      [{ credentialSubject: { birthday: { $in: Array.from({ length: 65 }, (_, index) => index) } } }, /\$in takes at most 64 values/],
      [{ credentialSubject: { birthday: { $between: 5 } } }, /\$between takes a list of two values/],
      [{ credentialSubject: { birthday: { $sd: {} } } }, /\$sd takes no value/],
    ];
    for (const [change, reason] of spoilt) {
      const error = await refused(['--request', requestFile(request((message) => Object.assign((message.body.scope as Array<{ query: Record<string, unknown> }>)[0]!.query, change)))]);
      expect(error.message).toMatch(/^--request \S+\.json: scope 7: query\./);
      expect(error.message).toMatch(reason);
      expect(error.field).toBe('--request');
    }
  });

  it('refuses two proof requests of one id, and more than 16, before any proof', async () => {
    const twice = requestFile(request((message) => (message.body.scope = [...(message.body.scope as unknown[]), ...(message.body.scope as unknown[])])));
    expect((await refused(['--request', twice])).message).toMatch(/^--request \S+\.json: field body\.scope\[1\]\.id: 7 is the id of body\.scope\[0\] too; each proof request needs its own id$/);
    const many = requestFile(request((message) => (message.body.scope = Array.from({ length: 17 }, (_, index) => ({ ...(message.body.scope as Array<Record<string, unknown>>)[0], id: index + 1 })))));
    expect((await refused(['--request', many])).message).toMatch(/: field body\.scope: 17 proof requests, vc answers at most 16$/);
  });

  it('refuses --post when the request names no callback, and a callback off this machine, before proving anything', async () => {
    const post = await refused(['--request', requestFile(request()), '--post']);
    expect(post).toMatchObject({ message: "--post: the request names no callbackUrl to post to; write the token (-o FILE) and give it to the verifier", field: '--post' });
    const remote = requestFile(request((message) => (message.body.callbackUrl = 'https://verifier.example/callback?sessionId=1')));
    // A scope no credential satisfies, with a callback on this machine: refused, nothing posted.
    const local = requestFile(request((message) => (message.body.callbackUrl = `${base}/callback?sessionId=1`)));
    expect((await refused(['--request', local, '--post'])).message).toMatch(/^scope 7 \(KYCAgeCredential birthday \$lt\): no held credential satisfies it: /);
    expect((await refused(['--request', remote, '--post'])).message).toBe(
      "--post (the request's callbackUrl): verifier.example is not this machine; vc reaches no other host unless you say so (--allow-remote, https only)",
    );
    expect(hits).toBe(0);
  });

  it('refuses a circuit vc does not answer, and accept profiles allowing no auth circuit vc proves with, naming what vc answers', async () => {
    const mtp = requestFile(request((message) => ((message.body.scope as Array<Record<string, unknown>>)[0]!.circuitId = 'credentialAtomicQueryMTPV2')));
    expect((await refused(['--request', mtp])).message).toMatch(/: scope 7 \(KYCAgeCredential birthday \$lt\) asks for a credentialAtomicQueryMTPV2 proof; vc answers credentialAtomicQueryV3 proof requests only$/);
    const answers = 'vc answers only iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2,authV3,authV3-8-32;alg=groth16';
    const signed = requestFile(request((message) => (message.body.accept = ['iden3comm/v1;env=application/iden3comm-signed-json;alg=ES256K-R'])));
    expect((await refused(['--request', signed])).message).toBe(`--request ${signed}: the request accepts iden3comm/v1;env=application/iden3comm-signed-json;alg=ES256K-R; ${answers}`);
    const unknown = requestFile(request((message) => (message.body.accept = ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV4;alg=groth16'])));
    expect((await refused(['--request', unknown])).message).toBe(`--request ${unknown}: the request accepts iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV4;alg=groth16; ${answers}`);
    // A request accepting authV3 only passes this check (the holder proves with authV3-8-32 or
    // authV3): it is refused here for its scope, before any proof or circuit build.
    const authV3 = requestFile(request((message) => (message.body.accept = ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3;alg=groth16'])));
    expect((await refused(['--request', authV3])).message).toMatch(/^scope 7 \(KYCAgeCredential birthday \$lt\): no held credential satisfies it: /);
  });

  it('refuses a scope no held credential satisfies, naming the scope and why', async () => {
    const message = (await refused(['--request', requestFile(request())])).message;
    expect(message).toMatch(/^scope 7 \(KYCAgeCredential birthday \$lt\): no held credential satisfies it: the holder has no iden3 KYCAgeCredential credential with the context https:\/\/example\.org\/… and a proof the request can use/);
    expect((await refused(['--request', requestFile(request()), '--id', 'urn:uuid:00000000-0000-4000-8000-000000000000'])).message).toMatch(/urn:uuid:00000000-0000-4000-8000-000000000000/);
    expect(hits).toBe(0);
  });
});

describe("vc holder respond: an error of the checks it shares with vc holder prove", () => {
  it('names the flags of this command in its field, not the internal verifiableCredential / credentialRequest paths (attack)', async () => {
    const expired = {
      id: 'urn:uuid:5b0f7e0a-1c2d-4e3f-8a9b-0c1d2e3f4a5b',
      '@context': ['https://www.w3.org/2018/credentials/v1', 'https://example.org/kyc.jsonld'],
      type: ['VerifiableCredential', 'KYCAgeCredential'],
      credentialSubject: { id: verifierDid, birthday: 19960424 },
      issuer: verifierDid,
      issuanceDate: '2020-01-01T00:00:00Z',
      expirationDate: '2021-01-01T00:00:00Z',
      credentialSchema: { id: 'https://example.org/kyc.json', type: 'JsonSchema2023' },
      credentialStatus: { id: 'http://127.0.0.1:1/rhs', type: 'Iden3ReverseSparseMerkleTreeProof', revocationNonce: 1 },
      proof: [{ type: 'BJJSignature2021' }],
    };
    const run = await vc(['holder', 'respond', '--request', requestFile(request()), '--credential', requestFile(expired)]);
    // A verification failure (exit 1), in one line.
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const error = jsonError(run.stderr) as { message: string; field?: string };
    expect(error.message).toMatch(/^scope 7 \(KYCAgeCredential birthday \$lt\): --credential \S+: the credential expired at 2021-01-01/);
    expect(error.field).toBe('--credential');
  });
});

describe("vc holder respond --post: the verifier's answer", () => {
  it('a 2xx answer longer than vc keeps is cut and said so, not an error that loses the delivered token (attack: was exit 4)', async () => {
    const posted = await postToken(`${base}/big`, 'a.b.c', plainFieldNames);
    expect(posted).toMatchObject({ url: `${base}/big`, status: 200, truncated: true });
    expect(posted.body).toBe(`<html>${'x'.repeat(CALLBACK_MAX_ANSWER_BYTES - 6)}`);
    expect(iden3commRespond.failure!({ token: 'a.b.c', request: 'r1', thid: 'r1', from: 'did:a', to: 'did:b', scope: [], posted })).toBeUndefined();
  });

  it('is a failure (exit 1) in one line with the status and the reason when not 2xx, and none when 2xx', () => {
    const result = { token: 'a.b.c', request: 'r1', thid: 'r1', from: 'did:a', to: 'did:b', scope: [] };
    const url = 'http://127.0.0.1:4000/callback?sessionId=r1';
    expect(iden3commRespond.failure!({ ...result, posted: { url, status: 200, body: { verified: true } } })).toBeUndefined();
    expect(iden3commRespond.failure!(result)).toBeUndefined();
    expect(iden3commRespond.failure!({ ...result, posted: { url, status: 422, body: { verified: false, reason: 'replayed: this token was accepted already' } } })).toBe(
      `the verifier at ${url} answered 422: replayed: this token was accepted already`,
    );
    expect(iden3commRespond.failure!({ ...result, posted: { url, status: 404, body: { error: { code: 'not_found', message: 'no session' } } } })).toBe(`the verifier at ${url} answered 404: no session`);
    expect(iden3commRespond.failure!({ ...result, posted: { url, status: 400, body: { detail: 1 } } })).toBe(`the verifier at ${url} answered 400: {"detail":1}`);
    expect(iden3commRespond.failure!({ ...result, posted: { url, status: 500, body: 'line one\nline two' } })).toBe(`the verifier at ${url} answered 500: line one`);
    expect(iden3commRespond.failure!({ ...result, posted: { url, status: 502, body: null } })).toBe(`the verifier at ${url} answered 502`);
  });
});

describe('vc holder respond: a contract-invoke-request it will not act on (refused before any proof or chain access)', () => {
  const CONTRACT_TYPE = 'https://iden3-communication.io/proofs/1.0/contract-invoke-request';
  /** A well-formed contract-invoke-request for this wallet's chain (152), which each case spoils in one way. */
  const invoke = (change: (message: Record<string, unknown> & { body: Record<string, unknown> & { transaction_data: Record<string, unknown> } }) => void = () => undefined): Record<string, unknown> => {
    const message = {
      id: '3f0e9a52-1c7b-4d8e-a6f3-5b2c9d0e1f47',
      thid: '3f0e9a52-1c7b-4d8e-a6f3-5b2c9d0e1f47',
      typ: 'application/iden3comm-plain-json',
      type: CONTRACT_TYPE,
      from: verifierDid,
      body: {
        reason: 'age check',
        transaction_data: { contract_address: '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707', method_id: '06c86a91', chain_id: 152, network: 'polygon-local' },
        scope: [{ id: 7, circuitId: 'credentialAtomicQueryV3OnChain', query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: 'https://example.org/kyc.jsonld', credentialSubject: { birthday: { $lt: 20000101 } } } }],
        accept: ['iden3comm/v1;env=application/iden3comm-plain-json'],
      },
    };
    change(message);
    return message;
  };
  const at = (name: string): string => `--request ${name}`;

  it("picks the auth method from the accept profiles as a js-sdk wallet would: embedded auth first, an authV2 proof when only that is accepted (or nothing is named: the js-sdk's default), ethIdentity for an Ethereum identity only", async () => {
    const { parseAcceptProfile } = await import('@0xpolygonid/js-sdk');
    const parse = (profile: string) => parseAcceptProfile(profile) as never;
    const PLAIN = 'iden3comm/v1;env=application/iden3comm-plain-json';
    const AUTHV2 = 'iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16';
    const AUTHV3 = 'iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3;alg=groth16';
    const ES256K = 'iden3comm/v1;env=application/iden3comm-signed-json;alg=ES256K-R';
    const choose = (accept: string[], ethereum = false) => chooseContractAuth(acceptedAuth(parse, accept), ethereum);
    expect(choose([PLAIN])).toBe('embeddedAuth');
    expect(choose([AUTHV2, PLAIN])).toBe('embeddedAuth');
    expect(choose([AUTHV2])).toBe('authV2');
    expect(choose([])).toBe('authV2');
    expect(choose([AUTHV3])).toBe('authV3');
    expect(choose(['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2,authV3;alg=groth16'])).toBe('authV2');
    expect(choose(['not a profile', 'iden3comm/v2;env=application/iden3comm-plain-json'])).toBeUndefined();
    expect(choose([ES256K])).toBeUndefined();
    expect(choose([ES256K], true)).toBe('ethIdentity');
    expect(choose([PLAIN, AUTHV2], true)).toBeUndefined();
  });

  it('refuses another chain, another method, a malformed message, an empty scope, another circuit and accept profiles vc cannot satisfy, with the reason', async () => {
    const other = requestFile(invoke((m) => (m.body.transaction_data.chain_id = 80002)));
    expect(await refused(['--request', other])).toEqual(expect.objectContaining({ field: '--request', message: `${at(other)}: transaction_data.chain_id 80002 is not this wallet's chain 152; a wallet acts only on its own chain` }));
    const method = requestFile(invoke((m) => (m.body.transaction_data.method_id = '0xb68967e2')));
    expect((await refused(['--request', method])).message).toBe(`${at(method)}: transaction_data.method_id 0xb68967e2 is not UniversalVerifier.submitResponse (06c86a91), the one method vc submits proofs with`);
    const missing = requestFile(invoke((m) => delete (m.body as { transaction_data?: unknown }).transaction_data));
    expect((await refused(['--request', missing])).message).toBe(`${at(missing)}: field body.transaction_data: missing (expected object)`);
    const address = requestFile(invoke((m) => (m.body.transaction_data.contract_address = 'UniversalVerifier')));
    expect((await refused(['--request', address])).message).toBe(`${at(address)}: field body.transaction_data.contract_address: expected a contract address (0x and 40 hex digits)`);
    const empty = requestFile(invoke((m) => (m.body.scope = [])));
    expect((await refused(['--request', empty])).message).toBe(`${at(empty)}: field body.scope: no proof request: nothing to prove and submit`);
    const badId = requestFile(invoke((m) => ((m.body.scope as Array<{ id: unknown }>)[0]!.id = '7')));
    expect((await refused(['--request', badId])).message).toMatch(new RegExp(`^${at(badId).replace(/[()]/g, '\\$&')}: field body\\.scope\\[0\\]\\.id: `));
    const offChain = requestFile(invoke((m) => ((m.body.scope as Array<{ circuitId: string }>)[0]!.circuitId = 'credentialAtomicQueryV3')));
    expect((await refused(['--request', offChain])).message).toBe(
      `${at(offChain)}: scope 7 (KYCAgeCredential birthday $lt) asks for a credentialAtomicQueryV3 proof; on chain vc proves credentialAtomicQueryMTPV2OnChain and credentialAtomicQueryV3OnChain requests`,
    );
    const twoFields = requestFile(invoke((m) => ((m.body.scope as Array<{ query: { credentialSubject: unknown } }>)[0]!.query.credentialSubject = { birthday: {}, documentType: {} })));
    expect((await refused(['--request', twoFields])).message).toBe(`${at(twoFields)}: field body.scope[0].query.credentialSubject asks 2 fields (birthday, documentType); a credentialAtomicQueryV3OnChain proof answers one`);
    const plonk = requestFile(invoke((m) => (m.body.accept = ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3;alg=plonk', 'iden3comm/v2;env=application/iden3comm-plain-json'])));
    expect((await refused(['--request', plonk])).message).toBe(
      `${at(plonk)}: the request accepts only iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV3;alg=plonk, iden3comm/v2;env=application/iden3comm-plain-json; vc submits with embedded auth (iden3comm/v1;env=application/iden3comm-plain-json), an authV2, authV3 or authV3-8-32 proof (iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16) or, for an Ethereum identity, ethIdentity (iden3comm/v1;env=application/iden3comm-signed-json;alg=ES256K-R)`,
    );
    const expired = requestFile(invoke((m) => (m.expires_time = 1_700_000_000)));
    expect((await refused(['--request', expired])).message).toBe(`${at(expired)}: the request expired at 2023-11-14T22:13:20.000Z`);
  });

  it('refuses --post (the answer is the transactions) and a message a link carries is read as a file is', async () => {
    const message = invoke();
    const name = requestFile(message);
    expect(await refused(['--request', name, '--post'])).toEqual(expect.objectContaining({ field: '--post', message: expect.stringContaining('a contract-invoke-request is answered on chain') }));
    const link = `iden3comm://?i_m=${Buffer.from(JSON.stringify(invoke((m) => (m.body.transaction_data.chain_id = 1)))).toString('base64')}`;
    expect((await refused(['--request', link])).message).toMatch(/transaction_data\.chain_id 1 is not this wallet's chain 152/);
    expect(hits).toBe(0);
  });
});
