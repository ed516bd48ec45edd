/**
 * Whole-home backups from the command line (the export through the built binary, the rest in
 * process: runVcInProcess), without a chain (the chain's snapshot is restored in
 * test/e2e/holderStore.test.ts): `vc wallet export -o FILE` writes one 0600 file and prints no
 * secret; `vc wallet import FILE` restores a home that is the same wallet (the holder's DID and
 * keys, the issuer's key, the held credentials, which still disclose), refuses a home that holds
 * anything unless --force, and refuses a damaged or foreign file before writing anything.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { jsonError, runVc, runVcInProcess, tempDir, type VcRun } from '../helpers.js';

type Json = Record<string, unknown>;
const tmp = tempDir('vc-wallet-backup-');
const home = (name: string): string => path.join(tmp.dir, name);
const file = (name: string): string => path.join(tmp.dir, name);
const source = home('source');
let holderDid: string;
let seedPhrase: string;
let privateKeys: string[];
let held: Json[];
let exported: VcRun;

function vc(args: string[], at: string): Promise<VcRun> {
  return runVcInProcess(args, { home: at });
}

beforeAll(async () => {
  const did = await vc(['--json', 'holder', 'did', 'create'], source);
  expect(did.status, did.stderr).toBe(0);
  holderDid = did.json<{ did_String: string }>().did_String;
  expect((await vc(['issuer', 'issue', '--format', 'bbs', '--holder', holderDid, '-o', file('sd.json')], source)).status).toBe(0);
  expect((await vc(['issuer', 'issue', '--format', 'bbs-2023', '--holder', holderDid], source)).status).toBe(0);
  // The secrets the backup holds, read only to show they are never printed.
  const key = await vc(['--json', 'issuer', 'bbs-key', '--show-secret'], source);
  seedPhrase = key.json<{ seedPhrase: string }>().seedPhrase;
  const ctx = new Context({ config: parseConfig({}, source) });
  privateKeys = ctx.store.list<string>('iden3.keys').map((record) => record.value);
  void ctx.close();
  expect(privateKeys.length).toBeGreaterThan(0);
  held = (await vc(['--json', 'holder', 'credentials', 'list'], source)).json<{ credentials: Json[] }>().credentials;
  expect(held).toHaveLength(2);
  // The export through the built binary, as a user runs it; every other command in process.
  exported = runVc(['wallet', 'export', '-o', file('wallet.backup')], { home: source });
}, 120_000);

afterAll(() => tmp.cleanup());

describe('vc wallet export', () => {
  it('writes one file, mode 0600, and says what it holds without printing any secret', () => {
    expect(exported.status, exported.stderr).toBe(0);
    expect(statSync(file('wallet.backup')).mode & 0o777).toBe(0o600);
    const result = exported.json<Json>();
    expect(result).toMatchObject({ file: file('wallet.backup'), holderDid, identities: 1, privateKeys: 1, issuerSeedPhrase: true, heldCredentials: 2, chains: [] });
    const printed = `${exported.stdout}${exported.stderr}`;
    expect(printed).not.toContain(seedPhrase);
    for (const key of privateKeys) expect(printed).not.toContain(key);
    expect(exported.stderr).toMatch(/wrote .*wallet\.backup \(\d+ bytes\): 1 identity, 1 private key, the issuer's seed phrase, 2 held credentials/);
    expect(exported.stderr).toMatch(/holds the wallet's private keys in clear/);
  });

  it('refuses a file inside the wallet home, and a directory that does not exist, writing nothing', async () => {
    const inside = await vc(['--json', 'wallet', 'export', '-o', path.join(source, 'backup')], source);
    expect(inside.status).toBe(2);
    expect(jsonError(inside.stderr)).toMatchObject({ code: 'invalid_input', field: '--output', message: expect.stringMatching(/is inside the wallet home/) as string });
    const nowhere = await vc(['--json', 'wallet', 'export', '-o', path.join(tmp.dir, 'no', 'such', 'dir', 'backup')], source);
    expect(nowhere.status).toBe(2);
    expect(jsonError(nowhere.stderr).message).toMatch(/^-o: cannot write .*no such directory/);
    expect((await vc(['wallet', 'export'], source)).stderr).toMatch(/required option '-o, --output <file>' not specified/);
    // A FIFO (or any file that is not a regular one) is refused at once, not written into (which
    // would block until someone reads it).
    const fifo = path.join(tmp.dir, 'backup.fifo');
    execFileSync('mkfifo', [fifo]);
    const toFifo = await vc(['--json', 'wallet', 'export', '-o', fifo], source);
    expect(toFifo.status).toBe(2);
    expect(jsonError(toFifo.stderr).message).toMatch(/backup\.fifo is not a regular file/);
  });
});

describe('vc wallet import', () => {
  it('restores an empty home into the same wallet: DID, keys, issuer key, held credentials that still disclose', async () => {
    const restored = home('restored');
    const run = await vc(['wallet', 'import', file('wallet.backup')], restored);
    expect(run.status, run.stderr).toBe(0);
    expect(run.json<Json>()).toMatchObject({ home: restored, replaced: false, holderDid, identities: 1, privateKeys: 1, issuerSeedPhrase: true, heldCredentials: 2 });
    expect(`${run.stdout}${run.stderr}`).not.toContain(seedPhrase);
    expect(run.stderr).toMatch(/restored into .*restored: 1 identity, 1 private key, the issuer's seed phrase, 2 held credentials/);

    expect((await vc(['--json', 'holder', 'credentials', 'list'], restored)).json<{ credentials: Json[] }>().credentials).toEqual(held);
    expect((await vc(['--json', 'holder', 'did', 'create'], restored)).json<Json>()).toMatchObject({ did_String: holderDid, created: false });
    const key = async (at: string): Promise<unknown> => (await vc(['--json', 'issuer', 'bbs-key'], at)).json<{ did: string }>().did;
    expect(await key(restored)).toBe(await key(source));
    // The restored holder discloses what it holds, and the disclosure verifies.
    const disclose = await vc(['--json', 'holder', 'disclose', '--id', String(held[1]!.id), '--keys', 'id,name', '-o', file('restored-disclosed.json')], restored);
    expect(disclose.status, disclose.stderr).toBe(0);
    const verify = await vc(['--json', 'verifier', 'verify', '--credential', file('restored-disclosed.json')], restored);
    expect(verify.status, verify.stdout).toBe(0);
    expect((JSON.parse(readFileSync(file('restored-disclosed.json'), 'utf8')) as { vc: { credentialSubject: Json } }).vc.credentialSubject).toEqual({ id: holderDid, name: 'Alice Example' });
  });

  it('refuses a home that holds anything unless --force, then replaces it whole', async () => {
    const other = home('other');
    expect((await vc(['issuer', 'issue', '--format', 'bbs'], other)).status).toBe(0);
    const refused = await vc(['--json', 'wallet', 'import', file('wallet.backup')], other);
    expect(refused.status).toBe(2);
    expect(jsonError(refused.stderr)).toMatchObject({ code: 'conflict', field: '--force', message: expect.stringMatching(/the wallet home .*other is not empty \(\d+ records in wallet\.db\): .*give --force/) as string });
    const before = (await vc(['--json', 'holder', 'credentials', 'list'], other)).json<{ credentials: Json[] }>().credentials;
    expect(before).toHaveLength(1);
    const forced = await vc(['--json', 'wallet', 'import', file('wallet.backup'), '--force'], other);
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.json<Json>()).toMatchObject({ replaced: true, holderDid });
    // Replaced, not merged: the credential the home had is gone, the backup's are there.
    expect((await vc(['--json', 'holder', 'credentials', 'list'], other)).json<{ credentials: Json[] }>().credentials).toEqual(held);
  });

  it('refuses a damaged, cut or foreign file before writing anything', async () => {
    const target = home('untouched');
    const whole = readFileSync(file('wallet.backup'));
    writeFileSync(file('cut.backup'), whole.subarray(0, Math.floor(whole.length / 2)));
    const flipped = Buffer.from(whole);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    writeFileSync(file('flipped.backup'), flipped);
    writeFileSync(file('plain.json'), '{"format": "vc-wallet-backup"}');
    writeFileSync(file('foreign.backup'), gzipSync(JSON.stringify({ format: 'something-else', version: 1 })));
    writeFileSync(file('future.backup'), gzipSync(JSON.stringify({ format: 'vc-wallet-backup', version: 9 })));
    const badRecords = [['ns', 'key', '{not json', 1]];
    const digestOf = (records: unknown[]): string => createHash('sha256').update(JSON.stringify([records, []])).digest('hex');
    writeFileSync(file('bad-record.backup'), gzipSync(JSON.stringify({ format: 'vc-wallet-backup', version: 1, createdAt: 'x', vcVersion: '0', records: badRecords, chains: [], digest: digestOf(badRecords) })));
    // A record changed after the export, the file re-compressed (gzip's own check passes): refused by the digest.
    const good = JSON.parse(gunzipSync(readFileSync(file('wallet.backup'))).toString('utf8')) as { records: Array<[string, string, string, number]> };
    good.records[0]![2] = JSON.stringify({ changed: true });
    writeFileSync(file('changed.backup'), gzipSync(JSON.stringify(good)));
    const cases: Array<[string, RegExp]> = [
      ['cut.backup', /is not a vc wallet backup \(its compressed data is damaged: /],
      ['flipped.backup', /is not a vc wallet backup \(its compressed data is damaged: /],
      ['plain.json', /is not a vc wallet backup \(not gzip data\); `vc wallet export -o FILE` writes one/],
      ['foreign.backup', /is not a vc wallet backup \(no "format": "vc-wallet-backup"\)/],
      ['future.backup', /is a wallet backup of version 9; this vc reads version 1/],
      ['bad-record.backup', /record 0 \(ns\/key\) is not JSON/],
      ['changed.backup', /its records do not match its digest: the file was changed after it was written/],
      ['missing.backup', /cannot read .*missing\.backup: no such file/],
    ];
    for (const [name, message] of cases) {
      const run = await vc(['--json', 'wallet', 'import', file(name)], target);
      expect(run.status, name).toBe(2);
      expect(jsonError(run.stderr), name).toMatchObject({ code: 'invalid_input', field: 'FILE', message: expect.stringMatching(message) as string });
    }
    // Nothing was written: the home is still empty, and takes the good backup without --force.
    expect((await vc(['wallet', 'import', file('wallet.backup')], target)).status).toBe(0);
  });
});
