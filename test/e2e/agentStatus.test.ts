/**
 * Iden3commRevocationStatusV1.0, both ways, against the js-sdk used directly (never through vc):
 * - vc's issuer (`vc serve --role issuer`, with a bearer token) issues with `status: agent`; the
 *   js-sdk's AgentResolver asks vc's POST /agent (open without the token) and reads the credential
 *   as not revoked at the state on chain, then as revoked once vc revoked it; a holder sharing the
 *   wallet imports it (answered without a request) and refuses it once revoked. Bad messages get
 *   a 4xx with a JSON error body.
 * - an issuer built on the js-sdk whose agent is the js-sdk's own RevocationStatusHandler (served
 *   by this test on loopback) issues a KYCAgeCredential (official documents) with that status: vc's
 *   holder imports it and proves it on chain; once the js-sdk issuer revokes it and publishes, vc
 *   refuses it as revoked; an agent that hides the revocation (a rewritten proof, or an old answer
 *   at the state before the revocation) is refused with the reason.
 * Two issuances, two revocations, one query proof: the state transitions and the proof are the slow steps.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  AgentResolver,
  CredentialStatusType,
  EthStateStorage,
  FSCircuitStorage,
  PackageManager,
  PlainPacker,
  ProofService,
  RevocationStatusHandler,
  defaultEthConnectionConfig,
  type IdentityWallet,
  type TreeState,
  type W3CCredential,
} from '@0xpolygonid/js-sdk';
import { DID } from '@iden3/js-iden3-core';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonError, runVc, runVcInProcess, runVcAsync, startVcServe, tempDir, templateHome, type VcRun, type VcServer } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, ISSUER_ACCOUNT_KEY, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader, jsSdkWallets, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const AGENT = CredentialStatusType.Iden3commRevocationStatusV1;
const PLAIN = 'application/iden3comm-plain-json';
const REQUEST_STATUS = 'https://iden3-communication.io/revocation/1.0/request-status';
const TOKEN = 'agent-test-token-0123456789';

const tmp = tempDir('vc-agent-status-');
const home = templateHome(path.join(tmp.dir, 'home'));
const env = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };
const file = (name: string, content: unknown): string => {
  const target = path.join(tmp.dir, name);
  writeFileSync(target, JSON.stringify(content, null, 2));
  return target;
};
/** In this process (no node start-up): these tests are about what the commands do. */
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home, env });
/** A run while this process must keep answering (the js-sdk's agent below runs in it). */
const vcAsync = (args: string[]): Promise<VcRun> => runVcAsync(['--json', ...args], { home, env });
const ok = (run: VcRun): VcRun => {
  expect(run.status, run.stderr).toBe(0);
  return run;
};

let holderDid: string;
let chain: { rpcUrl: string; chainId: number; contracts: { state: string } };
let server: VcServer | undefined;
let provider: JsonRpcProvider | undefined;
let jsSdkAgent: Server | undefined;

beforeAll(async () => {
  holderDid = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  chain = ok(await vc(['chain', 'up'])).json<typeof chain>();
}, LONG);

afterAll(async () => {
  await server?.stop();
  jsSdkAgent?.close();
  provider?.destroy();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

/** A request-status message, as the js-sdk's AgentResolver builds it. */
function requestStatus(to: string, nonce: unknown, extra: Json = {}): Json {
  return { id: 'a1', typ: PLAIN, type: REQUEST_STATUS, thid: 'a1', from: holderDid, to, body: { revocation_nonce: nonce }, ...extra };
}

describe("vc's issuer agent, read by the js-sdk's AgentResolver", () => {
  let issuerUrl: string;
  let credential: Json;
  let status: { id: string; type: string; revocationNonce: number };

  const post = async (pathName: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${issuerUrl}${pathName}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const authorized = { authorization: `Bearer ${TOKEN}` };

  it('issues with status agent: the credential names the served issuer agent, which answers "not revoked" at the state on chain', async () => {
    server = await startVcServe(home, ['--role', 'issuer'], { env: { ...env, VC_API_TOKEN: TOKEN } });
    issuerUrl = server.urls.issuer!;
    const issued = await post('/generate-pbq-credentials', { did: holderDid, status: 'agent' }, authorized);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    credential = issued.body.credential as Json;
    status = credential.credentialStatus as typeof status;
    expect(status).toMatchObject({ id: `${issuerUrl}/agent`, type: AGENT });

    // The other side: the js-sdk's resolver, with no token (the agent is open, as the RHS reads are).
    const resolved = await new AgentResolver().resolve(status as never, { issuerDID: DID.parse(String(credential.issuer)), userDID: DID.parse(holderDid) });
    expect(resolved.mtp.existence).toBe(false);
    // At the state the issuance published (the one its Merkle proof names), which the chain holds.
    const mtp = (credential.proof as Json[]).find((proof) => proof.type === 'Iden3SparseMerkleTreeProof') as { issuerData: { state: { value: string } } };
    expect(resolved.issuer.state).toBe(mtp.issuerData.state.value);
  }, LONG);

  it('refuses bad messages with a 4xx and a JSON error body, never a 500', async () => {
    const issuer = String(credential.issuer);
    const cases: Array<[unknown, number, RegExp]> = [
      [requestStatus(issuer, status.revocationNonce, { type: 'https://iden3-communication.io/credentials/1.0/fetch-request' }), 422, /^type "https:\/\/iden3-communication.io\/credentials\/1.0\/fetch-request": vc's agent answers https:\/\/iden3-communication.io\/revocation\/1.0\/request-status only in a plain message \(a credentials\/1.0\/fetch-request comes as a JWZ, application\/iden3-zkp-json\)$/],
      [requestStatus(issuer, status.revocationNonce, { typ: 'application/iden3-zkp-json' }), 422, /^typ "application\/iden3-zkp-json": vc's agent reads plain messages/],
      [requestStatus(issuer, -1), 400, /^body.revocation_nonce: expected the credential's revocation nonce \(a whole number\), got -1$/],
      [requestStatus(issuer, '5'), 400, /^body.revocation_nonce: /],
      [requestStatus('did:example:nobody', 5), 404, /^did:example:nobody is not an issuer of this wallet$/],
      // The holder's identity in the same wallet: its trees are not the agent's to show.
      [requestStatus(holderDid, 5), 404, new RegExp(`^${holderDid} is not an issuer of this wallet$`)],
      [requestStatus('not a DID', 5), 400, /^to: expected the issuer's iden3 DID, got "not a DID"/],
      [{ type: REQUEST_STATUS }, 400, /id|to/],
      ['{"id": "a", "id": "b"}', 400, /duplicate|twice|more than once/i],
      [requestStatus(issuer, 5, { padding: 'x'.repeat(2_000_000) }), 413, /.+/],
    ];
    for (const [body, expected, message] of cases) {
      const answer = await post('/agent', body);
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(expected);
      expect((answer.body.error as { message: string }).message).toMatch(message);
    }
    // The media type of a plain iden3comm message is read as JSON too.
    const plain = await post('/agent', requestStatus(issuer, status.revocationNonce), { 'content-type': PLAIN });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ type: 'https://iden3-communication.io/revocation/1.0/status', thid: 'a1', from: issuer, to: holderDid, typ: PLAIN });
    // Storing RHS nodes still needs the token; reading a node does not.
    expect((await post('/node', [])).status).toBe(401);
  });

  it("a holder sharing the issuer's wallet imports it, and refuses it once revoked; the js-sdk agrees", async () => {
    const credentialFile = file('vc-agent.json', credential);
    // Kept already (issued by this wallet for its own holder); the import checks it again, status included.
    expect(ok(await vc(['holder', 'credentials', 'import', credentialFile])).json<{ imported: unknown[] }>().imported).toMatchObject([{ type: 'PassportCredential', alreadyHeld: true }]);
    const revoked = await post('/revoke', { nonce: status.revocationNonce }, authorized);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const resolved = await new AgentResolver().resolve(status as never, { issuerDID: DID.parse(String(credential.issuer)), userDID: DID.parse(holderDid) });
    expect(resolved.mtp.existence).toBe(true);
    const refused = await vc(['holder', 'credentials', 'import', credentialFile]);
    expect(refused.status, refused.stderr).toBe(2);
    expect(jsonError(refused.stderr).message).toBe(`${credentialFile}: field credentialStatus: the credential is revoked (revocation nonce ${status.revocationNonce} is in the issuer's revocation tree)`);
    await server!.stop();
    server = undefined;
  }, LONG);
});

describe("a js-sdk issuer whose agent is the js-sdk's RevocationStatusHandler, read by vc's holder", () => {
  let identityWallet: IdentityWallet;
  let proofService: ProofService;
  let states: EthStateStorage;
  let signer: Wallet;
  let issuer: DID;
  let credential: W3CCredential;
  let credentialFile: string;
  /** A credential of the same issuer whose status names an agent that is not there. */
  let silentFile: string;
  let deadPort: number;
  let heldId: string;
  /** How the agent lies: not at all, by rewriting its proof, or by answering at an older state. */
  let lie: 'no' | 'proof' | 'old state' = 'no';
  let oldState: TreeState | undefined;

  beforeAll(async () => {
    ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
    ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));
    const circuitsDir = ok(await vc(['circuits', 'status'])).json<{ dir: string }>().dir;
    const { method, blockchain, networkId } = registerNetworkOf(holderDid, chain.chainId);
    provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
    signer = new Wallet(ISSUER_ACCOUNT_KEY, provider);
    states = new EthStateStorage({ ...defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.contracts.state, chainId: chain.chainId }, { disableCache: true });
    const wallets = jsSdkWallets(states);
    identityWallet = wallets.identityWallet;
    const { credentialWallet } = wallets;

    // The js-sdk's own handler answers on loopback; `lie` makes it an agent that hides a revocation.
    const packer = new PackageManager();
    packer.registerPackers([new PlainPacker()]);
    const handler = new RevocationStatusHandler(packer, identityWallet);
    jsSdkAgent = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        void (async () => {
          const message = JSON.parse(text) as { body: { revocation_nonce: number }; to: string };
          // As JSON (the handler's proof is an object with its own toJSON).
          let answer = JSON.parse(JSON.stringify(await handler.handle(message as never, { senderDid: issuer, mediaType: PLAIN as never }))) as { body: { mtp: { existence: boolean } } };
          // The lies are about the credential (its signing key's status stays true).
          const aboutCredential = message.body.revocation_nonce === credential?.credentialStatus.revocationNonce;
          if (lie === 'proof' && aboutCredential) answer.body.mtp.existence = false;
          if (lie === 'old state' && aboutCredential) {
            const stale = await identityWallet.generateNonRevocationMtpWithNonce(issuer, BigInt(message.body.revocation_nonce), oldState);
            answer = {
              ...answer,
              body: {
                issuer: { state: oldState!.state.hex(), claimsTreeRoot: oldState!.claimsRoot.hex(), revocationTreeRoot: oldState!.revocationRoot.hex(), rootOfRoots: oldState!.rootOfRoots.hex() },
                mtp: stale.proof.toJSON(),
              } as never,
            };
          }
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(answer));
        })().catch((error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: String(error) }));
        });
      });
    });
    const agentUrl = await new Promise<string>((resolve) => jsSdkAgent!.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(jsSdkAgent!.address() as AddressInfo).port}/v2/agent`)));

    // The auth claim's status is the agent's too (a nonce of its own: the js-sdk's handler refuses nonce 0).
    ({ did: issuer } = await identityWallet.createIdentity({ method, blockchain, networkId, seed: new Uint8Array(32).fill(11), revocationOpts: { type: AGENT, id: agentUrl, nonce: 77 } }));
    const issue = (agent: string): Promise<W3CCredential> =>
      identityWallet.issueCredential(
        issuer,
        { credentialSchema: SCHEMA_URL, type: 'KYCAgeCredential', credentialSubject: { id: holderDid, birthday: 19960424, documentType: 2 }, revocationOpts: { type: AGENT, id: agent } },
        { documentLoader: issuerDocumentLoader } as never,
      );
    // A second credential, published with the first, names an agent that is not there (a port just released).
    deadPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const issued = [await issue(agentUrl), await issue(`http://127.0.0.1:${deadPort}/v2/agent`)];
    const { oldTreeState, credentials } = await identityWallet.addCredentialsToMerkleTree(issued, issuer);
    proofService = new ProofService(identityWallet, credentialWallet, new FSCircuitStorage({ dirname: circuitsDir }), states, { documentLoader: issuerDocumentLoader } as never);
    const txId = await proofService.transitState(issuer, oldTreeState, true, states, signer);
    let silent: W3CCredential;
    [credential, silent] = (await identityWallet.generateIden3SparseMerkleTreeProof(issuer, credentials, txId)) as [W3CCredential, W3CCredential];
    credentialFile = file('kyc-agent.json', credential);
    silentFile = file('kyc-silent-agent.json', silent);
  }, LONG);

  it('vc holder credentials import asks the agent (the credential and the signing key), keeps it, and prove-submit --id proves it on chain', async () => {
    expect(credential.credentialStatus).toMatchObject({ type: AGENT });
    const imported = ok(await vcAsync(['holder', 'credentials', 'import', credentialFile])).json<{ imported: Array<{ id: string; type: string }> }>();
    expect(imported.imported).toMatchObject([{ type: 'KYCAgeCredential' }]);
    heldId = imported.imported[0]!.id;
    // An agent that does not answer (nothing listens there): refused naming the agent (exit 4: the network), nothing kept.
    const unanswered = await vcAsync(['holder', 'credentials', 'import', silentFile]);
    expect(unanswered.status, unanswered.stderr).toBe(4);
    // (The command line shows a URL's origin only: its path may hold a key.)
    expect(jsonError(unanswered.stderr).message).toMatch(new RegExp(`^the issuer's agent http://127\\.0\\.0\\.1:${deadPort}/…: fetch failed \\(.*ECONNREFUSED`));
    expect(ok(await vcAsync(['holder', 'credentials', 'list', '--type', 'KYCAgeCredential'])).json<{ credentials: unknown[] }>().credentials).toHaveLength(1);
    const request = ok(await vc(['verifier', 'request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$lt', '--value', '20000101'])).json<{ id: number }>();
    const proved = ok(await vcAsync(['holder', 'prove-submit', '--id', heldId, '--request', file('request.json', request)])).json<Json>();
    expect(proved[String(request.id)]).toBe(true);
  }, LONG);

  it('after the js-sdk issuer revokes it and publishes, vc refuses it as revoked; an agent hiding the revocation is refused with the reason', async () => {
    const trees = await identityWallet.getDIDTreeModel(issuer);
    oldState = { state: trees.state, claimsRoot: await trees.claimsTree.root(), revocationRoot: await trees.revocationTree.root(), rootOfRoots: await trees.rootsTree.root() };
    const nonce = await identityWallet.revokeCredential(issuer, credential);
    await proofService.transitState(issuer, oldState, false, states, signer);

    const refused = await vcAsync(['holder', 'credentials', 'import', credentialFile]);
    expect(refused.status, refused.stderr).toBe(2);
    expect(jsonError(refused.stderr).message).toBe(`${credentialFile}: field credentialStatus: the credential is revoked (revocation nonce ${nonce} is in the issuer's revocation tree)`);
    const request = ok(await vc(['verifier', 'request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$lt', '--value', '20000101'])).json<{ id: number }>();
    const requestFile = file('request-after.json', request);
    const notProved = await vcAsync(['holder', 'prove-submit', '--id', heldId, '--request', requestFile]);
    expect(notProved.status, notProved.stderr).toBe(1);
    expect(jsonError(notProved.stderr).message).toBe(`the credential is revoked (revocation nonce ${nonce} is in the issuer's revocation tree)`);

    // The agent rewrites its proof to "not revoked": the proof does not lead to the revocation root.
    lie = 'proof';
    const rewritten = await vcAsync(['holder', 'credentials', 'import', credentialFile]);
    expect(rewritten.status, rewritten.stderr).not.toBe(0);
    expect(jsonError(rewritten.stderr).message).toMatch(new RegExp(`does not hold: its proof that nonce ${nonce} is not revoked does not lead to the revocation root of the state\\)$`));
    // The agent answers at the state before the revocation (a genuine old answer): not the chain's state.
    lie = 'old state';
    const replayed = await vcAsync(['holder', 'prove-submit', '--id', heldId, '--request', requestFile]);
    expect(replayed.status, replayed.stderr).not.toBe(0);
    expect(jsonError(replayed.stderr).message).toMatch(new RegExp(`does not hold: it is about state ${oldState.state.hex()}; the chain holds [0-9a-f]{64} for the issuer`));
    lie = 'no';
  }, LONG);
});
