/**
 * Bad input of `vc verifier auth-request` and `vc verifier verify --jwz` (issue 28): no chain, no
 * proof. Each is one line naming the flag and file and what was expected, exit 2, and nothing is
 * recorded; a token that is a JWZ but does not verify is a refusal instead (test/e2e/iden3commVerifier).
 * Several proof requests in one request (--query FILE, the iden3 query language): each made as
 * given, with its own id, and each refusal naming the query's file and member.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVcInProcess, tempDir, type VcRun } from '../../helpers.js';
import { answeredScopeProblem, disclosedByField, type VerifiedScopeProof } from '../../../src/core/iden3comm/authVerify.js';
import type { AuthRequestMessage } from '../../../src/core/iden3comm/authRequest.js';

const tmp = tempDir('vc-iden3comm-input-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home });
const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const ZKP_HEADER = { alg: 'groth16', circuitId: 'authV2', crit: ['circuitId'], typ: 'application/iden3-zkp-json' };

/** Runs verify on a token file's text and expects exit 2 with one JSON error line; returns its message. */
async function refusedInput(text: string | Buffer, request = file('request.json')): Promise<{ message: string; field?: string }> {
  const tokenFile = file(`bad-${Math.random().toString(36).slice(2)}.jwz`);
  writeFileSync(tokenFile, text);
  const run = await vc(['verifier', 'verify', '--jwz', tokenFile, '--request', request]);
  expect(run.status, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  return { ...jsonError(run.stderr), tokenFile } as { message: string; field?: string; tokenFile: string };
}

beforeAll(async () => {
  const made = await vc(['verifier', 'auth-request', '--op', '$sd', '-o', file('request.json')]);
  expect(made.status, made.stderr).toBe(0);
}, 120_000);

afterAll(() => tmp.cleanup());

describe('vc verifier verify --jwz: input that is no JWZ token', () => {
  it('refuses JSON, a token of the wrong shape, a header that is not JSON or of another typ, and a huge file', async () => {
    const json = await refusedInput('{"id":"x"}');
    expect(json.message).toMatch(/^--jwz \S+\.jwz: is JSON, not a JWZ token \(three base64url parts header\.payload\.proof\); a wallet's answer is the token it posts$/);
    expect(json.field).toBe('--jwz');
    expect((await refusedInput('abc.def')).message).toMatch(/: not a JWZ token: expected three base64url parts header\.payload\.proof, found 2 parts$/);
    expect((await refusedInput('ab$c.def.ghi')).message).toMatch(/: not a JWZ token: expected three base64url parts/);
    expect((await refusedInput(`${b64('not json')}.${b64({})}.${b64({})}`)).message).toMatch(/: not a JWZ token: its header is not a JSON object$/);
    // A JWS (a signed iden3comm message, or any JWT) is not a JWZ.
    expect((await refusedInput(`${b64({ alg: 'ES256K', typ: 'application/iden3comm-signed-json' })}.${b64({})}.${b64('sig')}`)).message).toMatch(
      /: header typ is "application\/iden3comm-signed-json", expected application\/iden3-zkp-json \(a JWZ\)$/,
    );
    expect((await refusedInput(`${b64({ typ: 'application/iden3-zkp-json' })}.${b64({})}.${b64({})}`)).message).toMatch(/: the JWZ header lacks alg or circuitId$/);
    expect((await refusedInput('')).message).toMatch(/: empty; expected a JWZ token/);
    expect((await refusedInput(`${b64(ZKP_HEADER)}.${'A'.repeat(300 * 1024)}.${b64({})}`)).message).toMatch(/: the token is larger than 256 KiB$/);
    // A proof part that is not a proof: the JWZ library's own reason.
    expect((await refusedInput(`${b64(ZKP_HEADER)}.${b64({ id: '1' })}.${b64('not a proof')}`)).message).toMatch(/^--jwz \S+: not a JWZ token: /);
  });

  it('refuses a missing file, a directory, and a request this wallet did not make or that was changed', async () => {
    const token = `${b64(ZKP_HEADER)}.${b64({ id: '1' })}.${b64({ proof: {}, pub_signals: [] })}`;
    writeFileSync(file('token.jwz'), token);
    const missing = await vc(['verifier', 'verify', '--jwz', file('nothing.jwz'), '--request', file('request.json')]);
    expect(missing.status).toBe(2);
    expect(jsonError(missing.stderr).message).toBe(`--jwz: cannot read ${file('nothing.jwz')}: no such file`);
    const directory = await vc(['verifier', 'verify', '--jwz', tmp.dir, '--request', file('request.json')]);
    expect(directory.status).toBe(2);
    expect(jsonError(directory.stderr).message).toBe(`--jwz: ${tmp.dir} is not a regular file`);

    const request = JSON.parse(readFileSync(file('request.json'), 'utf8')) as { id: string; body: { scope: Array<{ query: { allowedIssuers: string[] } }> } };
    writeFileSync(file('unknown.json'), JSON.stringify({ ...request, id: 'not-made-here' }));
    const unknown = await vc(['verifier', 'verify', '--jwz', file('token.jwz'), '--request', file('unknown.json')]);
    expect(unknown.status).toBe(2);
    expect(jsonError(unknown.stderr)).toMatchObject({
      code: 'not_found',
      message: `--request ${file('unknown.json')}: request not-made-here was not made by this wallet (vc verifier auth-request records the requests it makes)`,
    });
    request.body.scope[0]!.query.allowedIssuers = ['did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR'];
    writeFileSync(file('changed.json'), JSON.stringify(request));
    const changed = await vc(['verifier', 'verify', '--jwz', file('token.jwz'), '--request', file('changed.json')]);
    expect(changed.status).toBe(2);
    expect(jsonError(changed.stderr).message).toBe(`--request ${file('changed.json')}: differs from request ${request.id} as this wallet made it (the recorded one is what answers are checked against)`);

    const notRequest = await vc(['verifier', 'verify', '--jwz', file('token.jwz'), '--request', file('token.jwz')]);
    expect(notRequest.status).toBe(2);
    expect(jsonError(notRequest.stderr).message).toMatch(/^--request: /);
  });
});

describe('vc verifier auth-request: bad options', () => {
  it('refuses a callback that is no http(s) URL, an expiry out of range, a value for $sd, and a field the type lacks', async () => {
    const refused = async (args: string[]): Promise<string> => {
      const run = await vc(['verifier', 'auth-request', ...args]);
      expect(run.status, run.stderr).toBe(2);
      return jsonError(run.stderr).message;
    };
    expect(await refused(['--callback', 'ftp://verifier.example/cb'])).toBe('--callback: expected an absolute http(s) URL where wallets post their answer, got "ftp://verifier.example/cb"');
    expect(await refused(['--expires', '0'])).toBe('--expires: expected seconds from 1 to 2592000 (30 days), got 0');
    expect(await refused(['--expires', String(31 * 24 * 3600)])).toMatch(/^--expires: expected seconds from 1 to 2592000/);
    expect(await refused(['--op', '$sd', '--value', '1'])).toBe("--value: $sd takes no value (the proof discloses the field's value)");
    expect(await refused(['--field', 'shoeSize', '--value', '42'])).toMatch(/^--field: PassportCredential has no field shoeSize/);
  });
});

describe('vc verifier auth-request --qr for a request too large for a QR code (attack-s35)', () => {
  // Every value is within the declared limits (callback 2048, reason 500), but the universal link
  // is over a QR code's capacity: the qrcode library throws, vc exits 70 with its stack trace, and
  // the request it recorded is printed nowhere. Expected: exit 2 naming --qr (and what to do),
  // or the JSON still written with the QR left out.
  it('makes and prints the request, saying why there is no QR code, with no stack trace', async () => {
    const callback = `https://verifier.example/callback?state=${'a'.repeat(1500)}`;
    const args = ['verifier', 'auth-request', '--qr', '--op', '$sd', '--callback', callback, '--reason', 'r'.repeat(400)];
    const json = await vc(args);
    expect(json.stderr).not.toMatch(/\n\s+at /);
    expect(json.status, json.stderr).toBe(0);
    expect(json.json<{ type: string }>().type).toBe('https://iden3-communication.io/authorization/1.0/request');
    // In text, with -o: the request in the file, the notice and the link on stdout.
    const out = path.join(home, 'big-request.json');
    const text = await runVcInProcess([...args, '-o', out], { home });
    expect(text.status, text.stderr).toBe(0);
    expect(text.stderr).not.toMatch(/\n\s+at /);
    expect(text.stdout).toMatch(/^\(no QR code: the universal link is \d+ characters, more than a QR code holds; /);
    expect(text.stdout).toMatch(/\nhttps:\/\/wallet\.privado\.id\/#i_m=\S+\n$/);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { body: { reason: string } }).body.reason).toBe('r'.repeat(400));
  });
});

const PASSPORT_CONTEXT = 'https://schemas.vc.example/iden3/passport/v1/passport.jsonld';
const ISSUER = 'did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR';

/** Writes a query file (or any JSON) and returns its path. */
function queryFile(name: string, query: unknown): string {
  writeFileSync(file(name), JSON.stringify(query));
  return file(name);
}

describe('vc verifier auth-request --query FILE: several proof requests, in the iden3 query language', () => {
  type Made = AuthRequestMessage & { body: { scope: Array<{ id: number; circuitId: string; query: Record<string, unknown> }> } };
  const disclose = { type: 'PassportCredential', credentialSubject: { birthDate: {} } };
  const nationality = {
    type: 'PassportCredential',
    context: PASSPORT_CONTEXT,
    allowedIssuers: [ISSUER],
    credentialSubject: { nationality: { $in: ['FRA', 'DEU'] } },
    proofType: 'BJJSignature2021',
    skipClaimRevocationCheck: true,
  };

  it('makes one proof request per query, as given (the defaults filled in), each with its own random id, and records the request', async () => {
    const [a, b] = [queryFile('q-disclose.json', disclose), queryFile('q-nationality.json', nationality)];
    const repeated = await vc(['verifier', 'auth-request', '--query', a, '--query', b, '-o', file('two.json')]);
    expect(repeated.status, repeated.stderr).toBe(0);
    const made = JSON.parse(readFileSync(file('two.json'), 'utf8')) as Made;
    expect(made.body.scope).toEqual([
      { id: expect.any(Number), circuitId: 'credentialAtomicQueryV3', query: { allowedIssuers: ['*'], type: 'PassportCredential', context: PASSPORT_CONTEXT, credentialSubject: { birthDate: {} } } },
      { id: expect.any(Number), circuitId: 'credentialAtomicQueryV3', query: nationality },
    ]);
    // Comma-separated files are the same list; the same query twice is two proof requests.
    const listed = await vc(['verifier', 'auth-request', '--query', `${a},${b},${a}`]);
    expect(listed.status, listed.stderr).toBe(0);
    const three = listed.json<Made>();
    expect(three.body.scope.map((item) => item.query)).toEqual([made.body.scope[0]!.query, nationality, made.body.scope[0]!.query]);
    const ids = [...made.body.scope, ...three.body.scope].map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(Number.isSafeInteger(id) && id > 0).toBe(true);
    // Recorded: verify --jwz knows the request, and goes on to the token (whose proof part is no proof).
    writeFileSync(file('some.jwz'), `${b64(ZKP_HEADER)}.${b64({ id: '1' })}.${b64('not a proof')}`);
    const known = await vc(['verifier', 'verify', '--jwz', file('some.jwz'), '--request', file('two.json')]);
    expect(known.status).toBe(2);
    expect(jsonError(known.stderr).message).toMatch(/^--jwz \S+: not a JWZ token: /);
  });

  it('refuses a query that does not fit, naming its file and member, whichever query it is', async () => {
    const good = queryFile('q-good.json', disclose);
    const refused = async (query: unknown, name = `q-bad-${Math.random().toString(36).slice(2)}.json`): Promise<string> => {
      const bad = queryFile(name, query);
      const run = await vc(['verifier', 'auth-request', '--query', good, '--query', bad]);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      return jsonError(run.stderr).message.replaceAll(bad, 'BAD');
    };
    expect(await refused({ type: 'PassportCredential', credentialSubject: { shoeSize: { $lt: 42 } } })).toMatch(/^--query BAD: field credentialSubject: PassportCredential has no field shoeSize; its fields: birthDate, /);
    expect(await refused({ type: 'PasportCredential', credentialSubject: { birthDate: {} } })).toMatch(
      /^--query BAD: no JSON-LD context known for type PasportCredential \(did you mean PassportCredential\?\) .*give its URL \(--query BAD: field context\)/,
    );
    expect(await refused({ type: 'PassportCredential', credentialSubject: { birthDate: { $lt: -1 } } })).toBe(
      '--query BAD: field credentialSubject.birthDate.$lt: -1 is negative; the circuit compares non-negative integers only (credentialSubject.birthDate)',
    );
    expect(await refused({ type: 'PassportCredential', credentialSubject: { birthDate: { $lt: 20011350 } } })).toMatch(/^--query BAD: field credentialSubject\.birthDate\.\$lt: 20011350 is not a valid YYYYMMDD date/);
    expect(await refused({ type: 'PassportCredential', credentialSubject: { birthDate: { $between: [1] } } })).toBe('--query BAD: field credentialSubject.birthDate.$between: $between takes a list of two values, the bounds [low, high]');
    expect(await refused({ type: 'PassportCredential', credentialSubject: { birthDate: { $like: 1 } } })).toMatch(/^--query BAD: field credentialSubject\.birthDate: expected one operator \(\$eq, \$lt, /);
    expect(await refused({ type: 'PassportCredential', credentialSubject: { birthDate: {}, name: {} } })).toMatch(/^--query BAD: field credentialSubject: expected one field with its condition/);
    expect(await refused({ type: 'PassportCredential', credentialSubject: {} })).toMatch(/^--query BAD: field credentialSubject: expected one field with its condition/);
    expect(await refused({ type: 'PassportCredential', groupId: 1, credentialSubject: { birthDate: {} } })).toMatch(/^--query BAD: unknown member "groupId": .*linked queries \(groupId\) are not made by vc$/);
    expect(await refused({ type: 'PassportCredential', allowedIssuers: ['did:x'], credentialSubject: { birthDate: {} } })).toMatch(/^--query BAD: field allowedIssuers: did:x is not an iden3 DID/);
    expect(await refused({ type: 'PassportCredential', proofType: 'sig', credentialSubject: { birthDate: {} } })).toMatch(/^--query BAD: field proofType: /);
    expect(await refused({ type: 'PassportCredential', context: 'https://example.org/unknown.jsonld', credentialSubject: { birthDate: {} } })).toMatch(
      /^--query BAD: field context: unknown JSON-LD context https:\/\/example\.org\/unknown\.jsonld: add it with `vc documents add/,
    );
    expect(await refused([disclose])).toBe('--query BAD: expected a query: a JSON object {type, context, credentialSubject: {field: {$op: value}}, ...}');
    const notJson = file('q-not-json.json');
    writeFileSync(notJson, '{"type":');
    const broken = await vc(['verifier', 'auth-request', '--query', good, '--query', notJson]);
    expect(broken.status).toBe(2);
    expect(jsonError(broken.stderr).message).toMatch(/^--query: .*q-not-json\.json/);
  });

  it('refuses the query flags beside --query, and more than 16 queries', async () => {
    const good = queryFile('q-good.json', disclose);
    const both = await vc(['verifier', 'auth-request', '--query', good, '--op', '$sd']);
    expect(both.status).toBe(2);
    expect(jsonError(both.stderr).message).toBe('--op and --query both describe the query: give the query flags for one query, or every query as JSON (--query)');
    const many = await vc(['verifier', 'auth-request', '--query', Array.from({ length: 17 }, () => good).join(',')]);
    expect(many.status).toBe(2);
    expect(jsonError(many.stderr).message).toBe('--query: at most 16 queries (proof requests) in one request');
  });
});

describe("the verifier's reading of an answer's scope (authVerify)", () => {
  const request = {
    id: 'r1',
    body: {
      scope: [
        { id: 11, circuitId: 'credentialAtomicQueryV3', query: { type: 'KYCAgeCredential', credentialSubject: { birthday: {} } } },
        { id: 12, circuitId: 'credentialAtomicQueryV3', query: { type: 'KYCAgeCredential', credentialSubject: { documentType: { $lt: 3 } } } },
      ],
    },
  } as unknown as AuthRequestMessage;

  it('wants one proof for each proof request: none missing, none twice, none for another', () => {
    expect(answeredScopeProblem(request, [{ id: 12 }, { id: '11' }])).toBeUndefined();
    expect(answeredScopeProblem(request, [{ id: 11 }])).toBe('the token answers 1 of the 2 proof requests of request r1: no proof for scope 12 (KYCAgeCredential documentType $lt)');
    expect(answeredScopeProblem(request, [])).toBe('the token answers 0 of the 2 proof requests of request r1: no proof for scope 11 (KYCAgeCredential birthday $sd), scope 12 (KYCAgeCredential documentType $lt)');
    expect(answeredScopeProblem(request, [{ id: 11 }, { id: 11 }, { id: 12 }])).toBe('the token carries two proofs for scope 11');
    expect(answeredScopeProblem(request, [{ id: 11 }, { id: 12 }, { id: 13 }])).toBe('the token carries a proof for scope 13, which request r1 does not ask for');
    expect(answeredScopeProblem(request, undefined)).toBe('the token carries no scope proofs; the request asks for 2');
  });

  it('keys the disclosed values by field, by type and field when two proofs disclose the same field', () => {
    const proof = { circuitId: 'credentialAtomicQueryV3-16-16-64', issuer: ISSUER, operator: '$sd' };
    expect(
      disclosedByField([
        { ...proof, id: 1, type: 'KYCAgeCredential', field: 'birthday', disclosed: '19960424' },
        { ...proof, id: 2, type: 'KYCAgeCredential', field: 'documentType', disclosed: '2' },
        { ...proof, id: 3, type: 'KYCAgeCredential', field: 'birthday', operator: '$lt' },
      ]),
    ).toEqual({ birthday: '19960424', documentType: '2' });
    expect(
      disclosedByField([
        { ...proof, id: 1, type: 'KYCAgeCredential', field: 'birthDate', disclosed: '19960424' },
        { ...proof, id: 2, type: 'PassportCredential', field: 'birthDate', disclosed: '19900101' },
        { ...proof, id: 3, type: 'PassportCredential', field: 'birthDate', disclosed: '19900101' },
      ]),
    ).toEqual({ 'KYCAgeCredential.birthDate': '19960424', 'PassportCredential.birthDate#2': '19900101', 'PassportCredential.birthDate#3': '19900101' });
  });

  it('gives each disclosing proof its own key: a type-qualified key never takes the key of a (nested) field of that name', () => {
    const proof = (id: number, type: string, field: string, disclosed: string): VerifiedScopeProof => ({ id, circuitId: 'credentialAtomicQueryV3', issuer: ISSUER, type, field, operator: '$sd', disclosed });
    // (stop 36: proofs 1 and 3 both got "A.b", and proof 1's value was lost.)
    expect(disclosedByField([proof(1, 'A', 'b', 'one'), proof(2, 'C', 'b', 'two'), proof(3, 'T', 'A.b', 'three')])).toEqual({ 'A.b': 'three', 'A.b#1': 'one', 'C.b': 'two' });
    // Whatever the order, and with a field named as a scope-qualified key too.
    expect(disclosedByField([proof(3, 'T', 'A.b', 'three'), proof(7, 'U', 'A.b#1', 'four'), proof(2, 'C', 'b', 'two'), proof(1, 'A', 'b', 'one')])).toEqual({
      'A.b': 'three',
      'A.b#1': 'four',
      'A.b#1#1': 'one',
      'C.b': 'two',
    });
    // Many proofs of colliding names: one key each, every value kept.
    const many = [proof(1, 'A', 'b', 'v1'), proof(2, 'A', 'b', 'v2'), proof(3, 'X', 'A.b', 'v3'), proof(4, 'Y', 'A.b', 'v4'), proof(5, 'Z', 'A.b#1', 'v5'), proof(6, 'A', 'b#1', 'v6')];
    const keyed = disclosedByField(many);
    expect(Object.keys(keyed)).toHaveLength(many.length);
    expect(Object.values(keyed).sort()).toEqual(many.map((p) => p.disclosed).sort());
  });
});
