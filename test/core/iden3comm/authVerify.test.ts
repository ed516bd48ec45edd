/**
 * Bad input of `vc verifier auth-request` and `vc verifier verify --jwz` (issue 28): no chain, no
 * proof. Each is one line naming the flag and file and what was expected, exit 2, and nothing is
 * recorded; a token that is a JWZ but does not verify is a refusal instead (test/e2e/iden3commVerifier).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVcInProcess, tempDir, type VcRun } from '../../helpers.js';

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
