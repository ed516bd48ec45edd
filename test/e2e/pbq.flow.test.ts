/**
 * Proof by query end to end on the embedded chain, through separate `vc` invocations on one
 * fresh home (holder DID, issuer DID, request, issue, prove-submit, on-chain status), the spec 2.3
 * credential shape field by field, and the rejections: a query the credential does not satisfy,
 * a revoked credential, a proof submitted from another address (challenge binding), an issuer
 * outside allowedIssuers, and a re-submission. Where vc refuses early with a clear reason, the
 * test also shows the circuit or the contract refusing on its own (precheck off).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { generateQueryProof, submitQueryProof } from '../../src/core/pbq/prove.js';
import { createCredentialRequest } from '../../src/core/pbq/request.js';
import { pbqCredentialSchema, type CredentialRequest } from '../../src/core/pbq/pbqSchemas.js';
import { NetworkError, UnprocessableError, isVcError } from '../../src/errors.js';
import { getIden3 } from '../../src/iden3/wallet.js';
import { childEnv, ROOT, runVc, runVcInProcess, tempDir, templateHome } from '../helpers.js';

type Json = Record<string, unknown>;

/** anvil's first and second development accounts (public test keys). */
const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const OTHER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const HEX64 = /^[0-9a-f]{64}$/;
/** Proofs on a loaded 2-core machine: generous per-test limits. */
const LONG = 900_000;

const tmp = tempDir('vc-pbq-flow-');
const home = templateHome(path.join(tmp.dir, 'home'));
const file = (name: string): string => path.join(tmp.dir, name);
const readJson = <T = Json>(name: string): T => JSON.parse(readFileSync(file(name), 'utf8')) as T;
const env: Record<string, string | undefined> = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE, CIRCUITS_PATH: process.env.CIRCUITS_PATH };

/** In this process (no node start-up): these tests are about what the commands do (the script runs the binary). */
function vc(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  return runVcInProcess(['--json', ...args], { home, env: { ...env, ...extraEnv } });
}

function context(vars: Record<string, string> = {}): Context {
  const merged: Record<string, string> = { ...vars };
  if (env.CIRCUITS_PATH !== undefined) merged.CIRCUITS_PATH = env.CIRCUITS_PATH;
  return new Context({ config: parseConfig(merged, home) });
}

let holderDid: string;
let issuerDid: string;
const offLoopback: string[] = [];
const realFetch = globalThis.fetch;

// Contexts, schemas and RHS nodes must all resolve offline: record any other fetch and fail it.
globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') {
    offLoopback.push(url.href);
    throw new Error(`network access to ${url.href} during an offline test`);
  }
  return realFetch(input, init);
}) as typeof fetch;

beforeAll(async () => {
  const holder = await vc(['holder', 'did', 'create']);
  expect(holder.status, holder.stderr).toBe(0);
  holderDid = holder.json<{ did_String: string }>().did_String;
  const issuer = await vc(['issuer', 'did', 'create']);
  expect(issuer.status, issuer.stderr).toBe(0);
  const { payload } = issuer.json<{ payload: { method: string; id: string } }>();
  issuerDid = `did:${payload.method}:${payload.id}`;
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  expect(offLoopback).toEqual([]);
  runVc(['chain', 'down'], { home, env });
  tmp.cleanup();
});

describe('the whole flow through separate invocations', () => {
  it('test/e2e/pbq.flow.sh: holder DID, issuer DID, request, issue, prove-submit; the contract agrees', async () => {
    const script = spawnSync('bash', [path.join(ROOT, 'test', 'e2e', 'pbq.flow.sh'), tmp.dir], {
      env: childEnv({ ...env, VC_HOME: home }),
      encoding: 'utf8',
      timeout: LONG,
    });
    expect(script.status, script.stderr).toBe(0);
    const req = readJson<CredentialRequest>('request.json');
    expect(req).toMatchObject({
      circuitId: 'credentialAtomicQueryMTPV2OnChain',
      query: { allowedIssuers: ['*'], type: 'PassportCredential', credentialSubject: { birthDate: { $lt: 20010101 } } },
    });
    expect(Number.isSafeInteger(req.id)).toBe(true);
    expect(readJson('holder.json').did_String).toBe(holderDid);

    const mapping = readJson('result.json');
    expect(mapping[String(req.id)]).toBe(true);
    expect(mapping.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(mapping.sender).toBe(DEV_ADDRESS);
    expect(readJson('status.json')).toMatchObject({ requestId: req.id, address: DEV_ADDRESS, isVerified: true });

    const again = await vc(['holder', 'prove-submit', '--credential', file('credential.json'), '--request', file('request.json')]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/ProofAlreadyVerified/);
  }, LONG);

  it('the issued credential has the spec 2.3 shape, field by field', async () => {
    const { message, credential } = readJson<{ message: string; credential: Json }>('credential.json');
    expect(typeof message).toBe('string');
    expect(Object.keys(credential).sort()).toEqual(['@context', 'credentialSchema', 'credentialStatus', 'credentialSubject', 'id', 'issuanceDate', 'issuer', 'proof', 'type']);
    expect(credential.id).toMatch(/^urn:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((credential['@context'] as unknown[]).every((c) => typeof c === 'string' && c.startsWith('https://'))).toBe(true);
    expect(credential.type).toEqual(['VerifiableCredential', 'PassportCredential']);
    expect(credential.issuer).toBe(issuerDid);
    expect(credential.issuanceDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(credential.credentialSchema).toEqual({ id: expect.stringMatching(/^https:\/\//), type: 'JsonSchema2023' });

    const status = credential.credentialStatus as Json;
    expect(Object.keys(status).sort()).toEqual(['id', 'revocationNonce', 'type']);
    expect(new URL(status.id as string).searchParams.get('state')).toMatch(HEX64);
    expect(status.type).toBe('Iden3ReverseSparseMerkleTreeProof');
    expect(Number.isInteger(status.revocationNonce)).toBe(true);

    const subject = credential.credentialSubject as Json;
    expect(Object.keys(subject).sort()).toEqual(['birthDate', 'customerReference', 'expiryDate', 'id', 'name', 'nationality', 'passportNumber', 'publicAddress', 'type']);
    expect(subject.id).toBe(holderDid);
    expect(typeof subject.name).toBe('string');
    expect(typeof subject.passportNumber).toBe('string');
    expect(subject.nationality).toMatch(/^[A-Z]{3}$/);
    expect(String(subject.birthDate)).toMatch(/^\d{8}$/);
    expect(Number.isInteger(subject.birthDate)).toBe(true);
    expect(subject.customerReference).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Number.isInteger(subject.expiryDate)).toBe(true);
    expect(subject.publicAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(subject.type).toBe('PassportCredential');

    const proofs = credential.proof as Json[];
    expect(proofs).toHaveLength(2);
    const [sig, mtp] = proofs as [Json, Json];
    expect(sig.type).toBe('BJJSignature2021');
    expect(Object.keys(sig).sort()).toEqual(['coreClaim', 'issuerData', 'signature', 'type']);
    const sigIssuer = sig.issuerData as Json;
    expect(sigIssuer.id).toBe(issuerDid);
    const sigState = sigIssuer.state as Json;
    for (const key of ['rootOfRoots', 'revocationTreeRoot', 'claimsTreeRoot', 'value']) expect(sigState[key]).toMatch(HEX64);
    expect(typeof (sigIssuer.mtp as Json).existence).toBe('boolean');
    expect(Array.isArray((sigIssuer.mtp as Json).siblings)).toBe(true);
    expect(sigIssuer.authCoreClaim).toMatch(/^[0-9a-f]+$/);
    expect(Object.keys(sigIssuer.credentialStatus as Json).sort()).toEqual(['id', 'revocationNonce', 'type']);
    expect(sig.coreClaim).toMatch(/^[0-9a-f]+$/);
    expect(sig.signature).toMatch(/^[0-9a-f]+$/);

    expect(mtp.type).toBe('Iden3SparseMerkleTreeProof');
    const mtpIssuer = mtp.issuerData as Json;
    expect(mtpIssuer.id).toBe(issuerDid);
    const mtpState = mtpIssuer.state as Json;
    for (const key of ['claimsTreeRoot', 'revocationTreeRoot', 'rootOfRoots', 'value']) expect(mtpState[key]).toMatch(HEX64);
    expect(mtpState.txId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(mtp.coreClaim).toBe(sig.coreClaim);
    const proof = mtp.mtp as Json;
    expect(proof.existence).toBe(true);
    expect((proof.siblings as unknown[]).every((s) => typeof s === 'string' && /^\d+$/.test(s))).toBe(true);
  }, LONG);
});

describe('rejections', () => {
  it('a credential whose value does not satisfy the query: refused by vc, and by the circuit itself', async () => {
    const request = await vc(['verifier', 'request', '--field', 'birthDate', '--op', '$lt', '--value', '19800101', '-o', file('young.json')]);
    expect(request.status, request.stderr).toBe(0);
    const refused = await vc(['holder', 'prove-submit', '--credential', file('credential.json'), '--request', file('young.json')]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/does not satisfy the query: credentialSubject.birthDate = 19900101 is not \$lt 19800101/);

    const ctx = context();
    try {
      const credential = pbqCredentialSchema.parse(readJson<{ credential: Json }>('credential.json').credential);
      await expect(generateQueryProof(ctx, { credential, request: readJson<CredentialRequest>('young.json'), sender: DEV_ADDRESS, precheck: false })).rejects.toThrow(/the circuit refused the inputs/);
    } finally {
      await ctx.close();
    }
  }, LONG);

  it('an unreachable chain while resolving the revocation status is a network failure (exit 4), not a verdict', async () => {
    const ctx = context({ RPC_URL: 'http://127.0.0.1:1', WALLET_KEY: OTHER_KEY });
    try {
      const credential = pbqCredentialSchema.parse(readJson<{ credential: Json }>('credential.json').credential);
      const error = await generateQueryProof(ctx, { credential, request: readJson<CredentialRequest>('request.json'), sender: DEV_ADDRESS }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).exitCode).toBe(4);
      expect((error as Error).message).toMatch(/127\.0\.0\.1:1/);
    } finally {
      await ctx.close();
    }
  }, LONG);

  it('a proof submitted from another address is rejected by the contract (challenge binding); the contract refuses a replay', async () => {
    const ctx = context();
    const other = context({ WALLET_KEY: OTHER_KEY });
    try {
      const request = await createCredentialRequest(ctx, {});
      const credential = pbqCredentialSchema.parse(readJson<{ credential: Json }>('credential.json').credential);
      const { response } = await generateQueryProof(ctx, { credential, request, sender: DEV_ADDRESS });
      await expect(submitQueryProof(other, response)).rejects.toMatchObject({ exitCode: 1, revertName: 'ChallengeShouldMatchTheSender' });
      const accepted = await submitQueryProof(ctx, response);
      expect(accepted.sender).toBe(DEV_ADDRESS);
      await expect(submitQueryProof(ctx, response)).rejects.toMatchObject({ exitCode: 1, revertName: 'ProofAlreadyVerified' });
    } finally {
      await other.close();
      await ctx.close();
    }
  }, LONG);

  it('a credential from an issuer outside allowedIssuers: refused by vc, and by the contract', async () => {
    const request = await vc(['verifier', 'request', '--allowed-issuers', holderDid, '-o', file('allowed.json')]);
    expect(request.status, request.stderr).toBe(0);
    const refused = await vc(['holder', 'prove-submit', '--credential', file('credential.json'), '--request', file('allowed.json')]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/not among the request's allowedIssuers/);

    const ctx = context();
    try {
      const credential = pbqCredentialSchema.parse(readJson<{ credential: Json }>('credential.json').credential);
      const { response } = await generateQueryProof(ctx, { credential, request: readJson<CredentialRequest>('allowed.json'), sender: DEV_ADDRESS, precheck: false });
      await expect(submitQueryProof(ctx, response)).rejects.toMatchObject({ exitCode: 1, revertName: 'IssuerIsNotOnTheAllowedIssuersList' });
    } finally {
      await ctx.close();
    }
  }, LONG);

  it('a revoked credential: revoke publishes a new state and the credential can no longer prove', async () => {
    // The flow's credential, which the tests above have used: this test comes last among them.
    const nonce = readJson<{ credential: { credentialStatus: { revocationNonce: number } } }>('credential.json').credential.credentialStatus.revocationNonce;
    // A publication that fails (the reverse hash service is down) leaves the nonce in the local
    // tree but not on chain: the retry must publish it instead of answering "already revoked".
    const failed = await vc(['issuer', 'revoke', '--nonce', String(nonce)], { RHS_URL: 'http://127.0.0.1:1' });
    expect(failed.status, failed.stderr).toBe(4);
    expect(failed.stderr).toMatch(/RHS_URL=http:\/\/127.0.0.1:1/);
    const revoked = await vc(['issuer', 'revoke', '--nonce', String(nonce)]);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(revoked.json<Json>()).toMatchObject({ nonce, txId: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect((await vc(['issuer', 'revoke', '--nonce', String(nonce)])).status).toBe(2);

    expect((await vc(['verifier', 'request', '-o', file('fresh.json')])).status).toBe(0);
    const refused = await vc(['holder', 'prove-submit', '--credential', file('credential.json'), '--request', file('fresh.json')]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/revoked/);

    const ctx = context();
    try {
      const credential = pbqCredentialSchema.parse(readJson<{ credential: Json }>('credential.json').credential);
      await expect(generateQueryProof(ctx, { credential, request: readJson<CredentialRequest>('fresh.json'), sender: DEV_ADDRESS, precheck: false })).rejects.toThrow(/the circuit refused the inputs/);
    } finally {
      await ctx.close();
    }
  }, LONG);
});

describe('state reads on the State contract', () => {
  it('go through the chain client: revert reasons stay recognisable, failures are vc errors', async () => {
    const ctx = context();
    try {
      const iden3 = await getIden3(ctx);
      const { core, sdk } = iden3.modules;
      const idOf = (did: string): bigint => core.DID.idFromDID(core.DID.parse(did)).bigInt();
      const issuerState = await iden3.states.getLatestStateById(idOf(issuerDid));
      expect(issuerState.id).toBe(idOf(issuerDid));
      const state = issuerState.state ?? 0n;
      expect(state).toBeGreaterThan(0n);
      expect(await iden3.states.getStateInfoByIdAndState(idOf(issuerDid), state)).toEqual(issuerState);
      const gist = await iden3.states.getGISTProof(idOf(issuerDid));
      expect(gist.existence).toBe(true);
      expect((await iden3.states.getGISTRootInfo(gist.root, idOf(issuerDid))).root).toBe(gist.root);

      // The holder never published a state: the contract reverts "Identity does not exist".
      const missing = await iden3.states.getLatestStateById(idOf(holderDid)).catch((e: unknown) => e);
      expect(isVcError(missing)).toBe(true);
      expect(sdk.isIdentityDoesNotExistError(missing)).toBe(true);

      // An identity of another chain is not read from this State contract.
      const foreign = core.DID.idFromDID(core.DID.parse('did:polygonid:polygon:amoy:2qQ68JkRcf3xrHPQPWZei3YeVzHPP58wYNxx2mEouR')).bigInt();
      await expect(iden3.states.getLatestStateById(foreign)).rejects.toBeInstanceOf(UnprocessableError);
    } finally {
      await ctx.close();
    }
  }, LONG);
});
