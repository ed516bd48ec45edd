/**
 * A development chain other than the embedded default (CHAIN_ID=31337, as hardhat and anvil use):
 * its DIDs get a network of their own (polygon:dev31337) and an iden3 credential is issued, its
 * state published on that chain, with no NETWORK_NAME to set.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, tempDir } from '../helpers.js';

const tmp = tempDir('vc-devchain-');
const home = path.join(tmp.dir, 'home');
const env = { CHAIN_ID: '31337' };

afterAll(() => {
  runVc(['--json', 'chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('a development chain with chain id 31337', () => {
  it('creates DIDs on polygon:dev31337 and issues a credential whose state is published there', () => {
    const holder = runVc(['--json', 'holder', 'did', 'create'], { home, env });
    expect(holder.status, holder.stderr).toBe(0);
    const holderDid = holder.json<{ did_String: string }>().did_String;
    expect(holderDid).toMatch(/^did:polygonid:polygon:dev31337:/);
    const issued = runVc(['--json', 'issuer', 'issue', '--holder', holderDid], { home, env });
    expect(issued.status, issued.stderr).toBe(0);
    const credential = issued.json<{ credential: { issuer: string; proof: Array<{ type: string }> } }>().credential;
    expect(credential.issuer).toMatch(/^did:polygonid:polygon:dev31337:/);
    expect(credential.proof.map((proof) => proof.type)).toContain('Iden3SparseMerkleTreeProof');
    const status = runVc(['--json', 'chain', 'status'], { home, env });
    expect(status.json<{ chainId: number }>().chainId).toBe(31337);
  }, 900_000);
});
