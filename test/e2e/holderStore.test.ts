/**
 * The holder's store with iden3 credentials, and a whole-home backup restored, on the embedded
 * chain through the binary. One batch issuance (one state transition) gives a credential for this
 * wallet's holder and one for a holder of another wallet: the holder keeps its own only. Its
 * credential is shown, deleted, imported again (its BJJ signature and Merkle proof checked against
 * the issuer's state on chain, its revocation status read); a changed one and someone else's are
 * refused with the reason. Then the home is exported and restored elsewhere: the restored home
 * holds the same credentials, checks the iden3 one against its own chain started from the
 * restored snapshot, and proves it on chain by the request's type alone (the one real proof here).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVc, runVcInProcess, tempDir, templateHome, type VcRun } from '../helpers.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const tmp = tempDir('vc-holder-store-e2e-');
const home = templateHome(path.join(tmp.dir, 'home'));
const restored = path.join(tmp.dir, 'restored');
const file = (name: string): string => path.join(tmp.dir, name);
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
let holderDid: string;
let otherDid: string;
let own: Json;
let theirs: Json;

/** In this process (no node start-up): these tests are about what the commands do. */
function vc(args: string[], at = home): Promise<VcRun> {
  return runVcInProcess(['--json', ...args], { home: at, env });
}

function ok(run: VcRun, what: string): VcRun {
  expect(run.status, `${what}: ${run.stderr}`).toBe(0);
  return run;
}

function writeJson(name: string, value: unknown): string {
  writeFileSync(file(name), JSON.stringify(value, null, 2));
  return file(name);
}

const heldIds = async (at = home): Promise<string[]> => ok(await vc(['holder', 'credentials', 'list', '--kind', 'iden3'], at), 'list').json<{ credentials: Json[] }>().credentials.map((entry) => entry.id as string);

beforeAll(async () => {
  holderDid = ok(await vc(['holder', 'did', 'create']), 'holder did').json<{ did_String: string }>().did_String;
  // A holder of another wallet (no chain needed to make a DID).
  otherDid = ok(await vc(['holder', 'did', 'create'], path.join(tmp.dir, 'other-wallet')), 'other did').json<{ did_String: string }>().did_String;
  ok(await vc(['issuer', 'did', 'create']), 'issuer did');
  writeFileSync(file('holders.jsonl'), `${JSON.stringify({ did: holderDid })}\n${JSON.stringify({ did: otherDid })}\n`);
  ok(await vc(['issuer', 'issue', '--batch', file('holders.jsonl'), '-o', file('issued.jsonl')]), 'batch');
  [own, theirs] = readFileSync(file('issued.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { credential: Json }).credential) as [Json, Json];
  writeJson('own.json', own);
  // Registered before the backup, so the restored chain has it too.
  ok(await vc(['verifier', 'request', '-o', file('request.json')]), 'request');
}, LONG);

afterAll(() => {
  for (const at of [home, restored]) runVc(['chain', 'down'], { home: at, env });
  tmp.cleanup();
});

describe('iden3 credentials in the holder store', () => {
  it('an issuance of this wallet keeps the credential for its holder, never the one for another holder', async () => {
    expect(await heldIds()).toEqual([own.id]);
    const entry = ok(await vc(['holder', 'credentials', 'show', String(own.id)]), 'show').json<Json>();
    expect(entry).toMatchObject({ id: own.id, kind: 'iden3', type: 'PassportCredential', subject: holderDid, source: 'issued', credential: own });
    expect(await heldIds()).not.toContain(theirs.id);
  });

  it('deleted, then imported again: its signature and Merkle proof checked against the issuer state on chain', async () => {
    expect(ok(await vc(['holder', 'credentials', 'delete', String(own.id)]), 'delete').json<Json>()).toMatchObject({ deleted: true, id: own.id, kind: 'iden3' });
    expect(await heldIds()).toEqual([]);
    // The issuer's whole answer ({message, credential}) is taken as the credential.
    writeJson('own-response.json', { message: 'credential issued', credential: own });
    const imported = ok(await vc(['holder', 'credentials', 'import', file('own-response.json')]), 'import').json<{ imported: Json[] }>().imported;
    expect(imported).toEqual([expect.objectContaining({ id: own.id, kind: 'iden3', subject: holderDid, source: 'imported', alreadyHeld: false })]);
    expect(ok(await vc(['holder', 'credentials', 'export', String(own.id)]), 'export').json()).toEqual(own);
  });

  it('refuses, with the reason, a changed credential, a proof against another state, and a credential for someone else', async () => {
    const changed = { ...own, credentialSubject: { ...(own.credentialSubject as Json), birthDate: 19700101 } };
    const proofs = own.proof as Json[];
    const mtpIndex = proofs.findIndex((proof) => proof.type === 'Iden3SparseMerkleTreeProof');
    const otherRoot = structuredClone(own);
    const state = ((otherRoot.proof as Json[])[mtpIndex]!.issuerData as Json).state as Json;
    state.claimsTreeRoot = '0'.repeat(63) + '1';
    const cases: Array<[string, Json, RegExp]> = [
      ['changed.json', changed, /^changed\.json: field proof\[0\]: BJJSignature2021: its coreClaim is not the claim of the credential's content/],
      ['other-root.json', otherRoot, new RegExp(`^other-root\\.json: field proof\\[${mtpIndex}\\]: Iden3SparseMerkleTreeProof: its Merkle proof does not put the claim in the issuer's claims tree`)],
      ['theirs.json', theirs, new RegExp(`^theirs\\.json: field credentialSubject\\.id: the credential is for ${otherDid}, not for the holder of this wallet, whose DID is ${holderDid}`)],
    ];
    for (const [name, credential, message] of cases) {
      const run = await vc(['holder', 'credentials', 'import', writeJson(name, credential)]);
      expect(run.status, name).toBe(2);
      const error = jsonError(run.stderr);
      expect(error.code, name).toBe('unprocessable');
      expect(error.message.replace(`${tmp.dir}/`, ''), name).toMatch(message);
    }
    expect(await heldIds()).toEqual([own.id]);
  });
});

describe('a whole-home backup', () => {
  it('restores a home that holds the same credentials, checks them against its own restored chain, and proves by the request\'s type', async () => {
    const exported = ok(await vc(['wallet', 'export', '-o', file('home.backup')]), 'export').json<Json>();
    expect(exported).toMatchObject({ holderDid, heldCredentials: 1, chains: [expect.objectContaining({ chainId: 152 })] });
    const result = ok(await vc(['wallet', 'import', file('home.backup')], restored), 'import').json<Json>();
    expect(result).toMatchObject({ home: restored, replaced: false, holderDid, chains: exported.chains });
    expect(await heldIds(restored)).toEqual([own.id]);

    // The restored home's chain (started from the restored snapshot) knows the issuer's state:
    // the credential passes an import's checks there again.
    ok(await vc(['holder', 'credentials', 'delete', String(own.id)], restored), 'delete in the restored home');
    const imported = ok(await vc(['holder', 'credentials', 'import', file('own.json')], restored), 'import in the restored home').json<{ imported: Json[] }>().imported;
    expect(imported[0]).toMatchObject({ id: own.id, kind: 'iden3', alreadyHeld: false });

    // Neither --credential nor --id: the newest held credential the request can use, proved on chain with the restored keys.
    const request = JSON.parse(readFileSync(file('request.json'), 'utf8')) as { id: number };
    const proved = ok(await vc(['holder', 'prove-submit', '--request', file('request.json')], restored), 'prove-submit').json<Json>();
    expect(proved[String(request.id)]).toBe(true);
  }, LONG);
});
