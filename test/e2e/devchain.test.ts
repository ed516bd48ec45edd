/**
 * A development chain other than the embedded default (CHAIN_ID=31337, as hardhat and anvil use):
 * its DIDs get a network of their own (polygon:dev31337) and an iden3 credential is issued, its
 * state published on that chain, with no NETWORK_NAME to set.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, tempDir } from '../helpers.js';

const tmp = tempDir('vc-devchain-');
const home = path.join(tmp.dir, 'home');
const env = { CHAIN_ID: '31337' };

afterAll(() => {
  runVc(['--json', 'chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('a development chain with chain id 31337', () => {
  it('creates DIDs on polygon:dev31337 and issues a credential whose state is published there', async () => {
    const holder = await runVcInProcess(['--json', 'holder', 'did', 'create'], { home, env });
    expect(holder.status, holder.stderr).toBe(0);
    const holderDid = holder.json<{ did_String: string }>().did_String;
    expect(holderDid).toMatch(/^did:polygonid:polygon:dev31337:/);
    const issued = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holderDid], { home, env });
    expect(issued.status, issued.stderr).toBe(0);
    const credential = issued.json<{ credential: { issuer: string; proof: Array<{ type: string }> } }>().credential;
    expect(credential.issuer).toMatch(/^did:polygonid:polygon:dev31337:/);
    expect(credential.proof.map((proof) => proof.type)).toContain('Iden3SparseMerkleTreeProof');
    const status = await runVcInProcess(['--json', 'chain', 'status'], { home, env });
    expect(status.json<{ chainId: number }>().chainId).toBe(31337);
  }, 900_000);

  it('deploys, through RPC_URL, the verifiers of the development circuits by default, so issuance there works', async () => {
    const rpcUrl = (await runVcInProcess(['--json', 'chain', 'env'], { home, env })).json<{ RPC_URL: string }>().RPC_URL;
    // Another party on the same node: its own wallet, its own key (anvil's third account), its own deployment.
    const other = path.join(tmp.dir, 'other');
    const otherEnv = { CHAIN_ID: '31337', RPC_URL: rpcUrl, WALLET_KEY: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a' };
    const deployed = await runVcInProcess(['--json', 'chain', 'deploy'], { home: other, env: otherEnv });
    expect(deployed.status, deployed.stderr).toBe(0);
    const verifiers = deployed.json<{ verifiers: Record<string, { source: string }> }>().verifiers;
    expect(verifiers.stateTransition?.source).toBe('dev');
    expect(verifiers.credentialAtomicQueryMTPV2OnChain?.source).toBe('dev');
    const holder = (await runVcInProcess(['--json', 'holder', 'did', 'create'], { home: other, env: otherEnv })).json<{ did_String: string }>().did_String;
    const issued = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holder], { home: other, env: otherEnv });
    expect(issued.status, issued.stderr).toBe(0);
    // Asked for, the official verifiers are what gets deployed; they would refuse every proof of
    // these development circuits, so the next command says so before proving anything.
    const official = await runVcInProcess(['--json', 'chain', 'deploy', '--official-verifiers'], { home: other, env: otherEnv });
    expect(official.status, official.stderr).toBe(0);
    expect(official.json<{ verifiers: Record<string, { source: string }> }>().verifiers.stateTransition?.source).toBe('official');
    const refused = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holder], { home: other, env: otherEnv });
    expect(refused.status).toBe(3);
    const error = (JSON.parse(refused.stderr.trim()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('config_error');
    expect(error.message).toMatch(/verifier on chain 31337 \(0x[0-9a-fA-F]{40}\) is the official one, but the circuits in use \(.+\) are development builds/);
    expect(error.message).toMatch(/`vc chain deploy`/);
    // And the fix works: the development verifiers again, then issuance.
    expect((await runVcInProcess(['--json', 'chain', 'deploy'], { home: other, env: otherEnv })).status).toBe(0);
    const again = await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holder], { home: other, env: otherEnv });
    expect(again.status, again.stderr).toBe(0);
  }, 900_000);
});
