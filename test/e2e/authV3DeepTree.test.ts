/**
 * A holder whose claims tree got one more leaf sharing the first 12 bits of its auth claim's path
 * (as many claims make happen; its auth claim's proof: 13 siblings), its state published on chain
 * by an issuance of its own (ISSUER_DID, one state transition), holding a signature credential of
 * another issuer (found by an attack round). `--auth authV3-8-32` for it: its tree is the wallet's
 * own, so the depth is known before any proof; vc refuses before proving, naming the depth and the
 * way out (`--auth authV3`, 40 levels), instead of proving the query and then failing in the auth
 * proof ("could not be made"). That such a holder proves V3 and MTP queries at all is
 * publishedHolder.test.ts.
 */
import { DID } from '@iden3/js-iden3-core';
import { MerkleTreeType, ProofType } from '@0xpolygonid/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { getIden3 } from '../../src/iden3/wallet.js';
import { jsonError, runVcInProcess, templateWallet } from '../helpers.js';

type Json = Record<string, unknown>;

const LONG = 900_000;
const wallet = templateWallet('vc-authv3-deep-');
const { tmp, home, env, file, vc } = wallet;
const ok = async (args: string[]): Promise<Json> => {
  const run = wallet.ok(await vc(args));
  return run.stdout.trim() === '' ? {} : run.json<Json>();
};

let did: string;
let depth: number;

beforeAll(async () => {
  did = String((await ok(['holder', 'did', 'create'])).did_String);
  const issuerDid = String((await ok(['issuer', 'did', 'create'])).did_String);
  const ctx = new Context({ config: parseConfig({}, home) });
  try {
    const iden3 = await getIden3(ctx);
    const { authCredential } = await iden3.identityWallet.getActualAuthCredential(DID.parse(did));
    const { hi, hv } = authCredential.getCoreClaimFromProof(ProofType.Iden3SparseMerkleTreeProof)!.hiHv();
    // A leaf whose path shares the auth claim's first 12 bits: the auth claim's proof gets 13 siblings.
    await iden3.dataStorage.mt.addToMerkleTree(did, MerkleTreeType.Claims, hi ^ (1n << 12n), hv);
    const tree = await iden3.dataStorage.mt.getMerkleTreeByIdentifierAndType(did, MerkleTreeType.Claims);
    depth = (await tree.generateProof(hi, await tree.root())).proof.allSiblings().length;
  } finally {
    await ctx.close();
  }
  // The holder's state published with the new leaf: an issuance by the holder's identity (ISSUER_DID, one state transition).
  const published = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', issuerDid], { home, env: { ...env, ISSUER_DID: did } });
  expect(published.status, published.stderr).toBe(0);
  // The holder's credential, signed by the issuer (no state transition).
  await ok(['issuer', 'issue', '--proof', 'sig', '--holder', did, '-o', file('signed.json')]);
}, LONG);

const request = async (name: string): Promise<string> => {
  await ok(['verifier', 'request', '--circuit', 'credentialAtomicQueryV3OnChain', '--op', '$between', '--proof-type', 'sig', '--value', '19800101,19991231', '-o', file(name)]);
  return file(name);
};

afterAll(async () => {
  await vc(['chain', 'down']);
  tmp.cleanup();
});

describe('a holder whose own state is published (its identity issued a credential)', () => {
  it('with an auth claim deeper than authV3-8-32 allows, --auth authV3-8-32 is refused before proving, naming the depth and --auth authV3', async () => {
    expect(depth).toBeGreaterThan(8);
    const run = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', await request('deep.json'), '--auth', 'authV3-8-32']);
    expect(run.status).not.toBe(0);
    const { message } = jsonError(run.stderr);
    expect(message).toMatch(/authV3-8-32/);
    expect(message).toMatch(/\b8\b/);
    expect(message).toMatch(/--auth authV3\b(?!-)/);
    expect(message).not.toMatch(/could not be made|Assert Failed/);
  }, LONG);
});
