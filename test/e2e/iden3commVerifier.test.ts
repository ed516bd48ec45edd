/**
 * Issue 28, "vc verifies an independent wallet's answers", off chain: a wallet built directly on
 * @0xpolygonid/js-sdk (IdentityWallet, CredentialWallet, ProofService with its own prover on vc's
 * circuit files, AuthHandler packing a JWZ with its ZKPPacker; never vc's code) holds a
 * KYCAgeCredential vc issued with a signature proof (no state transition) and answers the
 * authorization request `vc verifier auth-request` made; `vc verifier verify --jwz` says verified
 * with the disclosed birthday, and refuses, each with its reason, a token with one byte of its
 * proof or of its payload changed, the token checked against another request, the request once
 * expired, and the same token a second time. One answer (an authV2 and a V3 proof) serves them all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  AuthHandler,
  CredentialStatusResolverRegistry,
  CredentialStatusType,
  DataPrepareHandlerFunc,
  EthStateStorage,
  FSCircuitStorage,
  PackageManager,
  PlainPacker,
  ProofService,
  RHSResolver,
  W3CCredential,
  ZKPPacker,
  createAuthorizationRequest,
  defaultEthConnectionConfig,
  type EthConnectionConfig,
} from '@0xpolygonid/js-sdk';
import { DID } from '@iden3/js-iden3-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runVc, runVcInProcess, startVcServe, templateWallet, type VcServer } from '../helpers.js';
import { CONTEXT_FILE, CONTEXT_URL, SCHEMA_FILE, SCHEMA_URL, issuerDocumentLoader as documentLoader, jsSdkWallets, registerNetworkOf } from './support/jsSdkIssuer.js';

type Json = Record<string, unknown>;
const LONG = 900_000;
const BIRTHDAY = 19960424;

const { tmp, home, env, file, vc, ok } = templateWallet('vc-iden3comm-verifier-');
/** `vc verifier verify --jwz`: the result of a refusal (exit 1) or a verification. */
const verify = async (token: string, requestFile: string): Promise<{ status: number; result: Json; stderr: string }> => {
  const tokenFile = file(`token-${Math.random().toString(36).slice(2)}.jwz`);
  writeFileSync(tokenFile, token);
  const run = await vc(['verifier', 'verify', '--jwz', tokenFile, '--request', requestFile]);
  return { status: run.status, result: run.stdout === '' ? {} : run.json<Json>(), stderr: run.stderr };
};

let request: Json & { id: string; thid: string; from: string; expires_time: number; body: { scope: Array<{ id: number; circuitId: string; query: Json }> } };
let token: string;
let holder: DID;
let issuerService: VcServer | undefined;
beforeAll(async () => {
  const vcHolder = ok(await vc(['holder', 'did', 'create'])).json<{ did_String: string }>().did_String;
  const chain = ok(await vc(['chain', 'up'])).json<{ rpcUrl: string; chainId: number; contracts: { state: string } }>();
  ok(await vc(['documents', 'add', CONTEXT_URL, CONTEXT_FILE]));
  ok(await vc(['documents', 'add', SCHEMA_URL, SCHEMA_FILE]));
  const network = registerNetworkOf(vcHolder, chain.chainId);
  // The circuits the wallet proves with and vc verifies with: built once per cache.
  const circuits = ok(await vc(['circuits', 'build', '--circuit', 'authV2,credentialAtomicQueryV3-16-16-64'])).json<{ dir: string }>();

  // The js-sdk wallet: its own identity (genesis, nothing published), the chain's State contract read by the js-sdk.
  const connection: EthConnectionConfig = { ...defaultEthConnectionConfig, url: chain.rpcUrl, contractAddress: chain.contracts.state, chainId: chain.chainId };
  const states = new EthStateStorage(connection, { disableCache: true });
  const resolvers = new CredentialStatusResolverRegistry();
  resolvers.register(CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, new RHSResolver(states));
  const { identityWallet, credentialWallet } = jsSdkWallets(states, { resolvers });
  ({ did: holder } = await identityWallet.createIdentity({
    ...network,
    seed: new Uint8Array(32).fill(28),
    revocationOpts: { type: CredentialStatusType.Iden3ReverseSparseMerkleTreeProof, id: 'http://127.0.0.1:9/unused-rhs', genesisPublishingDisabled: true },
  }));

  // vc issues to it: a signature proof, no state transition (the issuer stays at its genesis
  // state); the statuses name the reverse hash service of vc's issuer service, which the wallet's
  // RHSResolver reads while it proves.
  writeFileSync(file('subject.json'), JSON.stringify({ birthday: BIRTHDAY, documentType: 2 }));
  issuerService = await startVcServe(home, ['--role', 'issuer'], { env });
  const served = { ...env, RHS_URL: issuerService.urls.issuer };
  ok(await runVcInProcess(['--json', 'issuer', 'issue', '--holder', holder.string(), '--type', 'KYCAgeCredential', '--context-file', CONTEXT_FILE, '--schema', SCHEMA_FILE, '--subject', file('subject.json'), '--proof', 'sig', '-o', file('credential.json')], { home, env: served }));
  const credential = (JSON.parse(readFileSync(file('credential.json'), 'utf8')) as { credential: Json }).credential;
  await credentialWallet.save(W3CCredential.fromJSON(credential as never));

  ok(await vc(['verifier', 'auth-request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$sd', '--reason', 'age check', '-o', file('request.json')]));
  request = JSON.parse(readFileSync(file('request.json'), 'utf8')) as typeof request;

  const circuitStorage = new FSCircuitStorage({ dirname: circuits.dir });
  const proofService = new ProofService(identityWallet, credentialWallet, circuitStorage, states, { documentLoader } as never);
  const packageManager = new PackageManager();
  const authFiles = { provingKey: readFileSync(path.join(circuits.dir, 'authV2', 'circuit_final.zkey')), wasm: readFileSync(path.join(circuits.dir, 'authV2', 'circuit.wasm')) };
  const zkpPacker = new ZKPPacker(
    new Map([['groth16:authV2', { dataPreparer: new DataPrepareHandlerFunc((hash, did, circuitId) => proofService.generateAuthV2Inputs(hash, did, circuitId as never)), ...authFiles }]]),
    new Map(),
  );
  packageManager.registerPackers([zkpPacker, new PlainPacker()]);
  const answered = await new AuthHandler(packageManager, proofService).handleAuthorizationRequest(holder, new TextEncoder().encode(JSON.stringify(request)));
  token = answered.token;
  await issuerService.stop();
  expect(answered.authResponse.body.scope.map((proof) => proof.circuitId)).toEqual(['credentialAtomicQueryV3-16-16-64']);
}, LONG);

afterAll(async () => {
  await issuerService?.stop();
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('vc verifier auth-request', () => {
  it('is the message the js-sdk makes for the same verifier, scope and expiry, from the wallet verifier DID; its links carry it', async () => {
    const verifierDid = request.from;
    expect(verifierDid).toMatch(/^did:polygonid:/);
    const made = createAuthorizationRequest('age check', verifierDid, '', {
      scope: request.body.scope as never,
      expires_time: new Date(request.expires_time * 1000),
      accept: ['iden3comm/v1;env=application/iden3-zkp-json;circuitId=authV2;alg=groth16'],
    });
    // Only the fresh uuid and the creation time differ between two calls.
    expect(request).toEqual(JSON.parse(JSON.stringify({ ...made, id: request.id, thid: request.id, created_time: request.created_time })));
    expect(request.body.scope).toEqual([{ id: expect.any(Number), circuitId: 'credentialAtomicQueryV3', query: { allowedIssuers: ['*'], type: 'KYCAgeCredential', context: CONTEXT_URL, credentialSubject: { birthday: {} } } }]);
    expect(request.expires_time - Number(request.created_time)).toBe(3600);

    const linked = await runVcInProcess(['verifier', 'auth-request', '--link'], { home, env });
    expect(linked.status, linked.stderr).toBe(0);
    const [universal, deep] = linked.stdout.trim().split('\n') as [string, string];
    const carried = JSON.parse(Buffer.from(universal.replace('https://wallet.privado.id/#i_m=', ''), 'base64').toString('utf8')) as Json;
    expect(carried).toMatchObject({ type: 'https://iden3-communication.io/authorization/1.0/request', from: verifierDid });
    expect(deep).toBe(`iden3comm://?i_m=${universal.split('#i_m=')[1]}`);
  });
});

describe('vc verifier verify --jwz: the answer of a js-sdk wallet', () => {
  it('refuses the token checked against another request, with the reason', async () => {
    ok(await vc(['verifier', 'auth-request', '--type', 'KYCAgeCredential', '--context-url', CONTEXT_URL, '--field', 'birthday', '--op', '$sd', '-o', file('other.json')]));
    const other = JSON.parse(readFileSync(file('other.json'), 'utf8')) as { id: string };
    const refused = await verify(token, file('other.json'));
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.result).toMatchObject({ verified: false, request: other.id, reason: `the token answers request ${request.id}, not ${other.id}` });
  }, LONG);

  it('refuses a token with one byte of its proof or of its payload changed', async () => {
    const [header, payload, proof] = token.split('.') as [string, string, string];
    const proofText = Buffer.from(proof, 'base64url').toString('utf8');
    // One digit of the proof's first point changed (still a number, so the token still parses).
    const at = proofText.indexOf('"pi_a":["') + 12;
    const changedProof = proofText.slice(0, at) + (proofText[at] === '1' ? '2' : '1') + proofText.slice(at + 1);
    const badProof = await verify(`${header}.${payload}.${Buffer.from(changedProof).toString('base64url')}`, file('request.json'));
    expect(badProof.status, badProof.stderr).toBe(1);
    expect(badProof.result).toMatchObject({ verified: false, reason: 'the auth proof (authV2) does not verify against the token' });

    const payloadText = Buffer.from(payload, 'base64url').toString('utf8');
    // One byte of the message changed: the reason the wallet gives.
    const changedPayload = payloadText.replace('"message":"', '"message":"x');
    expect(changedPayload).not.toBe(payloadText);
    const badPayload = await verify(`${header}.${Buffer.from(changedPayload).toString('base64url')}.${proof}`, file('request.json'));
    expect(badPayload.status, badPayload.stderr).toBe(1);
    expect(badPayload.result).toMatchObject({ verified: false, reason: 'the auth proof (authV2) does not verify against the token' });
  }, LONG);

  it('refuses it once the request has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date((request.expires_time + 1) * 1000));
      const expired = await verify(token, file('request.json'));
      expect(expired.status, expired.stderr).toBe(1);
      expect(expired.result).toMatchObject({ verified: false, reason: `request ${request.id} expired at ${new Date(request.expires_time * 1000).toISOString()}` });
    } finally {
      vi.useRealTimers();
    }
  }, LONG);

  it('verifies it: the sender is the wallet DID, the birthday disclosed (given again by the re-run of a command killed before its output); the same token again is a replay', async () => {
    // Killed once the token is recorded as accepted but before the result is printed: the re-run
    // of the same command gives the result, not "replayed" (the answer would be lost to the verifier).
    writeFileSync(file('answer.jwz'), token);
    const killed = runVc(['--json', 'verifier', 'verify', '--jwz', file('answer.jwz'), '--request', file('request.json')], { home, env: { ...env, VC_CRASH_AT: 'output:pending' } });
    expect(killed.status).not.toBe(0);
    expect(killed.stdout).toBe('');
    const verified = await verify(token, file('request.json'));
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.result).toMatchObject({
      verified: true,
      request: request.id,
      from: holder.string(),
      disclosed: { birthday: String(BIRTHDAY) },
      proofs: [{ id: request.body.scope[0]!.id, circuitId: 'credentialAtomicQueryV3-16-16-64', type: 'KYCAgeCredential', field: 'birthday', operator: '$sd', disclosed: String(BIRTHDAY) }],
    });
    const again = await verify(token, file('request.json'));
    expect(again.status, again.stderr).toBe(1);
    expect(String(again.result.reason)).toMatch(/^replayed: this token was accepted already, at \d{4}-/);
    // The same answer with its proof re-encoded (another token text, the same signed message) is the same replay.
    const [header, payload, proof] = token.split('.') as [string, string, string];
    const reencoded = `${header}.${payload}.${Buffer.from(JSON.stringify(JSON.parse(Buffer.from(proof, 'base64url').toString('utf8')), null, 1)).toString('base64url')}`;
    expect(reencoded).not.toBe(token);
    const disguised = await verify(reencoded, file('request.json'));
    expect(disguised.status, disguised.stderr).toBe(1);
    expect(String(disguised.result.reason)).toMatch(/^replayed: /);
  }, LONG);

  it('vc serve --role verifier: the session is verified; the token posted to its callback again is a replay, refused (422)', async () => {
    const verifierService = await startVcServe(home, ['--role', 'verifier'], { env });
    try {
      const base = verifierService.urls.verifier!;
      const status = async (): Promise<Json> => (await (await fetch(`${base}/auth-requests/${request.id}/status`)).json()) as Json;
      expect(await status()).toMatchObject({ id: request.id, status: 'verified', from: holder.string(), disclosed: { birthday: String(BIRTHDAY) } });
      expect(await (await fetch(`${base}/auth-requests/${request.id}`)).json()).toEqual(request);
      const posted = await fetch(`${base}/callback?sessionId=${request.id}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: token });
      expect(posted.status).toBe(422);
      expect(await posted.json()).toMatchObject({ verified: false, request: request.id, reason: expect.stringMatching(/^replayed: /) });
      expect(await status()).toMatchObject({ status: 'verified' });

      // The callback is open: a token whose authV2 proof does not verify (anyone can post one) is
      // refused, and leaves a fresh session pending (it says nothing of the session's holder).
      const fresh = (await (await fetch(`${base}/auth-requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: '$sd', expires: 600 }) })).json()) as Json & { id: string; from: string };
      const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
      const payload = b64({ id: 'forged', thid: fresh.id, type: 'https://iden3-communication.io/authorization/1.0/response', from: holder.string(), to: fresh.from, body: { scope: [] } });
      const g1 = ['1', '2', '1'];
      const forged = `${b64({ alg: 'groth16', circuitId: 'authV2', crit: ['circuitId'], typ: 'application/iden3-zkp-json' })}.${payload}.${b64({ proof: { pi_a: g1, pi_b: [['1', '0'], ['2', '0'], ['1', '0']], pi_c: g1, protocol: 'groth16', curve: 'bn128' }, pub_signals: ['1', '2', '3'] })}`;
      const refused = await fetch(`${base}/callback?sessionId=${fresh.id}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: forged });
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ verified: false, reason: 'the auth proof (authV2) does not verify against the token' });
      expect(await (await fetch(`${base}/auth-requests/${fresh.id}/status`)).json()).toEqual({ id: fresh.id, status: 'pending' });
    } finally {
      await verifierService.stop();
    }
  }, LONG);
});
