/**
 * A holder whose own identity state is published on chain (its DID issued a credential as
 * ISSUER_DID: one state transition) proves on-chain queries with embedded auth (attack-s37b,
 * first defect of test/e2e/authV3DeepTree.test.ts on that branch). js-sdk 1.45 took the holder's
 * state and auth-claim proof from the auth credential's genesis Merkle proof while its GIST proof
 * names the published state, so the circuits refused ("Assert Failed", the GIST check); vc now
 * proves the auth claim at the state the State contract holds (src/iden3/wallet.ts authAtChainState).
 * Both on-chain query circuits: credentialAtomicQueryV3OnChain (sig, $between) and
 * credentialAtomicQueryMTPV2OnChain (the official circuit, same inputs path).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVcInProcess, templateWallet } from '../helpers.js';

type Json = Record<string, unknown>;

const LONG = 900_000;
const wallet = templateWallet('vc-published-holder-');
const { tmp, home, env, file, vc } = wallet;
const ok = async (args: string[]): Promise<Json> => {
  const run = wallet.ok(await vc(args));
  return run.stdout.trim() === '' ? {} : run.json<Json>();
};

let did: string;

beforeAll(async () => {
  did = String((await ok(['holder', 'did', 'create'])).did_String);
  const issuerDid = String((await ok(['issuer', 'did', 'create'])).did_String);
  // The holder's state published: an issuance by the holder's identity (ISSUER_DID, one state transition).
  const published = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', issuerDid], { home, env: { ...env, ISSUER_DID: did } });
  expect(published.status, published.stderr).toBe(0);
  // The holder's credentials from the default issuer: signed (no state transition), and with a Merkle proof.
  await ok(['issuer', 'issue', '--proof', 'sig', '--holder', did, '-o', file('signed.json')]);
  await ok(['issuer', 'issue', '--holder', did, '-o', file('mtp.json')]);
}, LONG);

afterAll(async () => {
  await vc(['chain', 'down']);
  tmp.cleanup();
});

describe('a holder whose own state is published (its identity issued a credential)', () => {
  it('proves and submits a credentialAtomicQueryV3OnChain query with embedded auth, and a credentialAtomicQueryMTPV2OnChain one', async () => {
    await ok(['verifier', 'request', '--circuit', 'credentialAtomicQueryV3OnChain', '--op', '$between', '--proof-type', 'sig', '--value', '19800101,19991231', '-o', file('v3.json')]);
    const v3 = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', file('v3.json')]);
    expect(v3.status, v3.stderr).toBe(0);
    await ok(['verifier', 'request', '--circuit', 'credentialAtomicQueryMTPV2OnChain', '--op', '$lt', '--value', '20000101', '-o', file('mtpv2.json')]);
    const mtp = await vc(['holder', 'prove-submit', '--credential', file('mtp.json'), '--request', file('mtpv2.json')]);
    expect(mtp.status, mtp.stderr).toBe(0);
  }, LONG);
});
