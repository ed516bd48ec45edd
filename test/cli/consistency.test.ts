/**
 * What a user meets in the first hour, made consistent: one flag name per concept (the former
 * names still work, hidden), an unknown option reported as unknown (not as a missing required
 * one), the defaults the help states are the ones that apply, both DID commands give the DID as a
 * string and say whether they created it, and disclose says that nothing was sent. The unknown
 * options through the built binary, the rest in process (runVcInProcess).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonError, runVc, runVcInProcess, tempDir } from '../helpers.js';

const tmp = tempDir('vc-cli-consistency-');
afterAll(() => tmp.cleanup());
let homes = 0;
const freshHome = (): string => path.join(tmp.dir, `home-${++homes}`);

describe('an unknown option', () => {
  it('is reported as unknown before a required option is missing', () => {
    const verify = runVc(['verifier', 'verify', '--bogus', 'x.json'], { home: freshHome() });
    expect(verify.status).toBe(2);
    expect(verify.stderr).toMatch(/^error: unknown option '--bogus'/);
    expect(verify.stderr).not.toMatch(/required option/);
    const disclose = runVc(['--json', 'holder', 'disclose', '--keys', 'name', '--typo', 'x'], { home: freshHome() });
    expect(disclose.status).toBe(2);
    expect(jsonError(disclose.stderr)).toMatchObject({ code: 'invalid_input', field: '--typo', message: expect.stringMatching(/^unknown option '--typo'/) });
  });

  it('still gives the help with --help, and the missing required option when nothing is unknown', () => {
    const help = runVc(['verifier', 'verify', '--bogus', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: vc verifier verify/);
    const missing = runVc(['verifier', 'verify'], { home: freshHome() });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/required option '--credential <file>' not specified/);
  });
});

describe('one flag name per concept, the former ones hidden and still accepted', () => {
  it('verifier verify reads --credential, as every command that reads a credential; --vc still works', async () => {
    const missing = path.join(tmp.dir, 'missing.json');
    const credential = await runVcInProcess(['--json', 'verifier', 'verify', '--credential', missing], { home: freshHome() });
    expect(credential.status).toBe(2);
    expect(jsonError(credential.stderr)).toMatchObject({ field: '--credential', message: expect.stringMatching(/^--credential: cannot read .*missing\.json/) });
    // The former name is read as --credential, and errors name it as typed (both spellings).
    for (const args of [['--vc', missing], [`--vc=${missing}`]]) {
      const vc = await runVcInProcess(['--json', 'verifier', 'verify', ...args], { home: freshHome() });
      expect(vc.status, args.join(' ')).toBe(2);
      expect(jsonError(vc.stderr), args.join(' ')).toMatchObject({ field: '--vc', message: expect.stringMatching(/^--vc: cannot read .*missing\.json/) });
    }
    const help = await runVcInProcess(['verifier', 'verify', '--help']);
    expect(help.stdout).toMatch(/--credential <file>/);
    expect(help.stdout).not.toMatch(/--vc\b/);
  });

  it('a file is --context-file (issuer issue), a URL is --context-url (verifier request); --context still works for both', async () => {
    const issueHelp = (await runVcInProcess(['issuer', 'issue', '--help'])).stdout;
    expect(issueHelp).toMatch(/--context-file <file>/);
    expect(issueHelp).not.toMatch(/--context </);
    const requestHelp = (await runVcInProcess(['verifier', 'request', '--help'])).stdout;
    expect(requestHelp).toMatch(/--context-url <url>/);
    expect(requestHelp).not.toMatch(/--context </);

    const file = await runVcInProcess(['--json', 'issuer', 'issue', '--format', 'bbs', '--context-file', '/dev/null'], { home: freshHome() });
    expect(jsonError(file.stderr)).toEqual({ code: 'invalid_input', message: '--context-file does not apply to --format bbs', field: '--context-file' });
    const former = await runVcInProcess(['--json', 'issuer', 'issue', '--format', 'bbs', '--context', '/dev/null'], { home: freshHome() });
    expect(jsonError(former.stderr)).toEqual({ code: 'invalid_input', message: '--context does not apply to --format bbs', field: '--context' });

    // The URL is taken (and refused: vc resolves contexts offline only), whichever name gives it.
    for (const flag of ['--context-url', '--context']) {
      const run = await runVcInProcess(['--json', 'verifier', 'request', '--type', 'Nope', flag, 'https://contexts.example/nope.jsonld'], { home: freshHome() });
      expect(run.status, flag).toBe(2);
      expect(jsonError(run.stderr).message, flag).toMatch(/unknown JSON-LD context https:\/\/contexts\.example\/nope\.jsonld: add it with `vc documents add https:\/\/contexts\.example\/nope\.jsonld FILE`/);
    }
  });

  it('issuer revoke takes --revocation-nonce (--nonce is the verifier nonce elsewhere); --nonce still works', async () => {
    for (const flag of ['--revocation-nonce', '--nonce']) {
      const run = await runVcInProcess(['issuer', 'revoke', flag, 'abc'], { home: freshHome() });
      expect(run.status, flag).toBe(2);
      expect(run.stderr, flag).toMatch(/--revocation-nonce expects an integer, got "abc"/);
    }
    expect((await runVcInProcess(['issuer', 'revoke', '--help'])).stdout).toMatch(/--revocation-nonce <n>/);
  });

  it('keeps a value that looks like a former name as the value', async () => {
    const run = await runVcInProcess(['--json', 'holder', 'disclose', '--type', 'PassportCredential', '--keys', 'name', '--nonce', '--vc'], { home: freshHome() });
    expect(run.status).toBe(2);
    // --vc was the nonce, not an option: the holder simply has no credential to disclose from.
    expect(jsonError(run.stderr)).toMatchObject({ code: 'not_found', field: '--type' });
  });
});

describe('the defaults the help states', () => {
  it('--value defaults to 20010101 for birthDate, as the help says; another field needs it', async () => {
    expect((await runVcInProcess(['verifier', 'request', '--help'])).stdout).toMatch(/default 20010101 for the\s+field birthDate/);
    // --field birthDate alone passes the value check (then the unknown type is refused, before any chain).
    const birthDate = await runVcInProcess(['--json', 'verifier', 'request', '--field', 'birthDate', '--type', 'Nope'], { home: freshHome() });
    expect(birthDate.status).toBe(2);
    expect(jsonError(birthDate.stderr)).toMatchObject({ field: '--context-url', message: expect.stringMatching(/no JSON-LD context known for type Nope/) });
    const other = await runVcInProcess(['--json', 'verifier', 'request', '--field', 'nationality'], { home: freshHome() });
    expect(other.status).toBe(2);
    expect(jsonError(other.stderr)).toEqual({ code: 'invalid_input', field: '--value', message: '--value is required with --field nationality (the default 20010101 is for birthDate)' });
  });
});

describe('the DID commands', () => {
  it('issuer did create gives did_String beside the spec payload, and says whether it created the DID', async () => {
    const home = freshHome();
    const first = await runVcInProcess(['issuer', 'did', 'create'], { home });
    expect(first.status, first.stderr).toBe(0);
    const record = first.json<{ payload: { method: string; id: string }; did_String: string; created: boolean }>();
    expect(record.did_String).toBe(`did:${record.payload.method}:${record.payload.id}`);
    expect(record.created).toBe(true);
    expect(first.stderr).toContain(`created the issuer DID ${record.did_String}`);
    const second = await runVcInProcess(['issuer', 'did', 'create'], { home });
    expect(second.json()).toEqual({ ...record, created: false });
    expect(second.stderr).toContain(`the issuer DID ${record.did_String} (existing, reused)`);
  });

  it('holder did create keeps the spec message and says on stderr (and in created) whether it created or reused the DID', async () => {
    const home = freshHome();
    const first = await runVcInProcess(['holder', 'did', 'create'], { home });
    expect(first.status, first.stderr).toBe(0);
    const record = first.json<{ message: string; did_String: string; created: boolean }>();
    expect(record).toMatchObject({ message: 'did successfully created', created: true });
    expect(first.stderr).toContain(`created the holder DID ${record.did_String}`);
    const second = await runVcInProcess(['holder', 'did', 'create'], { home });
    expect(second.json()).toEqual({ ...record, created: false });
    expect(second.stderr).toContain(`the holder DID ${record.did_String} (existing, reused`);
    expect(second.stderr).not.toMatch(/created the holder DID/);
  });
});

describe('holder disclose', () => {
  it('says on the terminal that nothing was sent; the result keeps the spec message', async () => {
    const home = freshHome();
    const issued = await runVcInProcess(['--json', 'issuer', 'issue', '--format', 'bbs'], { home });
    expect(issued.status, issued.stderr).toBe(0);
    const run = await runVcInProcess(['holder', 'disclose', '--type', 'PassportCredential', '--keys', 'name'], { home });
    expect(run.status, run.stderr).toBe(0);
    expect(run.json<{ message: string }>().message).toBe('proof successfully generated and submitted');
    expect(run.stderr).toMatch(/derived a credential revealing .*nothing was sent/);
  });
});
