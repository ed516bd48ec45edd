/**
 * W3C status lists across processes, as users run them: an issuer service (`vc serve --role all`
 * behind VC_API_TOKEN) issues bbs-2023 credentials with status entries (POST /credentials/issue
 * options.credentialStatus, POST /generate-sd-credentials/bbs-2023 status) and changes them
 * (POST /credentials/status, `vc issuer revoke|suspend|unsuspend --id`); a verifier service and
 * CLI verifiers in other homes see each change, fetching the list from the issuer service on the
 * loopback (VC_ISSUER_URL; GET /status-lists/:id needs no token), or reading it from a file
 * (--status-list), and never from an address they were not configured with. Bad input on every
 * new route and flag is a 4xx JSON error or exit 2, never a 500.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVc, runVcInProcess, startVcServe, tempDir, type VcServer } from '../../helpers.js';

type Json = Record<string, unknown>;
type Entry = { id: string; statusPurpose: string; statusListIndex: string; statusListCredential: string };

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const TOKEN = 'status-list-test-token-0123456789';
const CREDENTIAL_ID = 'urn:uuid:4d1c2b3a-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

const tmp = tempDir('vc-status-serve-');
const home = (name: string): string => path.join(tmp.dir, name);
const file = (name: string): string => path.join(tmp.dir, name);
let issuer: VcServer;
let verifier: VcServer;
let issuerUrl: string;

async function call(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const init: RequestInit = body === undefined ? { headers } : { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) };
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as Json };
}
const auth = { authorization: `Bearer ${TOKEN}` };
const atIssuer = (route: string, body?: unknown) => call(`${issuerUrl}${route}`, body, auth);

beforeAll(async () => {
  issuer = await startVcServe(home('issuer'), ['--role', 'all'], { env: { IDP_BLS_SIGN_SEED_PHRASE: PHRASE, VC_API_TOKEN: TOKEN, VC_WORKERS: '1' } });
  issuerUrl = issuer.urls.issuer!;
  verifier = await startVcServe(home('verifier'), ['--role', 'verifier'], { env: { VC_ISSUER_URL: issuerUrl, VC_WORKERS: '1' } });
}, 120_000);
afterAll(async () => {
  await Promise.all([issuer?.stop(), verifier?.stop()]);
  tmp.cleanup();
});

const UNSIGNED = {
  '@context': ['https://www.w3.org/ns/credentials/v2', 'https://vc.example/contexts/sd-passport/v2'],
  type: ['VerifiableCredential', 'PassportCredential'],
  credentialSubject: { id: 'did:example:carol', name: 'Carol Example', nationality: 'NLD' },
};

describe('the VC-API routes: issue with a status, change it, the verifier service sees it', () => {
  let signed: Json;
  let derived: Json;
  const verify = () => call(`${verifier.urls.verifier!}/credentials/verify`, { verifiableCredential: derived });

  beforeAll(async () => {
    const issued = await atIssuer('/credentials/issue', {
      credential: UNSIGNED,
      options: { credentialStatus: [{ type: 'BitstringStatusListEntry', statusPurpose: 'revocation' }, { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' }], credentialId: CREDENTIAL_ID },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    signed = issued.body.verifiableCredential as Json;
    const entries = signed.credentialStatus as Entry[];
    expect(entries.map((entry) => [entry.statusPurpose, entry.statusListCredential])).toEqual([
      ['revocation', `${issuerUrl}/status-lists/revocation-1`],
      ['suspension', `${issuerUrl}/status-lists/suspension-1`],
    ]);
    const disclosed = await call(`${issuer.urls.holder!}/credentials/derive`, { verifiableCredential: signed, options: { selectivePointers: ['/credentialSubject/nationality'] } }, auth);
    expect(disclosed.status, JSON.stringify(disclosed.body)).toBe(201);
    derived = disclosed.body.verifiableCredential as Json;
    expect(derived.credentialStatus).toEqual(signed.credentialStatus);
  });

  it('verified with its status, the list fetched from the issuer service without a token', async () => {
    expect(await verify()).toEqual({ status: 200, body: { verified: true, checks: ['data-model', 'proof', 'status'], warnings: [], errors: [] } });
    const open = await call(`${issuerUrl}/status-lists/revocation-1`);
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ id: `${issuerUrl}/status-lists/revocation-1`, type: ['VerifiableCredential', 'BitstringStatusListCredential'], issuer: signed.issuer, proof: { cryptosuite: 'bbs-2023' } });
    // Only the status lists are open: the rest of the issuer still needs the token.
    expect((await call(`${issuerUrl}/bbs-key`)).status).toBe(401);
  });

  it('suspend, unsuspend, revoke (POST /credentials/status), each seen at the next verification', async () => {
    const change = (statusPurpose: string, status: boolean) => atIssuer('/credentials/status', { credentialId: CREDENTIAL_ID, credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose }, status });
    expect(await change('suspension', true)).toMatchObject({ status: 200, body: { message: 'suspended', set: true, changed: true } });
    const suspended = await verify();
    expect(suspended.status).toBe(422);
    expect(suspended.body).toMatchObject({ verified: false, checks: ['data-model', 'proof', 'status'], errors: [{ name: 'StatusError', message: expect.stringMatching(/^status: suspended: index \d+ of status list .*suspension-1 is set/) }] });
    expect(await change('suspension', false)).toMatchObject({ status: 200, body: { message: 'unsuspended', set: false } });
    expect((await verify()).status).toBe(200);
    expect(await change('revocation', true)).toMatchObject({ status: 200, body: { message: 'revoked', set: true } });
    expect((await verify()).body.errors).toEqual([{ name: 'StatusError', message: expect.stringMatching(/^status: revoked: /) }]);
    const undo = await change('revocation', false);
    expect(undo.status).toBe(422);
    expect(undo.body.error).toMatchObject({ code: 'unprocessable', field: 'credentialId', message: expect.stringMatching(/a revocation cannot be undone/) });
  });
});

describe('the spec routes and the command line: issue, disclose, verify elsewhere, revoke', () => {
  // The commands in process (runVcInProcess), but the revocation: another process on the home the issuer serves.
  const nonceIn = async (name: string): Promise<string> => (await runVcInProcess(['--json', 'verifier', 'nonce'], { home: home(name) })).json<{ nonce: string }>().nonce;
  const disclose = async (nonce: string, out: string) => {
    const run = await runVcInProcess(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', 'nationality', '--nonce', nonce, '-o', file(out)], { home: home('issuer'), env: { IDP_BLS_SIGN_SEED_PHRASE: PHRASE } });
    expect(run.status, run.stderr).toBe(0);
  };
  const verifyIn = (name: string, credential: string, extra: string[] = [], env: Record<string, string> = { VC_ISSUER_URL: issuerUrl }) =>
    runVcInProcess(['--json', 'verifier', 'verify', '--credential', file(credential), ...extra], { home: home(name), env });
  let entry: Entry;

  it('the issuer service issues with a status; a CLI verifier elsewhere fetches the list, or reads it from --status-list, and nothing else', async () => {
    const issued = await atIssuer('/generate-sd-credentials/bbs-2023', { status: ['revocation'] });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    entry = issued.body.credentialStatus as Entry;
    expect(entry.statusListCredential).toBe(`${issuerUrl}/status-lists/revocation-1`);

    await disclose(await nonceIn('cli-verifier'), 'd1.json');
    const fetched = await verifyIn('cli-verifier', 'd1.json');
    expect(fetched.status, fetched.stderr).toBe(0);
    expect(fetched.json<{ checks: Json[] }>().checks).toContainEqual({ id: 'status', valid: true });

    // No VC_ISSUER_URL: the default issuer address (port 3000) is not this list's; nothing is fetched.
    await disclose(await nonceIn('offline'), 'd2.json');
    const offline = await verifyIn('offline', 'd2.json', [], {});
    expect(offline.status).toBe(1);
    expect(offline.json<{ message: string }>().message).toMatch(/status list http:\/\/127\.0\.0\.1:\d+\/status-lists\/revocation-1: not at hand: give it/);
    const exported = await runVcInProcess(['--json', 'issuer', 'status-list', '--id', 'revocation-1', '-o', file('revocation-1.json')], { home: home('issuer') });
    expect(exported.status, exported.stderr).toBe(0);
    await disclose(await nonceIn('offline'), 'd3.json');
    const given = await verifyIn('offline', 'd3.json', ['--status-list', file('revocation-1.json')], {});
    expect(given.status, given.stdout).toBe(0);
  });

  it('vc issuer revoke --id, on the issuer\'s home while it serves: the next verification fails with the reason', async () => {
    const revoked = runVc(['--json', 'issuer', 'revoke', '--id', entry.id], { home: home('issuer'), env: { IDP_BLS_SIGN_SEED_PHRASE: PHRASE } });
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.json()).toMatchObject({ message: 'revoked', statusListIndex: entry.statusListIndex, changed: true });
    await disclose(await nonceIn('cli-verifier'), 'd4.json');
    const refused = await verifyIn('cli-verifier', 'd4.json');
    expect(refused.status).toBe(1);
    expect(refused.json<{ message: string }>().message).toBe(`verification failed: revoked: index ${entry.statusListIndex} of status list ${entry.statusListCredential} is set (revocation)`);
    // The list exported before the revocation still says what it said then (its validFrom).
    await disclose(await nonceIn('offline'), 'd5.json');
    expect((await verifyIn('offline', 'd5.json', ['--status-list', file('revocation-1.json')], {})).status).toBe(0);
  });
});

describe('bad input on the new routes and flags: 4xx JSON or exit 2, never 500', () => {
  it('GET /status-lists/:id', async () => {
    const unknown = await call(`${issuerUrl}/status-lists/revocation-99`);
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'not_found', field: 'id' } } });
    for (const id of ['UPPER', 'a_b', 'a%20b', 'x'.repeat(101)]) {
      const bad = await call(`${issuerUrl}/status-lists/${id}`);
      expect([400, 404, 414], id).toContain(bad.status);
      expect(bad.body.error, id).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    expect((await call(`${issuerUrl}/status-lists/revocation-1`, {})).status).toBe(405);
  });

  it('POST /credentials/status', async () => {
    const valid = { credentialId: CREDENTIAL_ID, credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' }, status: true };
    const cases: Array<[unknown, number]> = [
      [{}, 400],
      [{ ...valid, status: 'yes' }, 400],
      [{ ...valid, credentialStatus: { type: 'StatusList2021Entry', statusPurpose: 'revocation' } }, 400],
      [{ ...valid, credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'message' } }, 400],
      [{ ...valid, extra: 1 }, 400],
      [{ ...valid, credentialId: '' }, 400],
      [{ ...valid, credentialId: 'urn:uuid:unknown' }, 404],
      ['[1,2', 400],
    ];
    for (const [body, status] of cases) {
      const answer = await atIssuer('/credentials/status', body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error, JSON.stringify(body)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    expect((await call(`${issuerUrl}/credentials/status`, valid)).status).toBe(401);
  });

  it('POST /credentials/issue and /generate-sd-credentials/bbs-2023 with a status; /verify-vc never takes a list from the caller', async () => {
    const issue = (options: unknown, credential: Json = UNSIGNED) => atIssuer('/credentials/issue', { credential, options });
    expect((await issue({ credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'message' } })).status).toBe(400);
    expect((await issue({ credentialStatus: { statusPurpose: 'revocation' } })).status).toBe(400);
    expect((await issue({ credentialStatus: [] })).status).toBe(400);
    const duplicate = await issue({ credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' }, credentialId: CREDENTIAL_ID });
    expect(duplicate).toMatchObject({ status: 409, body: { error: { code: 'conflict', field: 'options.credentialId' } } });
    const own = await issue(undefined, { ...UNSIGNED, credentialStatus: { id: 'https://x.example/1#1', type: 'BitstringStatusListEntry', statusPurpose: 'revocation', statusListIndex: '1', statusListCredential: 'https://x.example/1' } });
    expect(own).toMatchObject({ status: 422, body: { error: { field: 'credential.credentialStatus', message: expect.stringMatching(/the issuer assigns the status list entry itself/) } } });
    expect((await atIssuer('/generate-sd-credentials/bbs-2023', { status: ['revoked'] })).status).toBe(400);
    const listGiven = await call(`${verifier.urls.verifier!}/verify-vc`, { vc: {}, statusList: {} });
    expect(listGiven).toMatchObject({ status: 400, body: { error: { code: 'invalid_input' } } });
    expect(issuer.stderr()).not.toMatch(/"status":500/);
    expect(verifier.stderr()).not.toMatch(/"status":500/);
  });

  it('the commands', async () => {
    const cli = (args: string[]) => runVcInProcess(['--json', ...args], { home: home('cli-errors') });
    writeFileSync(file('some.json'), '{}');
    const cases: Array<[string[], RegExp, string | undefined]> = [
      [['issuer', 'revoke', '--id', 'urn:uuid:nope'], /^--id: no credential with a status list entry is known by "urn:uuid:nope"/, '--id'],
      [['issuer', 'revoke', '--id', 'urn:uuid:nope', '--revocation-nonce', '5'], /^--revocation-nonce does not apply to --id$/, '--revocation-nonce'],
      [['issuer', 'revoke'], /^expected --revocation-nonce <n> \(iden3\) or --id <id> \(W3C status list\)$/, '--revocation-nonce'],
      [['issuer', 'suspend', '--id', ''], /--id/, '--id'],
      [['issuer', 'issue', '--format', 'bbs-2023', '--status', 'revocation,revoked'], /^--status item 2: expected revocation or suspension, got "revoked"$/, '--status [1]'],
      [['issuer', 'issue', '--format', 'bbs', '--status', 'revocation'], /^--status does not apply to --format bbs$/, '--status'],
      [['issuer', 'status-list', '--id', 'revocation-1'], /^--id: no status list "revocation-1" on this issuer$/, '--id'],
      [['verifier', 'verify', '--credential', file('some.json'), '--status-list', file('missing.json')], /^--status-list: cannot read/, '--status-list'],
    ];
    for (const [args, message, field] of cases) {
      const run = await cli(args);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(jsonError(run.stderr), args.join(' ')).toMatchObject({ message: expect.stringMatching(message), ...(field === undefined ? {} : { field }) });
    }
    writeFileSync(file('not-a-list.json'), '"a string"');
    const notList = await cli(['verifier', 'verify', '--credential', file('some.json'), '--status-list', file('not-a-list.json')]);
    expect(notList.status).toBe(2);
    expect(jsonError(notList.stderr).field).toBe('--status-list');
  });
});
