/**
 * Interop: an issuer built directly on @0xpolygonid/js-sdk (not through vc's code), with the
 * official KYCAgeCredential context and schema (test/fixtures/iden3-official, their source in its
 * README), issues one credential to a vc holder's DID on vc's chain: its identity, claims tree and
 * state are the js-sdk's own, its tree nodes go to a reverse hash service over HTTP (a minimal one
 * run by this test on loopback), and its state transition proof is sent to the State contract by
 * the js-sdk's EthStateStorage. The vc holder then:
 * - is refused by `vc holder prove-submit` while the context is not in its wallet, with the URL and
 *   the command that adds it (vc never fetches it);
 * - pins the two documents with `vc documents add`, and `vc holder prove-submit` proves the
 *   credential on chain (credentialAtomicQueryMTPV2OnChain, verified by the UniversalVerifier).
 * One issuance, one proof: the state transition and the query proof are the slow steps.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CredentialStatusType, EthStateStorage, FSCircuitStorage, ProofService, defaultEthConnectionConfig, type W3CCredential } from '@0xpolygonid/js-sdk';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, runVcAsync, tempDir, templateHome, type VcRun } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, ISSUER_ACCOUNT_KEY, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader, jsSdkWallets, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;

const tmp = tempDir('vc-js-sdk-issuer-');
const home = templateHome(path.join(tmp.dir, 'home'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
const file = (name: string, content: unknown): string => {
  const target = path.join(tmp.dir, name);
  writeFileSync(target, JSON.stringify(content, null, 2));
  return target;
};
/** In this process (no node start-up): these tests are about what the commands do. */
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home, env });
const ok = (run: VcRun): VcRun => {
  expect(run.status, run.stderr).toBe(0);
  return run;
};

/** A reverse hash service (POST /node, GET /node/:hash) kept in memory, on loopback. */
function startRhs(): Promise<{ url: string; server: Server; nodes: Map<string, string[]> }> {
  const nodes = new Map<string, string[]>();
  const server = createServer((request, response) => {
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'POST' && request.url === '/node') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        for (const node of JSON.parse(body) as Array<{ hash: string; children: string[] }>) nodes.set(node.hash, node.children);
        reply(200, { status: 'OK' });
      });
      return;
    }
    const hash = /^\/node\/([0-9a-f]{64})$/.exec(request.url ?? '')?.[1];
    const children = hash === undefined ? undefined : nodes.get(hash);
    if (request.method === 'GET' && children !== undefined) reply(200, { node: { hash, children }, status: 'OK' });
    else reply(404, { status: 'not found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, nodes })));
}

let rhs: Awaited<ReturnType<typeof startRhs>>;
let holderDid: string;
let issuerDid: string;
let credential: W3CCredential;
let credentialFile: string;
let provider: JsonRpcProvider | undefined;

beforeAll(async () => {
  rhs = await startRhs();
  holderDid = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  // Up, with the verifiers of the circuits in use deployed, so a js-sdk state transition verifies.
  const chain = ok(await vc(['chain', 'up'])).json<{ rpcUrl: string; chainId: number; contracts: { state: string } }>();
  const circuitsDir = ok(await vc(['circuits', 'status'])).json<{ dir: string }>().dir;

  // The holder's DID says which network the chain is to iden3 (its id's type bytes): the issuer registers the same.
  const { method, blockchain, networkId: network } = registerNetworkOf(holderDid, chain.chainId);

  const states = new EthStateStorage({ ...defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.contracts.state, chainId: chain.chainId });
  const { identityWallet, credentialWallet } = jsSdkWallets(states);
  const revocationOpts = { type: CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, id: rhs.url };
  const { did } = await identityWallet.createIdentity({ method, blockchain, networkId: network, seed: new Uint8Array(32).fill(7), revocationOpts });
  issuerDid = did.string();

  const issued = await identityWallet.issueCredential(
    did,
    { credentialSchema: SCHEMA_URL, type: 'KYCAgeCredential', credentialSubject: { id: holderDid, birthday: 19960424, documentType: 2 }, revocationOpts },
    { documentLoader: issuerDocumentLoader } as never,
  );
  const { oldTreeState, credentials } = await identityWallet.addCredentialsToMerkleTree([issued], did);
  await identityWallet.publishStateToRHS(did, rhs.url);
  provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  const proofService = new ProofService(identityWallet, credentialWallet, new FSCircuitStorage({ dirname: circuitsDir }), states, { documentLoader: issuerDocumentLoader } as never);
  const txId = await proofService.transitState(did, oldTreeState, true, states, new Wallet(ISSUER_ACCOUNT_KEY, provider));
  [credential] = (await identityWallet.generateIden3SparseMerkleTreeProof(did, credentials, txId)) as [W3CCredential];
  credentialFile = file('kyc.json', credential);
}, LONG);

afterAll(async () => {
  provider?.destroy();
  rhs?.server.close();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('a KYCAgeCredential of a js-sdk issuer, in the official format', () => {
  it('is what the official documents describe: its context and schema URLs, the issuer on chain', async () => {
    expect(credential['@context']).toContain(CONTEXT_URL);
    expect(credential.credentialSchema.id).toBe(SCHEMA_URL);
    expect(credential.type).toEqual(['VerifiableCredential', 'KYCAgeCredential']);
    expect(credential.issuer).toBe(issuerDid);
    expect(credential.credentialSubject.id).toBe(holderDid);
    expect((credential.proof as Array<{ type: string }>).map((proof) => proof.type)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
    // The nodes went to the reverse hash service, not into vc's wallet.
    expect(rhs.nodes.size).toBeGreaterThan(3);
  });

  it('without the documents, prove-submit is refused naming the URL and the command that adds it; nothing is fetched', async () => {
    const request = { id: 1, circuitId: 'credentialAtomicQueryMTPV2OnChain', query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: CONTEXT_URL, credentialSubject: { birthday: { $lt: 20000101 } } } };
    const run = await vc(['holder', 'prove-submit', '--credential', credentialFile, '--request', file('handmade-request.json', request)]);
    expect(run.status).toBe(2);
    const { error } = JSON.parse(run.stderr) as { error: { message: string; field: string } };
    expect(error.message).toBe(
      `--credential ${credentialFile}: field @context[2]: unknown JSON-LD context ${CONTEXT_URL}: add it with \`vc documents add ${CONTEXT_URL} FILE\` (vc never fetches documents from the network)`,
    );
    // The request cannot be made either, for the same reason.
    const refused = await vc(['verifier', 'request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$lt', '--value', '20000101']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`vc documents add ${CONTEXT_URL} FILE`);
  });

  it('after vc documents add, the holder proves it on chain', async () => {
    ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
    ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));
    // A field of the type misspelt is refused with the right name.
    const typo = await vc(['verifier', 'request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthdy', '--op', '$lt', '--value', '20000101']);
    expect(typo.status).toBe(2);
    expect(JSON.parse(typo.stderr).error.message).toBe('--field: KYCAgeCredential has no field birthdy (did you mean birthday?); its fields: birthday, documentType');
    const request = ok(await vc(['verifier', 'request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$lt', '--value', '20000101'])).json<{ id: number }>();
    // Asynchronously: the reverse hash service runs in this process, which must keep answering.
    const proved = ok(await runVcAsync(['--json', 'holder', 'prove-submit', '--credential', credentialFile, '--request', file('request.json', request)], { home, env })).json<Json>();
    expect(proved[String(request.id)]).toBe(true);
    const status = await vc(['verifier', 'status', '--request', String(request.id), '--address', String(proved.sender)]);
    expect(status.status, status.stderr).toBe(0);
    expect(status.json<{ isVerified: boolean }>().isVerified).toBe(true);
  }, LONG);
});
