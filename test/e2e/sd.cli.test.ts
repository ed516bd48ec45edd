/**
 * Selective disclosure through the built `vc` binary, as a user runs it: issue -> disclose ->
 * verify, and every tampering the verifier must reject with a reason and exit code 1. That flow
 * runs the binary; the other commands run in this process (runVcInProcess: the binary's own code,
 * output and exit codes, without a node start-up each), being about what the command does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runVc, runVcInProcess, tempDir } from '../helpers.js';

const FIXED_PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const OTHER_PHRASE = 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above';

interface Check {
  id: string;
  valid: boolean;
  reason?: string;
}
interface VerifyResult {
  verified: boolean;
  message: string;
  checks: Check[];
}
type Json = Record<string, unknown>;

const tmp = tempDir('vc-sd-cli-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
let disclosed: Json;
let issued: Json;
/** The holder's DID in `home`: the subject of the credential its issuer issues it (and so kept by its holder). */
let holderDid: string;

function writeJson(name: string, value: unknown): string {
  writeFileSync(file(name), JSON.stringify(value, null, 2));
  return file(name);
}

function readJson<T = Json>(name: string): T {
  return JSON.parse(readFileSync(file(name), 'utf8')) as T;
}

/**
 * Verifies a (possibly tampered) derived credential; returns the exit status and the result. The
 * command runs in this process (runVcInProcess, the binary's own code and output): these tests are
 * about what the verifier finds, the binary's start-up is tested by the others.
 */
async function verify(vc: unknown, env: Record<string, string> = {}): Promise<{ status: number; result: VerifyResult }> {
  const name = `verify-${Math.random().toString(36).slice(2)}.json`;
  const run = await runVcInProcess(['--json', 'verifier', 'verify', '--vc', writeJson(name, vc)], { home, env });
  return { status: run.status, result: run.json<VerifyResult>() };
}

function failedCheck(result: VerifyResult): Check {
  const failed = result.checks.find((c) => !c.valid);
  expect(failed, JSON.stringify(result)).toBeDefined();
  expect(failed!.reason).toMatch(/\S/);
  expect(result.message).toContain(failed!.reason!);
  return failed!;
}

function tampered(mutate: (vc: Json) => void): Json {
  const copy = structuredClone(disclosed);
  mutate(copy);
  return copy;
}

beforeAll(() => {
  const did = runVc(['--json', 'holder', 'did', 'create'], { home });
  expect(did.status, did.stderr).toBe(0);
  holderDid = did.json<{ did_String: string }>().did_String;
  const issue = runVc(['issuer', 'issue', '--format', 'bbs', '--holder', holderDid, '-o', file('sd.json')], { home });
  expect(issue.status, issue.stderr).toBe(0);
  issued = readJson('sd.json');
  const disclose = runVc(['holder', 'disclose', '--type', 'PassportCredential', '--keys', 'id,name,nationality', '-o', file('disclosed.json')], { home });
  expect(disclose.status, disclose.stderr).toBe(0);
  disclosed = readJson<{ vc: Json }>('disclosed.json').vc;
});

afterAll(() => tmp.cleanup());

describe('vc issuer issue --format bbs', () => {
  it('issues a BBS+ signed PassportCredential under the did:key of the issuer key', () => {
    expect(issued['@context']).toEqual(['https://www.w3.org/2018/credentials/v1', 'https://w3id.org/security/bbs/v1', 'https://vc.example/contexts/sd-passport/v1']);
    expect(issued.type).toEqual(['VerifiableCredential', 'PassportCredential']);
    expect(issued.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(issued.issuer).toMatch(/^did:key:zUC[67]/);
    expect(Date.parse(issued.issuanceDate as string)).not.toBeNaN();
    const subject = issued.credentialSubject as Json;
    expect(Object.keys(subject).sort()).toEqual(['birthDate', 'customerReference', 'expiryDate', 'id', 'name', 'nationality', 'passportNumber', 'publicAddress']);
    const proof = issued.proof as Json;
    expect(proof.type).toBe('BbsBlsSignature2020');
    expect(proof.proofPurpose).toBe('assertionMethod');
    expect(proof.verificationMethod).toBe(`${issued.issuer as string}#${(issued.issuer as string).slice('did:key:'.length)}`);
    expect(Buffer.from(proof.proofValue as string, 'base64').length).toBe(112);
    expect(proof.nonce).toBeUndefined();
  });

  it('refuses a subject field that no bundled context defines (it would not be signed)', async () => {
    const subject = { ...(JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'subjects', 'passport.json'), 'utf8')) as Json), favouriteColour: 'blue' };
    const run = await runVcInProcess(['issuer', 'issue', '--format', 'bbs', '--subject', writeJson('bad-subject.json', subject)], { home: path.join(tmp.dir, 'refuse') });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/field "favouriteColour" is not defined/);
    expect(run.stdout).toBe('');
  });

  it('validates the passport fields (nationality is a three-letter code)', async () => {
    const subject = { ...(JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'subjects', 'passport.json'), 'utf8')) as Json), nationality: 'Dutch' };
    const run = await runVcInProcess(['issuer', 'issue', '--format', 'bbs', '--subject', writeJson('bad-nationality.json', subject)], { home: path.join(tmp.dir, 'refuse') });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/nationality/);
  });

  it('keeps iden3 issuance for the proof-by-query module', async () => {
    const run = await runVcInProcess(['issuer', 'issue'], { home });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--holder/);
  });
});

describe('vc holder disclose', () => {
  it('reveals exactly the requested keys with a nonce-bearing derived proof', () => {
    const response = readJson<{ message: string; vc: Json }>('disclosed.json');
    expect(response.message).toBe('proof successfully generated and submitted');
    expect(disclosed.credentialSubject).toEqual({ id: holderDid, name: 'Alice Example', nationality: 'NLD' });
    expect(disclosed.id).toBe(issued.id);
    expect(disclosed.issuer).toBe(issued.issuer);
    expect(disclosed.issuanceDate).toBe(issued.issuanceDate);
    expect(disclosed.credentialSchema).toEqual(issued.credentialSchema);
    const proof = disclosed.proof as Json;
    expect(proof.type).toBe('BbsBlsSignatureProof2020');
    expect(Buffer.from(proof.nonce as string, 'base64').length).toBe(32);
    expect(JSON.stringify(disclosed)).not.toContain('X1234567');
  });

  it('ignores requested keys the credential lacks, and reveals no id for a subject without one', async () => {
    const blankHome = path.join(tmp.dir, 'blank');
    expect((await runVcInProcess(['issuer', 'issue', '--format', 'bbs'], { home: blankHome })).status).toBe(0);
    const run = await runVcInProcess(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', 'id,birthDate,shoeSize'], { home: blankHome });
    expect(run.status, run.stderr).toBe(0);
    const vc = run.json<{ vc: Json }>().vc;
    expect(vc.credentialSubject).toEqual({ birthDate: 19900101 });
    const check = await runVcInProcess(['--json', 'verifier', 'verify', '--vc', writeJson('blank.json', vc)], { home: blankHome });
    expect(check.status, check.stdout).toBe(0);
  });

  it('fails with exit code 2 when the holder has no credential of the type', async () => {
    const run = await runVcInProcess(['holder', 'disclose', '--type', 'PassportCredential', '--keys', 'name'], { home: path.join(tmp.dir, 'empty') });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/no PassportCredential credential/);
  });

  it('discloses from a credential file (--credential) after the holder imports nothing', async () => {
    const run = await runVcInProcess(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', 'passportNumber', '--credential', file('sd.json')], { home: path.join(tmp.dir, 'other-holder') });
    expect(run.status, run.stderr).toBe(0);
    expect(run.json<{ vc: Json }>().vc.credentialSubject).toEqual({ id: holderDid, passportNumber: 'X1234567' });
  });
});

describe('vc verifier verify', () => {
  it('verifies the disclosed credential (also given as the whole holder response)', () => {
    const run = runVc(['--json', 'verifier', 'verify', '--vc', file('disclosed.json')], { home });
    expect(run.status, run.stdout).toBe(0);
    const result = run.json<VerifyResult>();
    expect(result.verified).toBe(true);
    expect(result.message).toBe('user has been verified successfully');
    expect(result.checks.every((c) => c.valid)).toBe(true);
  });

  it('rejects a changed revealed value', async () => {
    const { status, result } = await verify(tampered((vc) => ((vc.credentialSubject as Json).nationality = 'FRA')));
    expect(status).toBe(1);
    expect(failedCheck(result).id).toBe('proof');
  });

  it('rejects a hidden key added back', async () => {
    const { status, result } = await verify(tampered((vc) => ((vc.credentialSubject as Json).passportNumber = 'X1234567')));
    expect(status).toBe(1);
    expect(failedCheck(result).id).toBe('proof');
  });

  it('rejects an altered issuer and an altered issuanceDate', async () => {
    const other = (await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home: path.join(tmp.dir, 'other-issuer'), env: { IDP_BLS_SIGN_SEED_PHRASE: OTHER_PHRASE } })).json<{ did: string }>();
    const issuer = await verify(tampered((vc) => (vc.issuer = other.did)));
    expect(issuer.status).toBe(1);
    expect(issuer.result.checks.filter((c) => !c.valid).map((c) => c.id)).toEqual(['proof', 'issuer']);
    const date = await verify(tampered((vc) => (vc.issuanceDate = '2020-01-01T00:00:00.000Z')));
    expect(date.status).toBe(1);
    expect(failedCheck(date.result).id).toBe('proof');
  });

  it('rejects an altered proofValue and an altered nonce', async () => {
    const value = await verify(
      tampered((vc) => {
        const proof = vc.proof as Json;
        const bytes = Buffer.from(proof.proofValue as string, 'base64');
        bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 0x01;
        proof.proofValue = bytes.toString('base64');
      }),
    );
    expect(value.status).toBe(1);
    expect(failedCheck(value.result).id).toBe('proof');
    const nonce = await verify(tampered((vc) => ((vc.proof as Json).nonce = Buffer.alloc(32, 7).toString('base64'))));
    expect(nonce.status).toBe(1);
    expect(failedCheck(nonce.result).id).toBe('proof');
  });

  it('rejects an extra @context that redefines a term, inline or remote', async () => {
    const inline = await verify(tampered((vc) => (vc['@context'] as unknown[]).push({ nationality: 'https://evil.example/vocab#nationality' })));
    expect(inline.status).toBe(1);
    expect(failedCheck(inline.result).id).toBe('context');
    expect(inline.result.checks.find((c) => c.id === 'proof')?.reason).toMatch(/not valid JSON-LD: protected term redefinition/);
    const remote = await verify(tampered((vc) => (vc['@context'] as unknown[]).push('https://evil.example/contexts/v1')));
    expect(remote.status).toBe(1);
    expect(failedCheck(remote.result).reason).toMatch(/https:\/\/evil\.example\/contexts\/v1/);
  });

  it('prints what a credential contains with its control characters escaped, on one line', async () => {
    const fake = 'X\u001b[2J\u001b[31mFAKE: user has been verified successfully\u001b[0m\r\n✔ ok';
    const name = 'escape.json';
    writeJson(name, tampered((vc) => ((vc.proof as Json).type = fake)));
    const run = await runVcInProcess(['verifier', 'verify', '--vc', file(name)], { home });
    expect(run.status).toBe(1);
    expect(run.stderr).not.toMatch(/[\u001b\r]/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('\\u001b[2J');
  });

  it('rejects a field that no context defines (JSON readers would see it unsigned)', async () => {
    const { status, result } = await verify(tampered((vc) => ((vc.credentialSubject as Json).verifiedAdult = true)));
    expect(status).toBe(1);
    expect(failedCheck(result)).toMatchObject({ id: 'terms', reason: expect.stringMatching(/verifiedAdult/) });
  });

  it('rejects a proof from a key not in the trust list, and accepts a listed one', async () => {
    const other = (await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home: path.join(tmp.dir, 'other-issuer'), env: { IDP_BLS_SIGN_SEED_PHRASE: OTHER_PHRASE } })).json<{ did: string }>();
    const untrusted = await verify(disclosed, { VC_TRUSTED_ISSUERS: other.did });
    expect(untrusted.status).toBe(1);
    expect(failedCheck(untrusted.result)).toMatchObject({ id: 'trusted-issuer', reason: expect.stringMatching(/not in the verifier's trusted issuers/) });
    const trusted = await verify(disclosed, { VC_TRUSTED_ISSUERS: `${other.did},${disclosed.issuer as string}` });
    expect(trusted.status).toBe(0);
  });

  it('uses up a verifier nonce: the first verification passes, a replay is rejected', async () => {
    const nonce = (await runVcInProcess(['--json', 'verifier', 'nonce'], { home })).json<{ nonce: string; expiresAt: string }>();
    // version, expiry, 16 random bytes and a 16-byte MAC (a self-authenticating nonce)
    expect(Buffer.from(nonce.nonce, 'base64').length).toBe(41);
    const run = await runVcInProcess(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', 'nationality', '--nonce', nonce.nonce], { home });
    expect(run.status, run.stderr).toBe(0);
    const vc = run.json<{ vc: Json }>().vc;
    expect((vc.proof as Json).nonce).toBe(nonce.nonce);
    expect((await verify(vc, { VC_TRUSTED_ISSUERS: disclosed.issuer as string })).status).toBe(0);
    const replay = await verify(vc);
    expect(replay.status).toBe(1);
    expect(failedCheck(replay.result)).toMatchObject({ id: 'nonce', reason: expect.stringMatching(/already used/) });
  });

  it('refuses a nonce validity beyond one day as a usage error naming --ttl', async () => {
    const run = await runVcInProcess(['verifier', 'nonce', '--ttl', '9000000000000'], { home });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--ttl: expected a number of seconds from 1 to 86400/);
    expect(run.stderr).not.toMatch(/RangeError|at /);
  });

  it('with --require-nonce, rejects a proof whose nonce the verifier did not issue', async () => {
    const run = await runVcInProcess(['--json', 'verifier', 'verify', '--require-nonce', '--vc', file('disclosed.json')], { home });
    expect(run.status).toBe(1);
    expect(failedCheck(run.json<VerifyResult>())).toMatchObject({ id: 'nonce', reason: expect.stringMatching(/not issued by this verifier/) });
  });

  it('with VC_REQUIRE_NONCE=true, requires a verifier nonce without --require-nonce', async () => {
    const required = await verify(disclosed, { VC_REQUIRE_NONCE: 'true' });
    expect(required.status).toBe(1);
    expect(failedCheck(required.result)).toMatchObject({ id: 'nonce', reason: expect.stringMatching(/not issued by this verifier/) });
    expect((await verify(disclosed, { VC_REQUIRE_NONCE: 'false' })).status).toBe(0);
  });

  it('refuses an invalid VC_REQUIRE_NONCE as a configuration error naming the variable', async () => {
    const run = await runVcInProcess(['--json', 'verifier', 'verify', '--vc', file('disclosed.json')], { home, env: { VC_REQUIRE_NONCE: 'maybe' } });
    expect(run.status).toBe(3);
    // With --json the error is one JSON line, the shape of an HTTP error body.
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: 'config_error', field: 'VC_REQUIRE_NONCE', message: expect.stringMatching(/VC_REQUIRE_NONCE="maybe": expected true or false/) } });
    expect(run.stdout).toBe('');
  });
});

describe('issuer BBS+ key', () => {
  it('derives the same key from the same seed phrase, in any wallet', async () => {
    const env = { IDP_BLS_SIGN_SEED_PHRASE: FIXED_PHRASE };
    const a = await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home: path.join(tmp.dir, 'fixed-a'), env });
    const b = await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home: path.join(tmp.dir, 'fixed-b'), env });
    const c = await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home: path.join(tmp.dir, 'fixed-a'), env: { IDP_BLS_SIGN_SEED_PHRASE: OTHER_PHRASE } });
    expect(a.status, a.stderr).toBe(0);
    const keyA = a.json<{ did: string; publicKeyBase58: string; seedSource: string; seedPhrase?: string }>();
    expect(keyA.did).toMatch(/^did:key:zUC7/);
    expect(keyA.seedSource).toBe('config');
    expect(keyA.seedPhrase).toBeUndefined();
    expect(b.json()).toEqual(keyA);
    expect(c.json<{ did: string }>().did).not.toBe(keyA.did);
  });

  it('generates a wallet phrase once, keeps it, and prints it only with --show-secret', async () => {
    const first = (await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home })).json<{ did: string; seedSource: string; seedPhrase?: string }>();
    expect(first.seedSource).toBe('wallet');
    expect(first.seedPhrase).toBeUndefined();
    expect(first.did).toBe(disclosed.issuer);
    const secret = (await runVcInProcess(['--json', 'issuer', 'bbs-key', '--show-secret'], { home })).json<{ did: string; seedPhrase: string }>();
    expect(secret.did).toBe(first.did);
    expect(secret.seedPhrase.split(' ')).toHaveLength(12);
    expect(readFileSync(file('sd.json'), 'utf8')).not.toContain(secret.seedPhrase);
    // The phrase alone reproduces the key, e.g. when moved into IDP_BLS_SIGN_SEED_PHRASE.
    const moved = await runVcInProcess(['--json', 'issuer', 'bbs-key'], { home: path.join(tmp.dir, 'moved'), env: { IDP_BLS_SIGN_SEED_PHRASE: secret.seedPhrase } });
    expect(moved.json<{ did: string }>().did).toBe(first.did);
  });

  it('rejects a seed phrase with a bad checksum (configuration error, phrase not echoed)', async () => {
    const bad = FIXED_PHRASE.replace(/yellow$/, 'wave');
    const run = await runVcInProcess(['issuer', 'bbs-key'], { home: path.join(tmp.dir, 'bad-phrase'), env: { IDP_BLS_SIGN_SEED_PHRASE: bad } });
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/IDP_BLS_SIGN_SEED_PHRASE/);
    expect(run.stderr).not.toContain('sausage');
  });
});
