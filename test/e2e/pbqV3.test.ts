/**
 * The V3 on-chain slice end to end on the embedded chain of one home: a credential signed without
 * any state transition (`vc issuer issue --proof sig`) proved at once with a signature proof of
 * credentialAtomicQueryV3OnChain ($between), the proof checked with snarkjs against vc's own key
 * and refused by the contract for another request (query hash), an authV2 auth proof made by vc
 * for it refused by the contract when tampered and when given with other responses (its challenge
 * is the UniversalVerifier's, the js-sdk's calcChallengeAuth) and accepted as vc submits it with
 * the authV2 auth method, a revoked credential refused by vc and by the circuit, and `--proof
 * both` credentials whose claims the next issuance or `vc issuer publish` publishes, the holder's
 * upgraded copy then proved with an MTP proof disclosing birthDate on chain ($sd, asked by a
 * contract-invoke-request that `vc holder respond` answers, read back by `vc verifier status`),
 * and a nullifier: a request with a
 * nullifier session proved with a credential issued to a profile DID, whose nullifier on chain is
 * the circuit's formula computed here with @iden3/js-crypto, and a second proof of it from another
 * address refused before proving (submitted with an authV3-8-32 auth proof, which the contract
 * refuses tampered). Proofs are costly: three full V3 proofs and three state transitions in all.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { poseidon } from '@iden3/js-crypto';
import { Claim, DID, Id, genesisFromEthAddress } from '@iden3/js-iden3-core';
import { Contract, Wallet, getBytes } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { Context } from '../../src/context.js';
import { getChain } from '../../src/chain/chainClient.js';
import { AuthMethod, CircuitId, OnChainZKPVerifier, calcChallengeAuth, type ZeroKnowledgeProofResponse } from '@0xpolygonid/js-sdk';
import { sendContractTransaction } from '../../src/chain/transactions.js';
import { authProofChallenge, generateQueryProof, packAuthProof, submitQueryProof } from '../../src/core/pbq/prove.js';
import { universalVerifierAbi } from '../../src/core/pbq/request.js';
import { SUBMISSIONS_NS, submissionKey } from '../../src/core/iden3comm/contractRespond.js';
import { isRequestProofVerified } from '../../src/chain/universalVerifier.js';
import type { CredentialRequest, PbqCredentialInput } from '../../src/core/pbq/pbqSchemas.js';
import { getIden3Prover } from '../../src/iden3/wallet.js';
import { jsonError, runVc, runVcAsync, runVcInProcess, tempDir, templateHome } from '../helpers.js';

type Json = Record<string, unknown>;

/** anvil's first development account (public test key): the default submitter. */
const DEV_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const V3 = 'credentialAtomicQueryV3OnChain';
const CONTRACT_INVOKE_REQUEST = 'https://iden3-communication.io/proofs/1.0/contract-invoke-request';
const CONTRACT_INVOKE_RESPONSE = 'https://iden3-communication.io/proofs/1.0/contract-invoke-response';
/** The sample passport's birthDate (fixtures/subjects/passport.json). */
const BIRTH_DATE = 19900101;
/** Proofs and a first V3 circuit build on a loaded 2-core machine: generous limits. */
const LONG = 900_000;

const tmp = tempDir('vc-pbq-v3-');
const home = templateHome(path.join(tmp.dir, 'home'));
const file = (name: string): string => path.join(tmp.dir, name);
const readJson = <T = Json>(name: string): T => JSON.parse(readFileSync(file(name), 'utf8')) as T;
const env: Record<string, string | undefined> = { VC_CIRCUITS_CACHE: process.env.VC_CIRCUITS_CACHE };

function vc(args: string[]) {
  return runVcInProcess(['--json', ...args], { home, env });
}

/** Runs a command that must succeed; its result (from the `-o` file when one is given). */
async function ok(args: string[]): Promise<Json> {
  const run = await vc(args);
  expect(run.status, run.stderr).toBe(0);
  const output = args.indexOf('-o');
  if (output >= 0) return JSON.parse(readFileSync(args[output + 1]!, 'utf8')) as Json;
  return run.stdout.trim() === '' ? {} : run.json<Json>();
}

let holderDid: string;
let ctx: Context;

beforeAll(async () => {
  holderDid = String((await ok(['holder', 'did', 'create'])).did_String);
  await ok(['issuer', 'did', 'create']);
  ctx = new Context({ config: parseConfig({}, home) });
}, LONG);

afterAll(async () => {
  await ctx?.close();
  await vc(['chain', 'down']);
  tmp.cleanup();
});

describe('V3 requests are refused where they do not fit, before anything reaches the chain', () => {
  it('a V3 operator or a proof type without --circuit credentialAtomicQueryV3OnChain names the flag', async () => {
    const sd = await vc(['verifier', 'request', '--op', '$sd']);
    expect(sd.status).toBe(2);
    expect(jsonError(sd.stderr)).toMatchObject({ field: '--op', message: expect.stringContaining(`needs --circuit ${V3}`) });
    const sig = await vc(['verifier', 'request', '--proof-type', 'sig']);
    expect(sig.status).toBe(2);
    expect(jsonError(sig.stderr)).toMatchObject({ field: '--proof-type', message: expect.stringContaining('MTP proof only') });
    const between = await vc(['verifier', 'request', '--circuit', V3, '--op', '$between', '--value', '19900101']);
    expect(between.status).toBe(2);
    expect(jsonError(between.stderr)).toMatchObject({ field: '--value', message: expect.stringContaining('two values') });
    const sdValue = await vc(['verifier', 'request', '--circuit', V3, '--op', '$sd', '--value', '1']);
    expect(sdValue.status).toBe(2);
    expect(jsonError(sdValue.stderr).message).toMatch(/\$sd takes no value/);
  });
});

describe('a signature credential, proved at once', () => {
  let credential: PbqCredentialInput;
  let between: CredentialRequest;

  it('is issued without a state transition, carrying the BJJSignature2021 proof only', async () => {
    const chain = await getChain(ctx);
    const blockBefore = await chain.provider.getBlockNumber();
    await ok(['issuer', 'issue', '--proof', 'sig', '--holder', holderDid, '-o', file('signed.json')]);
    credential = readJson<{ credential: PbqCredentialInput }>('signed.json').credential;
    expect(credential.proof.map((p) => p.type)).toEqual(['BJJSignature2021']);
    expect(await chain.provider.getBlockNumber()).toBe(blockBefore);
  }, LONG);

  it('proves a V3 $between request with a signature proof that snarkjs verifies against vc key, and the contract accepts for that request only', async () => {
    between = (await ok(['verifier', 'request', '--circuit', V3, '--proof-type', 'sig', '--op', '$between', '--value', '19800101,19991231', '-o', file('between.json')])) as unknown as CredentialRequest;
    expect(between).toMatchObject({ circuitId: V3, query: { proofType: 'BJJSignature2021', credentialSubject: { birthDate: { $between: [19800101, 19991231] } } } });
    const other = (await ok(['verifier', 'request', '--circuit', V3, '--op', '$eq', '--value', String(BIRTH_DATE)])) as unknown as CredentialRequest;

    const { response } = await generateQueryProof(ctx, { credential, request: between, sender: DEV_ADDRESS });
    // The js-sdk picks the 16-16-64-16-32 size for a development chain's shallow trees.
    expect(response.circuitId).toBe(`${V3}-16-16-64-16-32`);
    const signals = response.pub_signals;
    expect(signals).toHaveLength(14);
    // userID, circuitQueryHash, issuerState, linkID, nullifier, operatorOutput, proofType, requestID, ...
    expect(signals[6]).toBe('1');
    expect(signals[7]).toBe(String(between.id));
    expect(signals[13]).toBe('1');

    const { circuitsDir } = await getIden3Prover(ctx, 'v3');
    const key = JSON.parse(readFileSync(path.join(circuitsDir, response.circuitId, 'verification_key.json'), 'utf8')) as unknown;
    const snarkjs = (await import('snarkjs' as string)) as { groth16: { verify(vk: unknown, signals: string[], proof: unknown): Promise<boolean> } };
    expect(await snarkjs.groth16.verify(key, signals, response.proof)).toBe(true);
    const tampered = [...signals];
    tampered[5] = '1';
    expect(await snarkjs.groth16.verify(key, tampered, response.proof)).toBe(false);

    // The same proof given for another request: its query hash is not that request's.
    await expect(submitQueryProof(ctx, { ...response, id: other.id })).rejects.toMatchObject({ exitCode: 1, revertName: 'QueryHashDoesNotMatchTheRequestedOne' });

    // An authV2 auth proof (vc's prover, vc's authV2 circuit) over the challenge the contract
    // computes, which is the js-sdk's calcChallengeAuth: refused tampered, and for other responses.
    const { chainId, addresses } = await getChain(ctx);
    const txData = { contract_address: addresses.universalVerifier, method_id: '06c86a91', chain_id: chainId };
    const submitArgs = async (responses: ZeroKnowledgeProofResponse[]): Promise<unknown[]> =>
      (await OnChainZKPVerifier.prepareTxArgsSubmit('http://127.0.0.1:0/unused', txData, responses, { authMethod: AuthMethod.EMBEDDED_AUTH } as never)).txDataArgs as unknown[];
    const args = await submitArgs([response]);
    const challenge = await authProofChallenge(DEV_ADDRESS, args[1] as never);
    expect(challenge).toBe(calcChallengeAuth(DEV_ADDRESS, [response]));
    const auth = await (await getIden3Prover(ctx, 'v3auth')).proofService.generateAuthProof(CircuitId.AuthV2, DID.parse(holderDid), { challenge });
    expect(auth.pub_signals[1]).toBe(challenge.toString());
    const submit = async (authProof: { pub_signals: string[]; proof: unknown }, txArgs: unknown[]): Promise<unknown> =>
      sendContractTransaction(
        ctx,
        { address: addresses.universalVerifier, abi: universalVerifierAbi(), method: 'submitResponse', args: [{ authMethod: 'authV2', proof: await packAuthProof(authProof as never) }, txArgs[1], txArgs[2]] },
        { description: 'submitResponse (authV2)' },
      );
    await expect(submit({ ...auth, pub_signals: [auth.pub_signals[0]!, String(challenge + 1n), auth.pub_signals[2]!] }, args)).rejects.toMatchObject({ exitCode: 1, revertName: 'ProofIsNotValid' });
    const piA = (auth.proof as { pi_a: string[] }).pi_a;
    await expect(submit({ ...auth, proof: { ...(auth.proof as object), pi_a: [piA[1], piA[0], piA[2]] } }, args)).rejects.toMatchObject({ exitCode: 1, revertName: 'ProofIsNotValid' });
    await expect(submit(auth, await submitArgs([{ ...response, id: other.id }]))).rejects.toMatchObject({ exitCode: 1, revertName: 'ChallengeIsInvalid' });
    // Submitted by vc with the authV2 auth method (its own authV2 proof over this challenge), accepted.
    expect(await submitQueryProof(ctx, response, { auth: { holder: holderDid, method: 'authV2' } })).toMatchObject({ authMethod: 'authV2' });
    const status = await ok(['verifier', 'status', '--request', String(between.id), '--address', DEV_ADDRESS]);
    expect(status).toMatchObject({ isVerified: true, circuitId: V3, responseFields: { linkID: '0', nullifier: '0' } });
    expect(status.disclosed).toBeUndefined();
  }, LONG);

  it('an MTP request refuses the signature-only credential before proving, naming what is missing', async () => {
    await ok(['verifier', 'request', '--circuit', V3, '--proof-type', 'mtp', '--op', '$eq', '--value', String(BIRTH_DATE), '-o', file('mtp.json')]);
    const run = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', file('mtp.json')]);
    expect(run.status).toBe(2);
    expect(jsonError(run.stderr).message).toMatch(/asks for an Iden3SparseMerkleTreeProof proof, and the credential has none yet/);
    // An auth method the request or the holder cannot use is refused before anything is proved, naming --auth.
    await ok(['verifier', 'request', '-o', file('v2.json')]);
    const v2 = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', file('v2.json'), '--auth', 'authV2']);
    expect(v2.status).toBe(2);
    expect(jsonError(v2.stderr)).toMatchObject({ field: '--auth', message: `--auth: authV2 is for ${V3} requests; a credentialAtomicQueryMTPV2OnChain proof carries its own auth (embeddedAuth)` });
    const eth = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', file('between.json'), '--auth', 'ethIdentity']);
    expect(eth.status).toBe(2);
    expect(jsonError(eth.stderr)).toMatchObject({ field: '--auth', message: expect.stringContaining(`ethIdentity is for a holder whose DID is its Ethereum address, and ${holderDid} is not one`) });
    const bogus = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', file('between.json'), '--auth', 'authV4']);
    expect(bogus.status).toBe(2);
    expect(jsonError(bogus.stderr).message).toMatch(/--auth.*authV4.*embeddedAuth.*authV2.*authV3.*authV3-8-32.*ethIdentity/);
    // Without a credential, the held ones are chosen among those with a proof the request can use.
    const chosen = await vc(['holder', 'prove-submit', '--request', file('mtp.json')]);
    expect(chosen.status).toBe(2);
    expect(jsonError(chosen.stderr).message).toMatch(/the holder has no iden3 PassportCredential credential with the context \S+ and a proof the request can use \(Iden3SparseMerkleTreeProof\)/);
  }, LONG);

  it('once revoked, vc refuses it with the reason, and the circuit refuses it too', async () => {
    await ok(['issuer', 'revoke', '--revocation-nonce', String(credential.credentialStatus.revocationNonce)]);
    const request = (await ok(['verifier', 'request', '--circuit', V3, '--proof-type', 'sig', '--op', '$eq', '--value', String(BIRTH_DATE), '-o', file('after.json')])) as unknown as CredentialRequest;
    const run = await vc(['holder', 'prove-submit', '--credential', file('signed.json'), '--request', file('after.json')]);
    expect(run.status).toBe(1);
    expect(jsonError(run.stderr).message).toMatch(/the credential is revoked \(revocation nonce \d+ is in the issuer's revocation tree\)/);
    const fresh = new Context({ config: ctx.config });
    try {
      await expect(generateQueryProof(fresh, { credential, request, sender: DEV_ADDRESS, precheck: false })).rejects.toThrow(/the circuit refused the inputs/);
    } finally {
      await fresh.close();
    }
  }, LONG);
});

describe('--proof both: signed at once, the Merkle proof added by the next publication', () => {
  const proofTypes = (credential: Json): unknown[] => (credential.proof as Json[]).map((p) => p.type);

  it('the claim waits without a state transition; the next issuance publishes it too, and the issuer and holder copies gain the Merkle proof', async () => {
    const chain = await getChain(ctx);
    const blockBefore = await chain.provider.getBlockNumber();
    const signed = ((await ok(['issuer', 'issue', '--proof', 'both', '--holder', holderDid, '-o', file('swept.json')])) as { credential: Json }).credential;
    expect(proofTypes(signed)).toEqual(['BJJSignature2021']);
    expect(await chain.provider.getBlockNumber()).toBe(blockBefore);

    // An MTP issuance (the group commit of `vc serve` and the CLI alike) carries the waiting claim along.
    const other = ((await ok(['issuer', 'issue', '--holder', holderDid])) as { credential: Json }).credential;
    expect(other.id).not.toBe(signed.id);
    const issued = await ok(['issuer', 'credentials', '--id', String(signed.id)]);
    expect(proofTypes(issued)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
    // The signature is the one given at issuance: the credential gained a proof, nothing else changed.
    expect({ ...issued, proof: undefined }).toEqual({ ...signed, proof: undefined });
    expect((issued.proof as Json[])[0]).toEqual((signed.proof as Json[])[0]);
    const held = await ok(['holder', 'credentials', 'show', String(signed.id)]);
    expect(proofTypes(held.credential as Json)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
    // Nothing waits any more: no state transition.
    const nothing = await ok(['issuer', 'publish']);
    expect(nothing).toMatchObject({ credentials: [] });
    expect(nothing.txId).toBeUndefined();
  }, LONG);

  it('vc issuer publish publishes the waiting claims with one state transition and gives them back with their Merkle proofs', async () => {
    const signed = ((await ok(['issuer', 'issue', '--proof', 'both', '--holder', holderDid])) as { credential: Json }).credential;
    const published = (await ok(['issuer', 'publish', '-o', file('publish.json')])) as { credentials: Array<{ credential: Json }>; txId: string };
    expect(published.txId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(published.credentials.map((c) => c.credential.id)).toEqual([signed.id]);
    expect(proofTypes(published.credentials[0]!.credential)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
    expect(proofTypes((await ok(['holder', 'credentials', 'show', String(signed.id)])).credential as Json)).toEqual(['BJJSignature2021', 'Iden3SparseMerkleTreeProof']);
  }, LONG);

  it("the holder's upgraded copy, chosen without --credential, discloses birthDate on chain with an MTP proof ($sd), asked by a contract-invoke-request; a run killed after its submission is answered again without a second one; vc verifier status shows the value", async () => {
    const request = (await ok(['verifier', 'request', '--circuit', V3, '--bind-verifier', '--proof-type', 'mtp', '--op', '$sd', '-o', file('sd.json')])) as unknown as CredentialRequest;
    expect(request.query.credentialSubject).toEqual({ birthDate: {} });
    const chain = await getChain(ctx);
    const verifier = chain.addresses.universalVerifier;
    // The message comes from the UniversalVerifier's DID: its verifierID (type 0x01A1, from its address), which the proofs carry.
    const verifierDid = DID.parseFromId(new Id(Uint8Array.from([0x01, 0xa1]), genesisFromEthAddress(getBytes(verifier)))).string();
    const invoke = (await ok(['verifier', 'contract-request', '--id', String(request.id), '-o', file('invoke.json')])) as Json & { body: Json };
    expect(invoke).toMatchObject({
      type: CONTRACT_INVOKE_REQUEST,
      typ: 'application/iden3comm-plain-json',
      from: verifierDid,
      body: {
        transaction_data: { contract_address: verifier, method_id: '06c86a91', chain_id: 152, network: 'polygon-local' },
        scope: [{ id: request.id, circuitId: V3, query: request.query }],
        accept: ['iden3comm/v1;env=application/iden3comm-plain-json'],
      },
    });
    expect(invoke.to).toBeUndefined();
    expect(invoke.thid).toBe(invoke.id);

    // What needs the chain is refused before any proof: another contract, a request not registered
    // or registered with another query, and on the verifier's side an id that is no V3 request of its.
    const spoiled = (change: (message: Json & { body: { transaction_data: Json; scope: Array<Json & { query: Json }> } }) => void): string => {
      const message = JSON.parse(JSON.stringify(invoke)) as Json & { body: { transaction_data: Json; scope: Array<Json & { query: Json }> } };
      change(message);
      const name = file(`spoiled-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(name, JSON.stringify(message));
      return name;
    };
    const refusedBeforeProof = async (name: string): Promise<string> => {
      const run = await vc(['holder', 'respond', '--request', name]);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      return jsonError(run.stderr).message;
    };
    const otherContract = spoiled((m) => (m.body.transaction_data.contract_address = chain.addresses.state));
    expect(await refusedBeforeProof(otherContract)).toBe(
      `--request ${otherContract}: transaction_data.contract_address ${chain.addresses.state} is not the UniversalVerifier ${verifier} of chain 152; a wallet acts only on its own chain`,
    );
    const unknown = spoiled((m) => (m.body.scope[0]!.id = 4242));
    expect(await refusedBeforeProof(unknown)).toBe(`--request ${unknown}: scope 4242 (PassportCredential birthDate $sd): request 4242 is not registered on the UniversalVerifier ${verifier}; nothing would verify its proof`);
    const otherQuery = spoiled((m) => (m.body.scope[0]!.query = { ...m.body.scope[0]!.query, credentialSubject: { birthDate: { $lt: 20010101 } } }));
    expect(await refusedBeforeProof(otherQuery)).toMatch(/: scope \d+ \(PassportCredential birthDate \$lt\): not the request \d+ registered on the UniversalVerifier \(credentialAtomicQueryV3OnChain, \{"birthDate":\{\}\}\)/);
    const notRegistered = await vc(['verifier', 'contract-request', '--id', '4242']);
    expect(notRegistered.status).toBe(2);
    expect(jsonError(notRegistered.stderr)).toMatchObject({ field: '--id', message: `--id: request 4242 is not registered on the UniversalVerifier ${verifier} (vc verifier request registers one)` });
    const mtpRequest = (await ok(['verifier', 'request'])) as unknown as CredentialRequest;
    const notV3 = await vc(['verifier', 'contract-request', '--id', `${request.id},${mtpRequest.id}`]);
    expect(notV3.status).toBe(2);
    expect(jsonError(notV3.stderr).message).toMatch(new RegExp(`^--id: request ${mtpRequest.id} is a credentialAtomicQueryMTPV2OnChain request; contract-invoke requests are made for credentialAtomicQueryV3OnChain requests`));
    // A V3 request bound to no verifier: a js-sdk wallet's proof (for the message's verifier) would not match its query hash.
    const unbound = (await ok(['verifier', 'request', '--circuit', V3, '--op', '$sd'])) as unknown as CredentialRequest;
    const notBound = await vc(['verifier', 'contract-request', '--id', String(unbound.id)]);
    expect(notBound.status).toBe(2);
    expect(jsonError(notBound.stderr).message).toMatch(new RegExp(`^--id: request ${unbound.id} is not bound to the UniversalVerifier \\(registered with verifierID 0\\).*--bind-verifier`));
    const mtpBound = await vc(['verifier', 'request', '--bind-verifier']);
    expect(mtpBound.status).toBe(2);
    expect(jsonError(mtpBound.stderr)).toMatchObject({ field: '--bind-verifier', message: expect.stringContaining('credentialAtomicQueryMTPV2OnChain has no verifierID') });
    // attack-s36b: an answer is never half-submitted. Whatever any item cannot pass is refused
    // before the first submission: an id asked twice, an MTP item under a request whose profiles
    // allow authV2 only (none named: the js-sdk's default), an MTP item whose query the credential
    // given does not satisfy (found: the V3 item submitted first, then the MTP item refused).
    const unsatisfied = (await ok(['verifier', 'request', '--op', '$eq', '--value', '19000101'])) as unknown as CredentialRequest;
    const scopeItem = (asked: CredentialRequest): Json & { query: Json } => ({ id: asked.id, circuitId: asked.circuitId, query: asked.query as unknown as Json, ...(asked.params === undefined ? {} : { params: asked.params }) });
    writeFileSync(file('upgraded.json'), JSON.stringify(readJson<{ credentials: Array<{ credential: Json }> }>('publish.json').credentials[0]!.credential));
    const blockRefusals = await chain.provider.getBlockNumber();
    const twice = spoiled((m) => m.body.scope.push(m.body.scope[0]!));
    expect(await refusedBeforeProof(twice)).toBe(`--request ${twice}: field body.scope[1].id: request ${request.id} is asked for twice; one proof answers it`);
    const authV2Only = spoiled((m) => {
      m.body.scope.push(scopeItem(mtpRequest));
      delete (m.body as Json).accept;
    });
    const mixed = await vc(['holder', 'respond', '--credential', file('upgraded.json'), '--request', authV2Only]);
    expect(mixed.status, mixed.stderr).toBe(2);
    expect(mixed.stdout).toBe('');
    expect(jsonError(mixed.stderr)).toMatchObject({ field: '--request', message: expect.stringContaining(`--request ${authV2Only}: scope ${mtpRequest.id} `) });
    expect(jsonError(mixed.stderr).message).toMatch(/a credentialAtomicQueryMTPV2OnChain proof carries its own auth .*allow only an auth proof \(authV2, authV3, authV3-8-32\), which is for credentialAtomicQueryV3OnChain items; nothing was submitted$/);
    const notSatisfied = spoiled((m) => m.body.scope.push(scopeItem(unsatisfied)));
    const halfway = await vc(['holder', 'respond', '--credential', file('upgraded.json'), '--request', notSatisfied]);
    expect(halfway.status, halfway.stderr).not.toBe(0);
    expect(halfway.stdout).toBe('');
    expect(jsonError(halfway.stderr).message).toMatch(new RegExp(`^scope ${unsatisfied.id} \\(`));
    expect(await chain.provider.getBlockNumber()).toBe(blockRefusals);
    expect(await isRequestProofVerified(ctx, DEV_ADDRESS, request.id)).toBe(false);

    // attack-s36b: a journaled submission whose transaction the chain does not know (a node
    // restarted from its checkpoint, a pool that dropped it) is submitted anew, not waited for forever.
    const lost = `0x${'5e'.repeat(32)}`;
    ctx.store.put(SUBMISSIONS_NS, submissionKey(chain.chainId, verifier, String(invoke.id), request.id), {
      sender: DEV_ADDRESS,
      txHash: lost,
      response: { id: request.id, circuitId: `${V3}-16-16-64-16-32`, proof: {}, pub_signals: [] },
      sentAt: new Date().toISOString(),
    });
    expect(await chain.provider.getTransaction(lost)).toBeNull();
    const blockBefore = await chain.provider.getBlockNumber();

    // Killed once its output is due (the proof submitted and mined): the re-run answers with that submission.
    const killed = await runVcAsync(['--json', 'holder', 'respond', '--request', file('invoke.json')], { home, env: { ...env, VC_CRASH_AT: 'output:pending' } });
    expect(killed.status).not.toBe(0);
    expect(killed.stdout).toBe('');
    const blockSubmitted = await chain.provider.getBlockNumber();
    expect(blockSubmitted).toBe(blockBefore + 1);
    const response = (await ok(['holder', 'respond', '--request', file('invoke.json'), '-o', file('response.json')])) as Json & { body: { scope: Array<Json>; transaction_data: Json; authProof: Json } };
    expect(await chain.provider.getBlockNumber()).toBe(blockSubmitted);
    expect(response).toMatchObject({ id: invoke.id, thid: invoke.id, type: CONTRACT_INVOKE_RESPONSE, from: holderDid, to: invoke.from, body: { authProof: { authMethod: 'embeddedAuth' } } });
    expect(response.body.scope).toHaveLength(1);
    const [item] = response.body.scope as Array<{ id: number; circuitId: string; txHash: string; pub_signals: string[] }>;
    expect(item).toMatchObject({ id: request.id, circuitId: `${V3}-16-16-64-16-32`, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(item!.txHash).not.toBe(lost);
    expect(response.body.transaction_data).toEqual({ ...invoke.body.transaction_data as Json, txHash: item!.txHash });
    const receipt = await chain.provider.getTransactionReceipt(item!.txHash);
    expect(receipt).toMatchObject({ status: 1, blockNumber: blockSubmitted, to: verifier, from: DEV_ADDRESS });
    // The proof the response carries is the one on chain: its requestID and operatorOutput ($sd) signals.
    expect(item!.pub_signals[7]).toBe(String(request.id));
    expect(item!.pub_signals[5]).toBe(String(BIRTH_DATE));

    const status = await ok(['verifier', 'status', '--request', String(request.id), '--address', DEV_ADDRESS]);
    expect(status).toMatchObject({ isVerified: true, circuitId: V3, disclosed: { birthDate: String(BIRTH_DATE) }, responseFields: { operatorOutput: String(BIRTH_DATE) } });
    // Written out, the answer is done: another run is refused as already verified, submitting nothing.
    const again = await vc(['holder', 'respond', '--request', file('invoke.json')]);
    expect(again.status, again.stderr).toBe(1);
    expect(jsonError(again.stderr).message).toMatch(new RegExp(`ProofAlreadyVerified\\(requestId=${request.id}, sender=${DEV_ADDRESS}\\)`));
    expect(await chain.provider.getBlockNumber()).toBe(blockSubmitted);
  }, LONG);
});

describe('a nullifier: one per holder profile and verifier session', () => {
  /** anvil's second development account (public test key): another submitter. */
  const OTHER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
  const OTHER_ADDRESS = new Wallet(OTHER_KEY).address;
  const SESSION = '770077';
  const PROFILE_NONCE = 7n;

  it('a credential issued to a profile DID proves a nullifier request; the nullifier on chain is the circuit formula; the same nullifier from another address is refused before proving', async () => {
    const profile = await ok(['holder', 'did', 'create', '--profile-nonce', String(PROFILE_NONCE)]);
    expect(profile).toMatchObject({ created: true, genesisDid: holderDid, profileNonce: String(PROFILE_NONCE) });
    const profileDid = String(profile.did_String);
    expect(profileDid).not.toBe(holderDid);
    expect(await ok(['holder', 'did', 'create', '--profile-nonce', String(PROFILE_NONCE)])).toMatchObject({ created: false, did_String: profileDid });
    await ok(['issuer', 'issue', '--proof', 'sig', '--holder', profileDid, '-o', file('profile.json')]);
    const credential = readJson<{ credential: PbqCredentialInput & { proof: Array<{ coreClaim?: string }> } }>('profile.json').credential;

    const request = (await ok(['verifier', 'request', '--circuit', V3, '--op', '$eq', '--value', String(BIRTH_DATE), '--nullifier-session', SESSION, '-o', file('nullifier.json')])) as unknown as CredentialRequest;
    expect(request.params).toEqual({ nullifierSessionId: SESSION });
    // The UniversalVerifier keeps a session for one request.
    const again = await vc(['verifier', 'request', '--circuit', V3, '--nullifier-session', SESSION]);
    expect(again.status).toBe(2);
    expect(jsonError(again.stderr)).toMatchObject({ field: '--nullifier-session', message: expect.stringContaining(`session ${SESSION} is already used by another request`) });
    // A credential issued to the holder's identity itself would give the nullifier 0, which the validator refuses.
    const genesis = await vc(['holder', 'prove-submit', '--credential', file('swept.json'), '--request', file('nullifier.json')]);
    expect(genesis.status).toBe(2);
    expect(jsonError(genesis.stderr).message).toMatch(/asks for a nullifier \(session 770077\), which needs a credential issued to a profile DID/);

    // The chain's session, not the file's, is what the validator checks: a file that differs is refused.
    writeFileSync(file('tampered.json'), JSON.stringify({ ...request, params: { nullifierSessionId: '5' } }));
    const tampered = await vc(['holder', 'prove-submit', '--credential', file('profile.json'), '--request', file('tampered.json')]);
    expect(tampered.status).toBe(2);
    expect(jsonError(tampered.stderr).message).toMatch(new RegExp(`tampered\\.json.*params\\.nullifierSessionId: request ${request.id} is registered on chain with nullifier session ${SESSION}, the request given says 5$`));

    // Chosen without --credential: the holder kept the profile's credential, and a nullifier
    // request takes only credentials issued to a profile. Submitted with an authV3-8-32 auth proof
    // (vc's circuit, built on demand; the chain's authV3-8-32 verifier checked first): its user id
    // is the profile's, as the query proof's.
    expect(await ok(['holder', 'prove-submit', '--request', file('nullifier.json'), '--auth', 'authV3-8-32'])).toMatchObject({ [String(request.id)]: true, authMethod: 'authV3-8-32' });
    const status = await ok(['verifier', 'status', '--request', String(request.id), '--address', DEV_ADDRESS]);

    // A tampered authV3-8-32 proof is refused by the contract, the reason decoded: AuthV3_8_32Validator
    // checks it before any response (none given here), and the UniversalVerifier then checks its
    // challenge against the sender and the responses, as for authV2.
    const { addresses } = await getChain(ctx);
    const challenge = await authProofChallenge(DEV_ADDRESS, []);
    const authV3 = await (await getIden3Prover(ctx, 'v3authV3-8-32')).proofService.generateAuthProof(CircuitId.AuthV3_8_32, DID.parse(profileDid), { challenge });
    expect(authV3.pub_signals[1]).toBe(challenge.toString());
    const submitAuthV3 = async (proof: { pub_signals: string[]; proof: unknown }, responses: unknown[]): Promise<unknown> =>
      sendContractTransaction(
        ctx,
        { address: addresses.universalVerifier, abi: universalVerifierAbi(), method: 'submitResponse', args: [{ authMethod: 'authV3-8-32', proof: await packAuthProof(proof as never) }, responses, '0x'] },
        { description: 'submitResponse (authV3-8-32)' },
      );
    const piA = (authV3.proof as { pi_a: string[] }).pi_a;
    await expect(submitAuthV3({ ...authV3, proof: { ...(authV3.proof as object), pi_a: [piA[1], piA[0], piA[2]] } }, [])).rejects.toMatchObject({ exitCode: 1, revertName: 'ProofIsNotValid' });
    await expect(submitAuthV3(authV3, [{ requestId: request.id, proof: '0x', metadata: '0x' }])).rejects.toMatchObject({ exitCode: 1, revertName: 'ChallengeIsInvalid' });

    // The circuit's nullifier, from the parts each party knows: Poseidon(holder genesis id, the
    // subject's profile nonce, claim schema, verifierID, session). The verifierID is the
    // UniversalVerifier's own id (type 0x01A1) from its address, as the contract computes it.
    const chain = await getChain(ctx);
    const verifierAddress = chain.addresses.universalVerifier;
    const verifierID = new Id(Uint8Array.from([0x01, 0xa1]), genesisFromEthAddress(getBytes(verifierAddress))).bigInt();
    const onChainVerifierID = (await new Contract(verifierAddress, ['function getVerifierID() view returns (uint256)'], chain.provider).getFunction('getVerifierID')()) as bigint;
    expect(onChainVerifierID).toBe(verifierID);
    const coreClaim = credential.proof.find((p) => p.type === 'BJJSignature2021')?.coreClaim;
    const schema = new Claim().fromHex(String(coreClaim)).getSchemaHash().bigInt();
    const genesisID = DID.idFromDID(DID.parse(holderDid)).bigInt();
    const nullifier = poseidon.hash([genesisID, PROFILE_NONCE, schema, verifierID, BigInt(SESSION)]);
    expect(status).toMatchObject({
      isVerified: true,
      responseFields: { nullifier: nullifier.toString(), userID: DID.idFromDID(DID.parse(profileDid)).bigInt().toString() },
    });

    // The contracts would take the same nullifier from another address; vc refuses before proving.
    const second = await runVcInProcess(['--json', 'holder', 'prove-submit', '--credential', file('profile.json'), '--request', file('nullifier.json')], { home, env: { ...env, WALLET_KEY: OTHER_KEY } });
    expect(second.status, second.stderr).toBe(1);
    expect(jsonError(second.stderr).message).toBe(
      `nullifier ${nullifier} (session ${SESSION}) was already used for request ${request.id} by ${DEV_ADDRESS}: one proof per holder profile and session (the UniversalVerifier would accept it again from another address; vc refuses before proving)`,
    );
    const otherStatus = await vc(['verifier', 'status', '--request', String(request.id), '--address', OTHER_ADDRESS]);
    expect(otherStatus.status, otherStatus.stderr).toBe(1);
  }, LONG);

  // attack-s35: the nullifier is the verifier's sybil check, but only vc's holder refuses a reused
  // one; a holder that skips that check (the js-sdk, or any other client) gets the same nullifier
  // accepted from a second address, and `vc verifier status` for that address says isVerified
  // with nothing to tell the verifier that this nullifier was already counted for DEV_ADDRESS.
  it("the verifier's status of a second address that proved the same nullifier says it was already used (by whom)", async () => {
    const request = readJson<CredentialRequest>('nullifier.json');
    const credential = readJson<{ credential: PbqCredentialInput }>('profile.json').credential;
    const cheating = new Context({ config: parseConfig({ WALLET_KEY: OTHER_KEY }, home) });
    try {
      const { proveAndSubmit } = await import('../../src/core/pbq/prove.js');
      // What a holder that does not run vc's check does: prove and submit from its second address.
      await proveAndSubmit(cheating, { credential, request, precheck: false });
    } finally {
      await cheating.close();
    }
    const first = await ok(['verifier', 'status', '--request', String(request.id), '--address', DEV_ADDRESS]);
    const second = await vc(['verifier', 'status', '--request', String(request.id), '--address', OTHER_ADDRESS]);
    const status = second.stdout.trim() === '' ? {} : second.json<Json>();
    // The same nullifier twice: the contracts took it.
    expect((status.responseFields as Json | undefined)?.nullifier).toBe((first.responseFields as Json).nullifier);
    // What the verifier reads must say so: what the contract says (verified), the address that
    // used the nullifier first, and not accepted by vc (exit 1); the first address's status is clean.
    expect(status).toMatchObject({ isVerified: true, nullifierFirstUsedBy: DEV_ADDRESS });
    expect(second.status, second.stderr).toBe(1);
    expect(first.nullifierFirstUsedBy).toBeUndefined();
    // Without --json, one line names the first address.
    const text = await runVcInProcess(['verifier', 'status', '--request', String(request.id), '--address', OTHER_ADDRESS], { home, env });
    expect(text.status).toBe(1);
    expect(text.stderr).toContain(`was first used by ${DEV_ADDRESS}`);
  }, LONG);
});

describe('prove-submit again from the address that already proved a nullifier request (attack-s35)', () => {
  // A re-run (after a crash before the output, or by mistake) from the same address: the refusal
  // should say this address already has a verified proof (ProofAlreadyVerified), not that the
  // nullifier "was already used ... by" that very address, with the advice about other addresses.
  it('is refused as already verified for this address', async () => {
    const again = await vc(['holder', 'prove-submit', '--credential', file('profile.json'), '--request', file('nullifier.json')]);
    expect(again.status, again.stderr).toBe(1);
    const { id } = readJson<CredentialRequest>('nullifier.json');
    expect(jsonError(again.stderr).message).toBe(`ProofAlreadyVerified(requestId=${id}, sender=${DEV_ADDRESS}): this address already has a verified proof for request ${id}`);
  }, LONG);
});

describe('vc verifier request --nullifier-session killed before its output (attack-s35)', () => {
  // The request is registered and recorded in the wallet, then the command dies before printing
  // its id. The same command again is refused: "session N is already used by another request",
  // though that request is this wallet's own (recorded in it); the user never learns its id and
  // must abandon the session. The re-run should give the recorded request back.
  it('the re-run of the same command gives the registered request, not a conflict', async () => {
    const chain = await getChain(ctx);
    const universalVerifier = new Contract(chain.addresses.universalVerifier, ['function getRequestsCount() view returns (uint256)'], chain.provider);
    const requestsCount = async (): Promise<bigint> => (await universalVerifier.getFunction('getRequestsCount')()) as bigint;
    const args = ['--json', 'verifier', 'request', '--circuit', V3, '--op', '$sd', '--nullifier-session', '880088'];
    const killed = runVc(args, { home, env: { ...env, VC_CRASH_AT: 'output:pending' } });
    expect(killed.status).not.toBe(0);
    expect(killed.stdout).toBe('');
    const registered = await requestsCount();
    // The runs after the killed one in process (a crash point alone needs a process of its own).
    const rerun = await runVcInProcess(args, { home, env });
    expect(rerun.status, rerun.stderr).toBe(0);
    const request = rerun.json<CredentialRequest>();
    expect(request).toMatchObject({ circuitId: V3, params: { nullifierSessionId: '880088' }, query: { credentialSubject: { birthDate: {} } } });
    // The request the killed run registered, not a second one.
    expect(await requestsCount()).toBe(registered);
    const again = await runVcInProcess(args, { home, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.json<CredentialRequest>().id).toBe(request.id);
    // Another query on that session stays a conflict, naming the wallet's request.
    const other = await runVcInProcess(['--json', 'verifier', 'request', '--circuit', V3, '--op', '$eq', '--value', String(BIRTH_DATE), '--nullifier-session', '880088'], { home, env });
    expect(other.status, other.stderr).toBe(2);
    expect(jsonError(other.stderr)).toMatchObject({ field: '--nullifier-session', message: expect.stringContaining(`this wallet's request ${request.id} (another query)`) });
    expect(await requestsCount()).toBe(registered);
  }, LONG);
});
