/**
 * The command line of the common suites and of presentations, in process (runVcInProcess; the
 * holder's did:key and one usage error through the built binary): issue
 * with --format eddsa-rdfc-2022 / ecdsa-rdfc-2019 to the holder's did:key, present several files
 * with a verifier's challenge, verify with --vp (once: the challenge is used up), verify a bare
 * credential; and mistakes are one line naming the flag or the file, exit 2.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVc, runVcInProcess, tempDir } from '../helpers.js';

const tmp = tempDir('vc-vp-cli-');
const home = path.join(tmp.dir, 'home');
const file = (name: string): string => path.join(tmp.dir, name);
let holder: string;

beforeAll(async () => {
  const key = await runVcInProcess(['--json', 'holder', 'did-key'], { home });
  expect(key.status, key.stderr).toBe(0);
  holder = key.json<{ did: string }>().did;
});
afterAll(() => tmp.cleanup());

describe('issue, present, verify', () => {
  it('two suites issued to the holder, one presentation of both, verified once; a bare credential verifies too', async () => {
    const eddsa = await runVcInProcess(['issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--holder', holder, '-o', file('eddsa.json')], { home });
    expect(eddsa.status, eddsa.stderr).toBe(0);
    expect(eddsa.stderr).toMatch(/issued PassportCredential \(eddsa-rdfc-2022\) by did:key:z6Mk.*give it to the holder \(vc holder present\)/);
    const ecdsa = await runVcInProcess(['issuer', 'issue', '--format', 'ecdsa-rdfc-2019', '--curve', 'P-384', '--holder', holder, '-o', file('ecdsa.json')], { home });
    expect(ecdsa.status, ecdsa.stderr).toBe(0);

    const challenge = (await runVcInProcess(['--json', 'verifier', 'nonce'], { home })).json<{ nonce: string }>().nonce;
    const present = await runVcInProcess(['holder', 'present', '--credential', `${file('eddsa.json')},${file('ecdsa.json')}`, '--challenge', challenge, '--domain', 'verifier.example', '-o', file('vp.json')], { home });
    expect(present.status, present.stderr).toBe(0);
    expect(present.stderr).toContain(`signed a presentation of 2 credentials as ${holder}; nothing was sent`);

    const verify = await runVcInProcess(['verifier', 'verify', '--vp', file('vp.json'), '--challenge', challenge, '--domain', 'verifier.example'], { home });
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.json<{ verified: boolean; credentials: unknown[] }>()).toMatchObject({ verified: true, credentials: [{ index: 0, verified: true }, { index: 1, verified: true }] });
    const again = await runVcInProcess(['verifier', 'verify', '--vp', file('vp.json'), '--challenge', challenge, '--domain', 'verifier.example'], { home });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/challenge: nonce already used .*\(replayed proof\)/);
    const elsewhere = await runVcInProcess(['verifier', 'verify', '--vp', file('vp.json'), '--challenge', challenge, '--domain', 'other.example'], { home });
    expect(elsewhere.status).toBe(1);
    expect(elsewhere.stderr).toMatch(/signed for the domain "verifier.example", not "other.example"/);

    const bare = await runVcInProcess(['verifier', 'verify', '--credential', file('ecdsa.json')], { home });
    expect(bare.status, bare.stderr).toBe(0);
    expect(bare.json<{ verified: boolean }>().verified).toBe(true);
  });
});

describe('mistakes: one line naming the flag or the file, exit 2', () => {
  it('flags of one use given to the other, and none at all', async () => {
    const challengeAlone = await runVcInProcess(['--json', 'verifier', 'verify', '--credential', file('x.json'), '--challenge', 'c'], { home });
    expect(challengeAlone.status).toBe(2);
    expect(jsonError(challengeAlone.stderr)).toMatchObject({ field: '--challenge', message: '--challenge applies only with --vp' });
    const both = await runVcInProcess(['--json', 'verifier', 'verify', '--vp', file('x.json'), '--credential', file('x.json'), '--challenge', 'c', '--domain', 'd'], { home });
    expect(jsonError(both.stderr)).toMatchObject({ field: '--credential', message: '--credential does not apply to --vp' });
    const nothing = runVc(['verifier', 'verify'], { home });
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toMatch(/required option '--credential <file>' not specified \(or --vp or --jwz for the other uses\)/);
    const noDomain = await runVcInProcess(['--json', 'verifier', 'verify', '--vp', file('x.json'), '--challenge', 'c'], { home });
    expect(noDomain.status).toBe(2);
    expect(jsonError(noDomain.stderr)).toMatchObject({ field: '--domain', message: "required option '--domain <domain>' not specified" });
    const curve = await runVcInProcess(['--json', 'issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--curve', 'P-384'], { home });
    expect(jsonError(curve.stderr)).toMatchObject({ field: '--curve', message: '--curve does not apply to --format eddsa-rdfc-2022' });
  });

  it('a missing or malformed file among several is named; a credential of another subject names its file', async () => {
    const missing = await runVcInProcess(['--json', 'holder', 'present', '--credential', `${file('eddsa.json')},${file('missing.json')}`, '--challenge', 'c', '--domain', 'd'], { home });
    expect(missing.status).toBe(2);
    expect(jsonError(missing.stderr)).toMatchObject({ field: '--credential', message: expect.stringMatching(/^--credential: cannot read .*missing\.json: no such file/) });
    writeFileSync(file('broken.json'), '{"type": ');
    const broken = await runVcInProcess(['--json', 'holder', 'present', '--credential', file('broken.json'), '--challenge', 'c', '--domain', 'd'], { home });
    expect(broken.status).toBe(2);
    expect(jsonError(broken.stderr).message).toMatch(/broken\.json/);
    const other = await runVcInProcess(['issuer', 'issue', '--format', 'eddsa-rdfc-2022', '--holder', 'did:example:carol', '-o', file('carol.json')], { home });
    expect(other.status, other.stderr).toBe(0);
    const refused = await runVcInProcess(['--json', 'holder', 'present', '--credential', `${file('eddsa.json')},${file('carol.json')}`, '--challenge', 'c', '--domain', 'd', '-o', file('never.json')], { home });
    expect(refused.status).toBe(2);
    expect(jsonError(refused.stderr).message).toBe(
      `--credential ${file('carol.json')}: its subject is did:example:carol, not this holder (${holder}): a verifier would refuse the holder binding; have it issued to this did:key (vc holder did-key)`,
    );
    const keyType = await runVcInProcess(['holder', 'did-key', '--key-type', 'RSA'], { home });
    expect(keyType.status).toBe(2);
    expect(keyType.stderr).toMatch(/--key-type/);
  });
});
