/**
 * Issue 28, "credential offer and fetch": `vc issuer offer` offers credentials vc issued (signature
 * proofs, no state transition) and `vc serve --role issuer`'s agent (POST /agent) gives them to
 * the wallet whose authV2 JWZ fetch-request proves it is their subject.
 * - A wallet built directly on @0xpolygonid/js-sdk (its own identity, PackageManager with its
 *   ZKPPacker on vc's authV2 circuit files and PlainPacker; never vc's code) fetches its offered
 *   credential with the js-sdk's own FetchHandler.
 * - The same wallet's fetch-request for another holder's credential is refused with the reason, and
 *   so is that token with one byte of its proof changed; `vc issuer offer` refuses to offer another
 *   holder's credential.
 * - `vc holder fetch` fetches vc's own holder's credential from the agent and keeps it in the store.
 * One authV2 proof per fetch: three in all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CredentialStatusResolverRegistry,
  CredentialStatusType,
  DataPrepareHandlerFunc,
  EthStateStorage,
  FetchHandler,
  FSCircuitStorage,
  PackageManager,
  PlainPacker,
  ProofService,
  RHSResolver,
  ZKPPacker,
  defaultEthConnectionConfig,
  type EthConnectionConfig,
} from '@0xpolygonid/js-sdk';
import { DID } from '@iden3/js-iden3-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVc, runVcInProcess, startVcServe, templateWallet, type VcRun, type VcServer } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader as documentLoader, jsSdkWallets, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const FETCH_REQUEST = 'https://iden3-communication.io/credentials/1.0/fetch-request';

const { tmp, home, env, file, ok } = templateWallet('vc-iden3comm-issuer-');

let issuerService: VcServer | undefined;
let served: Record<string, string | undefined>;
let agentUrl: string;
let walletDid: DID;
let vcHolder: string;
let walletCredential: string;
let vcHolderCredential: string;
let packageManager: PackageManager;
let fetchHandler: FetchHandler;
let offer: Json & { id: string; from: string; to: string; body: { url: string; credentials: Array<{ id: string; description: string }> } };
const vc = (args: string[]): Promise<VcRun> => runVcInProcess(['--json', ...args], { home, env: served });

beforeAll(async () => {
  served = env;
  vcHolder = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  const chain = ok(await vc(['chain', 'up'])).json<{ rpcUrl: string; chainId: number; contracts: { state: string } }>();
  ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
  ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));
  const network = registerNetworkOf(vcHolder, chain.chainId);
  const circuits = ok(await vc(['circuits', 'build', '--circuit', 'authV2'])).json<{ dir: string }>();

  // The js-sdk wallet: its own identity (genesis, nothing published), the chain's State contract read by the js-sdk.
  const connection: EthConnectionConfig = { ...defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.contracts.state, chainId: chain.chainId };
  const states = new EthStateStorage(connection, { disableCache: true });
  const resolvers = new CredentialStatusResolverRegistry();
  resolvers.register(CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, new RHSResolver(states));
  const { identityWallet, credentialWallet } = jsSdkWallets(states, { resolvers });
  ({ did: walletDid } = await identityWallet.createIdentity({
    ...network,
    seed: new Uint8Array(32).fill(29),
    revocationOpts: { type: CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, id: 'http://127.0.0.1:9/unused-rhs', genesisPublishingDisabled: true },
  }));
  const proofService = new ProofService(identityWallet, credentialWallet, new FSCircuitStorage({ dirname: circuits.dir }), states, { documentLoader } as never);
  const authFiles = { provingKey: readFileSync(path.join(circuits.dir, 'authV2', 'circuit_final.zkey')), wasm: readFileSync(path.join(circuits.dir, 'authV2', 'circuit.wasm')) };
  const zkpPacker = new ZKPPacker(
    new Map([['groth16:authV2', { dataPreparer: new DataPrepareHandlerFunc((hash, did, circuitId) => proofService.generateAuthV2Inputs(hash, did, circuitId as never)), ...authFiles }]]),
    new Map(),
  );
  packageManager = new PackageManager();
  packageManager.registerPackers([zkpPacker, new PlainPacker()]);
  fetchHandler = new FetchHandler(packageManager, { credentialWallet });

  // vc's issuer service; the credentials' statuses name its reverse hash service.
  issuerService = await startVcServe(home, ['--role', 'issuer'], { env });
  served = { ...env, RHS_URL: issuerService.urls.issuer };
  agentUrl = `${issuerService.urls.issuer}/agent`;
  writeFileSync(file('subject.json'), JSON.stringify({ birthday: 19960424, documentType: 2 }));
  const issue = async (holder: string): Promise<string> =>
    ok(await vc(['issuer', 'issue', '--holder', holder, '--type', 'KYCAgeCredential', '--context-file', CONTEXT_FILE, '--schema', SCHEMA_FILE, '--subject', file('subject.json'), '--proof', 'sig'])).json<{ credential: { id: string } }>().credential.id;
  walletCredential = await issue(walletDid.string());
  vcHolderCredential = await issue(vcHolder);
  ok(await vc(['issuer', 'offer', '--holder', walletDid.string(), '--id', walletCredential, '--url', agentUrl, '-o', file('offer.json')]));
  offer = JSON.parse(readFileSync(file('offer.json'), 'utf8')) as typeof offer;
}, LONG);

afterAll(async () => {
  await issuerService?.stop();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('vc issuer offer', () => {
  it("is a credentials/1.0/offer from the issuer DID to the holder, naming the credential and the agent; --link carries it", async () => {
    const issuer = ok(await vc(['issuer', 'credentials'])).json<{ issuer: string }>().issuer;
    expect(offer).toEqual({
      id: expect.any(String),
      thid: offer.id,
      typ: 'application/iden3comm-plain-json',
      type: 'https://iden3-communication.io/credentials/1.0/offer',
      from: issuer,
      to: walletDid.string(),
      body: { url: agentUrl, credentials: [{ id: walletCredential, description: 'KYCAgeCredential' }] },
    });
    const linked = await runVcInProcess(['issuer', 'offer', '--holder', walletDid.string(), '--id', walletCredential, '--link'], { home, env: served });
    expect(linked.status, linked.stderr).toBe(0);
    const [universal, deep] = linked.stdout.trim().split('\n') as [string, string];
    const carried = JSON.parse(Buffer.from(universal.replace('https://wallet.privado.id/#i_m=', ''), 'base64').toString('utf8')) as Json;
    expect(carried).toMatchObject({ type: offer.type, from: issuer, to: walletDid.string(), body: { credentials: offer.body.credentials } });
    expect(deep).toBe(`iden3comm://?i_m=${universal.split('#i_m=')[1]}`);
  });

  it("refuses another holder's credential, with the reason (exit 2)", async () => {
    const run = await vc(['issuer', 'offer', '--holder', walletDid.string(), '--id', vcHolderCredential]);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect((JSON.parse(run.stderr) as { error: { message: string } }).error.message).toBe(
      `--id: credential ${vcHolderCredential} was issued to ${vcHolder}, not to ${walletDid.string()}; an offer names only the holder's own credentials`,
    );
  });
});

describe("the js-sdk's FetchHandler and vc's agent", () => {
  it('fetches the offered credential: its id, its subject the wallet DID, its issuer the offer\'s', async () => {
    const credentials = await fetchHandler.handleCredentialOffer(new TextEncoder().encode(JSON.stringify(offer)));
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.id).toBe(walletCredential);
    expect(credentials[0]!.credentialSubject.id).toBe(walletDid.string());
    expect(credentials[0]!.issuer).toBe(offer.from);
    expect(credentials[0]!.proof).toBeDefined();
  }, LONG);

  it("refuses a holder's fetch-request for another holder's credential, and the token with a byte of its proof changed (422, the reason)", async () => {
    // vc's holder asks for the wallet's credential: a token packed by vc's holder code (one native
    // authV2 proof; the js-sdk wallet's own packing is exercised by the fetch above).
    const request = { id: 'f-1', typ: 'application/iden3-zkp-json', type: FETCH_REQUEST, thid: 'f-1', body: { id: walletCredential }, from: vcHolder, to: offer.from };
    const { packAuthResponse } = await import('../../src/core/iden3comm/authRespond.js');
    const { Context } = await import('../../src/context.js');
    const { parseConfig } = await import('../../src/config/parse.js');
    const ctx = new Context({ config: parseConfig(env, home) });
    let token: string;
    try {
      token = await packAuthResponse(ctx, request, DID.parse(vcHolder));
    } finally {
      await ctx.close();
    }
    const post = async (body: string, type = 'application/iden3-zkp-json'): Promise<{ status: number; body: { error?: { message?: string; code?: string } } }> => {
      const answer = await fetch(agentUrl, { method: 'POST', headers: { 'content-type': type }, body });
      return { status: answer.status, body: (await answer.json()) as { error?: { message?: string } } };
    };
    const foreign = await post(token);
    expect(foreign.status).toBe(422);
    expect(foreign.body.error?.message).toBe(`request body: credential ${walletCredential} was not issued to the sender ${vcHolder}; an issuer gives a credential to its subject only`);

    const [header, payload, proof] = token.split('.') as [string, string, string];
    const proofText = Buffer.from(proof, 'base64url').toString('utf8');
    const at = proofText.indexOf('"pi_a":["') + 12;
    const changed = proofText.slice(0, at) + (proofText[at] === '1' ? '2' : '1') + proofText.slice(at + 1);
    const tampered = await post(`${header}.${payload}.${Buffer.from(changed).toString('base64url')}`);
    expect(tampered.status).toBe(422);
    expect(tampered.body.error?.message).toBe('request body: refused: the auth proof (authV2) does not verify against the token');

    // Not a JWZ, and a media type the agent does not take: 4xx with a JSON error, never a 500.
    const notJwz = await post('not.a-jwz');
    expect(notJwz.status).toBe(400);
    expect(notJwz.body.error?.message).toMatch(/^request body: not a JWZ token/);
    const xml = await post('<fetch/>', 'application/xml');
    expect(xml.status).toBe(415);
  }, LONG);
});

describe('vc holder fetch', () => {
  it("fetches vc's holder's offered credential from the agent and keeps it in the holder's store", async () => {
    // Issued in this wallet, the holder got its copy at once: deleted, so that the fetch is what keeps it.
    ok(await vc(['holder', 'credentials', 'delete', vcHolderCredential]));
    ok(await vc(['issuer', 'offer', '--holder', vcHolder, '--id', vcHolderCredential, '--url', agentUrl, '-o', file('offer-vc.json')]));
    const fetched = ok(await vc(['holder', 'fetch', '--offer', file('offer-vc.json')])).json<Json>();
    expect(fetched).toMatchObject({ issuer: offer.from, holder: vcHolder, url: agentUrl, stored: [{ id: vcHolderCredential, alreadyHeld: false }] });
    const held = ok(await vc(['holder', 'credentials', 'list'])).json<{ credentials: Array<{ id: string }> }>();
    expect(held.credentials.map((credential) => credential.id)).toContain(vcHolderCredential);
  }, LONG);
});
