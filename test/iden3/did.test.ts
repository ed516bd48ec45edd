/**
 * Spec 2.2 DID records through the built binary: the holder DID shape, idempotence of
 * `vc holder did create` (same identity twice, a new one with --new), the issuer's payload form
 * and the ISSUER_DID check.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runVcAsync, runVcInProcess, tempDir, templateHome } from '../helpers.js';
import type { DidObject } from '../../src/iden3/did.js';

interface HolderRecord {
  message: string;
  did: DidObject;
  did_String: string;
  created: boolean;
}

const tmp = tempDir('vc-pbq-did-');
afterAll(() => tmp.cleanup());

function expectDidObject(did: DidObject): void {
  expect(Object.keys(did).sort()).toEqual(['fragment', 'id', 'idStrings', 'method', 'params', 'path', 'pathSegments', 'query']);
  expect(did.method).toBe('polygonid');
  expect(did.id).toMatch(/^polygon:local:[1-9A-HJ-NP-Za-km-z]{40,}$/);
  expect(did.idStrings).toEqual(did.id.split(':'));
  expect(did.idStrings).toHaveLength(3);
  expect(did.params).toEqual([]);
  expect(did.path).toBe('');
  expect(did.pathSegments).toEqual([]);
  expect(did.query).toBe('');
  expect(did.fragment).toBe('');
}

describe('vc holder did create', () => {
  const home = templateHome(`${tmp.dir}/home`);

  it('returns the spec 2.2 record and the same stored identity when run twice', async () => {
    const first = await runVcInProcess(['--json', 'holder', 'did', 'create'], { home });
    expect(first.status, first.stderr).toBe(0);
    const record = first.json<HolderRecord>();
    expect(Object.keys(record).sort()).toEqual(['created', 'did', 'did_String', 'message']);
    expect(record.message).toBe('did successfully created');
    expect(record.created).toBe(true);
    expectDidObject(record.did);
    expect(record.did_String).toBe(`did:${record.did.method}:${record.did.id}`);

    const second = await runVcInProcess(['--json', 'holder', 'did', 'create'], { home });
    expect(second.status, second.stderr).toBe(0);
    // The spec's message either way; created says the stored identity was returned.
    expect(second.json<HolderRecord>()).toEqual({ ...record, created: false });
  });

  it('--new creates another identity that becomes the default', async () => {
    const before = (await runVcInProcess(['--json', 'holder', 'did', 'create'], { home })).json<HolderRecord>();
    const created = await runVcInProcess(['--json', 'holder', 'did', 'create', '--new'], { home });
    expect(created.status, created.stderr).toBe(0);
    const fresh = created.json<HolderRecord>();
    expect(fresh.created).toBe(true);
    expectDidObject(fresh.did);
    expect(fresh.did_String).not.toBe(before.did_String);
    expect((await runVcInProcess(['--json', 'holder', 'did', 'create'], { home })).json<HolderRecord>().did_String).toBe(fresh.did_String);
  });
});

describe('concurrent vc holder did create', () => {
  it('two processes on a fresh home agree on one default identity (wallet lock)', async () => {
    const home = templateHome(`${tmp.dir}/race-home`);
    const [a, b] = await Promise.all([runVcAsync(['--json', 'holder', 'did', 'create'], { home }), runVcAsync(['--json', 'holder', 'did', 'create'], { home })]);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(a.json<HolderRecord>().did_String).toBe(b.json<HolderRecord>().did_String);
  });
});

describe('vc issuer did create', () => {
  const home = templateHome(`${tmp.dir}/issuer-home`);

  it('returns {payload: DID object}, stable across runs and distinct from the holder', async () => {
    const first = await runVcInProcess(['--json', 'issuer', 'did', 'create'], { home });
    expect(first.status, first.stderr).toBe(0);
    const { payload, did_String } = first.json<{ payload: DidObject; did_String: string }>();
    expectDidObject(payload);
    expect(did_String).toBe(`did:${payload.method}:${payload.id}`);
    expect((await runVcInProcess(['--json', 'issuer', 'did', 'create'], { home })).json<{ payload: DidObject }>().payload).toEqual(payload);
    const holder = (await runVcInProcess(['--json', 'holder', 'did', 'create'], { home })).json<HolderRecord>();
    expect(holder.did.id).not.toBe(payload.id);
  });

  it('ISSUER_DID selects an identity of the wallet and refuses one it does not hold', async () => {
    const holder = (await runVcInProcess(['--json', 'holder', 'did', 'create'], { home })).json<HolderRecord>();
    const selected = await runVcInProcess(['--json', 'issuer', 'did', 'create'], { home, env: { ISSUER_DID: holder.did_String } });
    expect(selected.status, selected.stderr).toBe(0);
    expect(selected.json<{ payload: DidObject }>().payload.id).toBe(holder.did.id);

    const foreign = 'did:polygonid:polygon:local:2qCU58EJgrELNZCDkSU23dQHZsBgAFWLNpNezo1g6b';
    const refused = await runVcInProcess(['--json', 'issuer', 'did', 'create'], { home, env: { ISSUER_DID: foreign } });
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain(`ISSUER_DID=${foreign} is not an identity of the wallet`);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('ISSUER_DID naming the holder\'s Ethereum-based identity (attack-s35)', () => {
  // `vc holder did create --ethereum` puts a keyless identity among the wallet's identities, which
  // ISSUER_DID accepts; it has no BJJ key to sign or publish with. The refusal should name
  // ISSUER_DID and why (exit 3), not blame --subject FILE with "no auth credentials found".
  it('is refused as an issuer, naming ISSUER_DID', async () => {
    const ethHome = templateHome(`${tmp.dir}/eth-issuer`);
    const eth = await runVcInProcess(['--json', 'holder', 'did', 'create', '--ethereum'], { home: ethHome });
    expect(eth.status, eth.stderr).toBe(0);
    const did = eth.json<HolderRecord>().did_String;
    const holder = (await runVcInProcess(['--json', 'holder', 'did', 'create', '--new'], { home: ethHome })).json<HolderRecord>().did_String;
    const issued = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holder, '--proof', 'sig'], { home: ethHome, env: { ISSUER_DID: did } });
    expect(issued.status, issued.stderr).toBe(3);
    expect(issued.stderr).toContain('ISSUER_DID');
    expect(issued.stderr).toMatch(/Ethereum-based identity.*no BJJ key/);
    expect(issued.stderr).not.toMatch(/\n\s+at /);
    // `vc issuer did create` resolves ISSUER_DID the same way: refused too, not handed out as the issuer's DID.
    const issuerDid = await runVcInProcess(['--json', 'issuer', 'did', 'create'], { home: ethHome, env: { ISSUER_DID: did } });
    expect(issuerDid.status, issuerDid.stderr).toBe(3);
    expect(issuerDid.stderr).toContain('ISSUER_DID');
  });
});
